#!/usr/bin/env python3
"""The agent's schema generator: every field of prof.proto reaches the header
with its number, and what the generator cannot express is refused rather than
dropped.

    gen_agent_schema_test.py PROTO_DIR
"""
import os
import re
import sys

sys.path.insert(0, sys.argv[1])
import gen_agent_schema as gen  # noqa: E402

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


with open(os.path.join(sys.argv[1], "prof.proto"), encoding="utf-8") as f:
    proto = f.read()
header = gen.generate(proto, ["Chunk"])

# Every field declaration of the schema, as (message, name, number), from a
# scan independent of the generator's parser.
fields = []
message = None
for line in proto.splitlines():
    line = line.split("//")[0].strip()
    m = re.match(r"message (\w+)", line)
    if m:
        message = m.group(1)
        continue
    m = re.match(r"(?:repeated )?(?:map<[^>]+>|[\w.]+) (\w+) = (\d+);", line)
    if m and message and not line.startswith(("reserved",)) and not re.match(r"[A-Z_0-9]+ =", line):
        fields.append((message, m.group(1), int(m.group(2))))
check(len(fields) > 150, f"found only {len(fields)} fields in prof.proto")
for message, name, number in fields:
    check(re.search(rf"static constexpr uint32_t {name} = {number};", header) is not None,
          f"{message}.{name} = {number} has no field constant")
    if message != "Chunk":
        body = re.search(rf"write_fields\(Writer& w, const {message}& m\) {{\n(.*?)\n}}\n", header, re.S)
        check(body is not None and re.search(
                  rf"\({number}, (static_cast<\w+>\()?(m\.{name}\b|element\)|\[&\])", body.group(1)) is not None,
              f"{message}.{name} = {number} is never written by write_fields({message})")
check("external_correlation_id" not in header, "a reserved field is still generated")
check("enum class ApiDomain : int32_t" in header and "runtime = 1," in header, "top-level enums")
check("default_ = 6," in header, "a C++ keyword as an enumerator gets a trailing underscore")

for bad in ("message A { oneof x { uint32 a = 1; } }", "message A { fixed32 a = 1; }",
            "message A { uint32 a = 1 [packed = true]; }", "message A { map<uint32, bytes> m = 1; }",
            "message A { message B { uint32 b = 1; } }", "message A { repeated B b = 1; } message B {}"):
    try:
        gen.generate(bad, [])
        failures.append(f"accepted: {bad}")
    except gen.SchemaError:
        pass

for failure in failures:
    print("FAIL:", failure)
print(f"{len(fields)} fields checked, {len(failures)} failures")
sys.exit(1 if failures else 0)
