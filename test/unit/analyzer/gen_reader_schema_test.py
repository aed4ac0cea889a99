#!/usr/bin/env python3
"""The analyzer's schema generator: every field of prof.proto is decoded into
its record, the compact encodings become the fields they stand for, a field
added to the schema needs nothing else, and what the generator cannot
express is refused rather than dropped.

    gen_reader_schema_test.py PROTO_DIR
"""
import os
import re
import sys

sys.path.insert(0, sys.argv[1])
import gen_agent_schema as agent  # noqa: E402
import gen_reader_schema as gen  # noqa: E402

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def decoder_body(source, message):
    m = re.search(rf"bool decode_fields\(WireReader& in, recorded::{message}& m\) {{\n(.*?)\n}}\n", source, re.S)
    return m.group(1) if m else ""


with open(os.path.join(sys.argv[1], "prof.proto"), encoding="utf-8") as f:
    proto = f.read()
header, source = gen.generate(proto)

# Every field of the schema, as the agent's header numbers them (its own
# test checks those against the .proto text).
fields = []
for message, body in re.findall(r"^struct (\w+) \{\n(.*?)^\};", agent.generate(proto, ["Chunk"]), re.S | re.M):
    for name, number in re.findall(r"static constexpr uint32_t (\w+) = (\d+);", body):
        fields.append((message, name, int(number)))
check(len(fields) > 150, f"found only {len(fields)} fields in prof.proto")
for message, name, number in fields:
    check(f"      case {number}:  // {name}\n" in decoder_body(source, message),
          f"{message}.{name} = {number} is not decoded")

# The compact encodings (FORMAT.md) become what they stand for.
check("  uint64_t start_ns = 0;" in header and "start_delta_ns" not in header, "times are absolute")
check("  uint32_t correlation_id = 0;" in header and "correlation_id_delta" not in header, "correlation id")
check("  Dim3 grid;" in header and "minus_one" not in header, "launch dimensions")
check("m.grid.y = static_cast<uint32_t>(v) + 1u;" in decoder_body(source, "Kernel"), "dimensions plus one")
check("r.start_ns = start_ns += r.start_ns;" in source and "uint64_t start_ns = out.time_base_ns;" in source,
      "deltas run from the chunk's time base")
check("if (r.tid != 0) tid = r.tid;" in source, "ApiCall.tid 0 is the previous call's")
check("enum class CopyKind : int32_t {\n  kUnknown = 0,\n  kHostToDevice = 1," in header, "enumerators")
check("enum class FrameKind : int32_t" in header, "a nested enum is named after its message")
check('case MemoryKind::kPinned: return "PINNED";' in source, "schema_name")
check("std::optional<ClockAnchor> clock_anchor;" in header, "a sub-message has presence")
check("std::map<std::string, std::string> options;" in header, "maps")
check("!in.bytes(bytes) || !valid_utf8(bytes)" in decoder_body(source, "Window"), "`string` fields are UTF-8")
check("external_correlation_id" not in header, "a reserved field is still generated")

# A field added to the schema reaches its record and the decoder, compact
# encodings included, with no other edit.
grown = proto.replace("  bool event_timed = 20;\n", "  bool event_timed = 20;\n  sint64 queued_delta_ns = 21;\n"
                      "  uint32 cluster_x_minus_one = 22;\n  bytes note = 23;\n")
check(grown != proto, "the test's edit of the schema did not apply")
grown_header, grown_source = gen.generate(grown)
kernel = re.search(r"struct Kernel \{\n(.*?)\n\};", grown_header, re.S).group(1)
check("  uint64_t queued_ns = 0;" in kernel and "  Dim3 cluster;" in kernel and "  std::string note;" in kernel,
      "a new field has no member in its record")
body = decoder_body(grown_source, "Kernel")
check("case 21:  // queued_delta_ns" in body and "case 23:  // note" in body, "a new field is not decoded")
check("r.queued_ns = queued_ns += r.queued_ns;" in grown_source, "a new time is not made absolute")

for bad in ("message A { oneof x { uint32 a = 1; } }", "message A { fixed32 a = 1; }",
            "message A { uint32 a = 1 [packed = true]; }", "message A { map<uint32, bytes> m = 1; }",
            "message A { message B { uint32 b = 1; } }",
            "message C { uint64 time_base_ns = 1; repeated A a = 2; } message A { int64 start_delta_ns = 1; }",
            "message A { sint64 start_delta_ns = 1; }",  # a delta outside a chunk's list
            "message A { uint64 grid_x_minus_one = 1; }", "message A { repeated sint64 a = 1; }"):
    try:
        gen.generate(bad)
        failures.append(f"accepted: {bad}")
    except gen.SchemaError:
        pass

for failure in failures:
    print("FAIL:", failure)
print(f"{len(fields)} fields checked, {len(failures)} failures")
sys.exit(1 if failures else 0)
