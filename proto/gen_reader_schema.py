#!/usr/bin/env python3
"""Generates the analyzer's view of proto/prof.proto, as gen_agent_schema.py
generates the agent's: the plain records the analyzer reads (io/records.h)
and the one decoder that fills them straight from the wire bytes
(io/records_decode.cpp). Nothing past the decoder sees the wire format, and
no message is decoded twice (no libprotobuf message in between).

    gen_reader_schema.py prof.proto OUT_DIR

The records keep every field of the schema, with the format's compact
encodings (FORMAT.md, "Time" and "Compact fields") undone by name, so that a
new field that follows them needs no edit here either:
  - `X_delta_ns` (sint64) of a record in a list of the message that has
    `time_base_ns` (Chunk) is read as the absolute time `X_ns`: the first
    record's is relative to time_base_ns, every later one to the previous
    record's of the same list;
  - `X_delta` (sint64) likewise is read as `X`, a running value from 0, with
    the type `X` has in the other records (correlation_id: uint32);
  - `P_x_minus_one`, `P_y_minus_one`, `P_z_minus_one` are read as one
    `Dim3 P`, each plus one (modulo 2^32);
  - the fields in ZERO_MEANS_PREVIOUS (ApiCall.tid) take the previous
    record's value of the list where they are 0.
Enums become `enum class` with the schema's numbers (a nested enum is named
after its message: Frame.Kind is FrameKind), enumerators kCamelCase without
the enum's prefix (COPY_KIND_UNKNOWN is CopyKind::kUnknown); a value the
reader does not know is kept as written. A sub-message is a std::optional
(proto3 gives it presence), a map a std::map.

The decoder accepts and refuses what libprotobuf's parser does: unknown
fields (of any wire type, groups included) and known fields of the wrong wire
type are skipped; a truncated or over-long varint, a length past the end, a
field number 0, wire types 6 and 7, an unmatched end-group, nesting deeper
than 100 and `string` fields (map keys included) that are not UTF-8 make the
message not parse.
"""
import os
import re
import sys

from gen_agent_schema import Parser, SchemaError, order_by_dependency, screaming, tokenize

# (message, field): a 0 stands for the previous record's value in the list
# (FORMAT.md, "Compact fields"); the agent's ChunkEncoder writes them so.
ZERO_MEANS_PREVIOUS = {("ApiCall", "tid")}

SCALARS = {
    # proto type: (C++ type, wire type, how the raw uint64 `v` becomes the value)
    "uint32": ("uint32_t", "kVarint", "static_cast<uint32_t>(v)"),
    "uint64": ("uint64_t", "kVarint", "v"),
    "int32": ("int32_t", "kVarint", "static_cast<int32_t>(v)"),
    "int64": ("int64_t", "kVarint", "static_cast<int64_t>(v)"),
    "sint32": ("int32_t", "kVarint", "unzigzag32(static_cast<uint32_t>(v))"),
    "sint64": ("int64_t", "kVarint", "unzigzag64(v)"),
    "bool": ("bool", "kVarint", "v != 0"),
}
DIM = re.compile(r"^(\w+)_([xyz])_minus_one$")
TIME_BASE = "time_base_ns"


def enum_cpp_name(enum):
    return (enum["parent"] or "") + enum["name"]


def enumerator(value_name, enum_name):
    prefix = screaming(enum_name) + "_"
    if value_name.startswith(prefix):
        value_name = value_name[len(prefix):]
    return "k" + "".join(part.capitalize() for part in value_name.lower().split("_"))


class Schema:
    def __init__(self, text):
        self.messages, top_enums = Parser(tokenize(text)).parse_file()
        self.enums = list(top_enums)
        for message in self.messages:
            self.enums += message["enums"]
        self.by_name = {m["name"]: m for m in self.messages}
        self.container = next((m for m in self.messages
                               if any(f["name"] == TIME_BASE for f in m["fields"])), None)
        self.listed = set()  # messages that are records of the container's lists
        if self.container:
            for field in self.container["fields"]:
                if field["kind"] == "repeated" and field["type"] in self.by_name:
                    self.listed.add(field["type"])
        self.fields = {m["name"]: [self.read_field(m, f) for f in m["fields"]] for m in self.messages}

    def enum_of(self, type_name, message):
        for enum in message["enums"]:
            if enum["name"] == type_name:
                return enum
        for enum in self.enums:
            if enum["parent"] is None and enum["name"] == type_name:
                return enum
        if "." in type_name:
            outer, inner = type_name.rsplit(".", 1)
            for enum in self.enums:
                if enum["parent"] == outer and enum["name"] == inner:
                    return enum
        return None

    def type_elsewhere(self, name, message):
        """The C++ type a field called `name` has in the other messages."""
        for other in self.messages:
            if other is message:
                continue
            for field in other["fields"]:
                if field["name"] == name and field["type"] in SCALARS and field["kind"] == "singular":
                    return SCALARS[field["type"]][0]
        return "uint64_t"

    def read_field(self, message, field):
        """What the reader makes of one field: a dict the emitters below use."""
        where = f"{message['name']}.{field['name']}"
        out = {"number": field["number"], "name": field["name"], "kind": field["kind"],
               "proto": field["type"], "compact": None}
        if field["kind"] == "map":
            out.update(category="map", cpp="std::map<std::string, std::string>")
            return out
        type_name = field["type"]
        enum = self.enum_of(type_name, message)
        if type_name in ("bytes", "string"):
            out.update(category="bytes", cpp="std::string", utf8=type_name == "string")
        elif type_name in SCALARS:
            out.update(category="scalar", cpp=SCALARS[type_name][0])
        elif enum is not None:
            out.update(category="enum", cpp=enum_cpp_name(enum))
        elif type_name in self.by_name:
            out.update(category="message", cpp=f"recorded::{type_name}")
        else:
            raise SchemaError(f"{where}: unknown type {type_name!r}")
        if field["kind"] == "repeated":
            if out["category"] not in ("bytes", "message") and type_name not in ("uint32", "uint64"):
                raise SchemaError(f"{where}: repeated {type_name} is not supported")
            return out

        name = field["name"]
        dim = DIM.match(name)
        if dim:
            if type_name != "uint32":
                raise SchemaError(f"{where}: a *_minus_one dimension must be uint32")
            out.update(compact="dim", member=dim.group(1), axis=dim.group(2))
        elif name.endswith("_delta_ns") or name.endswith("_delta"):
            if type_name != "sint64":
                raise SchemaError(f"{where}: a delta must be sint64")
            if message["name"] not in self.listed:
                raise SchemaError(f"{where}: deltas run along a list of the message with {TIME_BASE}")
            if name.endswith("_delta_ns"):
                out.update(compact="time", member=name[:-len("_delta_ns")] + "_ns", cpp="uint64_t")
            else:
                member = name[:-len("_delta")]
                out.update(compact="running", member=member, cpp=self.type_elsewhere(member, message))
        elif (message["name"], name) in ZERO_MEANS_PREVIOUS:
            if message["name"] not in self.listed or type_name not in ("uint32", "uint64"):
                raise SchemaError(f"{where}: only an unsigned field of a listed record can mean 'previous'")
            out.update(compact="previous")
        return out


# ------------------------------------------------------------------ header --

def emit_enum(enum):
    name = enum_cpp_name(enum)
    lines = [f"enum class {name} : int32_t {{"]
    for value_name, number in enum["values"]:
        lines.append(f"  {enumerator(value_name, enum['name'])} = {number},")
    lines.append("};")
    lines.append(f"std::string_view schema_name({name} value);")
    return lines


def emit_struct(schema, message):
    lines = [f"struct {message['name']} {{"]
    dims = set()
    for f in schema.fields[message["name"]]:
        cpp = f["cpp"].replace("recorded::", "")
        if f["compact"] == "dim":
            if f["member"] not in dims:
                dims.add(f["member"])
                lines.append(f"  Dim3 {f['member']};")
        elif f["compact"] in ("time", "running"):
            lines.append(f"  {cpp} {f['member']} = 0;")
        elif f["kind"] == "repeated":
            lines.append(f"  std::vector<{cpp}> {f['name']};")
        elif f["category"] == "message":
            lines.append(f"  std::optional<{cpp}> {f['name']};")
        elif f["category"] in ("bytes", "map"):
            lines.append(f"  {cpp} {f['name']};")
        elif f["category"] == "enum":
            lines.append(f"  {cpp} {f['name']} = {cpp}{{}};")
        elif cpp == "bool":
            lines.append(f"  bool {f['name']} = false;")
        else:
            lines.append(f"  {cpp} {f['name']} = 0;")
    lines.append("};")
    return lines


def generate_header(schema, ordered):
    out = [
        "// Generated from proto/prof.proto by proto/gen_reader_schema.py. Do not edit:",
        "// change the schema, and the build regenerates this header.",
        "//",
        "// The records of a capture file as plain structs, one per message with every",
        "// field kept and the format's compact encodings undone (FORMAT.md): absolute",
        "// times, an API call's own tid and correlation id, launch dimensions. A",
        "// default-constructed record is what an empty message decodes to.",
        "#pragma once",
        "#include <cstdint>",
        "#include <map>",
        "#include <optional>",
        "#include <string>",
        "#include <string_view>",
        "#include <vector>",
        "",
        "namespace prof::analyzer {",
        "",
        "// A launch's grid or block; stored minus one on the wire, so an absent",
        "// dimension is 1.",
        "struct Dim3 {",
        "  uint32_t x = 1, y = 1, z = 1;",
        "};",
        "",
        "// Each enum's schema_name(value) is the schema's name of the value",
        "// (\"HOST_TO_DEVICE\"), empty for a value the schema does not name: what",
        "// `dump` prints.",
        "",
    ]
    for enum in schema.enums:
        out += emit_enum(enum)
        out.append("")
    out.append("namespace recorded {")
    out.append("")
    for message in ordered:
        out += emit_struct(schema, message)
        out.append("")
    out += [
        "}  // namespace recorded",
        "",
        "// Decode one message's bytes (a chunk's, the header's) into `out`, which is",
        "// reset first; a chunk reuses its lists' capacity. False: the bytes do not",
        "// parse as the message (FORMAT.md: the file is corrupt).",
    ]
    for message in ordered:
        if message["parent"] is None and (message is schema.container or message["name"] == "Header"):
            out.append(f"[[nodiscard]] bool decode(std::string_view bytes, recorded::{message['name']}& out);")
    out += ["", "}  // namespace prof::analyzer", ""]
    return "\n".join(out)


# ----------------------------------------------------------------- decoder --

WIRE_NUMBERS = {"kVarint": 0, "kFixed64": 1, "kLength": 2, "kFixed32": 5}


def on(wire, body):
    """The statements for one wire type of a field: read it, then next field."""
    return [f"if (type == WireType::{wire}) {{"] + ["  " + line for line in body] + ["  continue;", "}"]


def in_order_read(f):
    """(tag byte, statements) of a field the in-order pass can read (see
    emit_decoder), or None: a field with a one-byte tag and one wire type."""
    reads = field_reads(f)
    if f["number"] >= 16 or len(reads) != 1:
        return None
    wire, body = reads[0]
    return (f["number"] << 3) | WIRE_NUMBERS[wire], body


def read_bytes(utf8=False):
    check = " || !valid_utf8(bytes)" if utf8 else ""
    return ["std::string_view bytes;", f"if (!in.bytes(bytes){check}) return false;"]


def read_message(target):
    return read_bytes() + ["WireReader sub(bytes, in.depth() + 1);",
                           f"if (!sub.nested_ok() || !decode_fields(sub, {target})) return false;"]


def read_varint(target, value):
    return ["uint64_t v = 0;", "if (!in.varint(v)) return false;", f"{target} = {value};"]


def field_reads(f):
    """How one field is read (`m`: the record): a (wire type, statements)
    pair for each wire type it is taken in."""
    name, cat = f["name"], f["category"]
    if f["kind"] == "map":
        return [("kLength", read_bytes() + [
            "std::string key, value;",
            "if (!read_map_entry(bytes, in.depth() + 1, key, value)) return false;",
            "// A key twice: the last entry wins, as in protobuf's maps.",
            f"m.{name}[std::move(key)] = std::move(value);"])]
    if f["kind"] == "repeated":
        if cat == "message":
            return [("kLength", read_message(f"m.{name}.emplace_back()"))]
        if cat == "bytes":
            return [("kLength", read_bytes(f.get("utf8")) + [f"m.{name}.emplace_back(bytes);"])]
        conv = SCALARS[f["proto"]][2]
        # Packed (what the agent writes) or one element per tag: protobuf takes both.
        return [("kVarint", ["uint64_t v = 0;", "if (!in.varint(v)) return false;",
                             f"m.{name}.push_back({conv});"]),
                ("kLength", read_bytes() + ["WireReader packed(bytes, in.depth());",
                                            "while (!packed.done()) {",
                                            "  uint64_t v = 0;",
                                            "  if (!packed.varint(v)) return false;",
                                            f"  m.{name}.push_back({conv});",
                                            "}"])]
    if cat == "message":
        # Twice on the wire: the second merges into the first, as protobuf does.
        return [("kLength", read_message(f"m.{name} ? *m.{name} : m.{name}.emplace()"))]
    if cat == "bytes":
        return [("kLength", read_bytes(f.get("utf8")) + [f"m.{name}.assign(bytes);"])]
    if f["compact"] == "dim":
        return [("kVarint", read_varint(f"m.{f['member']}.{f['axis']}", "static_cast<uint32_t>(v) + 1u"))]
    if f["compact"] in ("time", "running"):
        # Kept as the raw delta here; decode() sums the list afterwards.
        return [("kVarint", read_varint(f"m.{f['member']}",
                                        f"static_cast<{f['cpp']}>(static_cast<uint64_t>(unzigzag64(v)))"))]
    if cat == "enum":
        return [("kVarint", read_varint(f"m.{name}", f"static_cast<{f['cpp']}>(static_cast<int32_t>(v))"))]
    return [("kVarint", read_varint(f"m.{name}", SCALARS[f["proto"]][2]))]


def emit_case(f):
    """The statements of one `case` of a message's field switch."""
    return [line for wire, body in field_reads(f) for line in on(wire, body)]


def emit_decoder(schema, message):
    name = message["name"]
    lines = [f"bool decode_fields(WireReader& in, recorded::{name}& m) {{"]
    # The agent writes a record's fields in the order of their numbers, each
    # once: one pass in that order reads each field whose tag is the next
    # byte, with a test that follows the record's pattern, where the switch
    # below jumps through a table once per field (a mispredicted indirect
    # jump, most of them). What it reads is what the loop would read from the
    # same place; the loop takes over from where it stops (a field out of
    # order, twice, unknown, or not read here).
    # A repeated field's elements (a map's entries), written one after
    # another, are read in a loop of their own.
    for f in schema.fields[name]:
        read = in_order_read(f)
        if read is None:
            continue
        tag, body = read
        lines.append(f"  {'if' if f['kind'] == 'singular' else 'while'} (in.take_byte({tag})) {{")
        lines += ["    " + line for line in body]
        lines.append("  }")
    lines += ["  while (!in.done()) {",
             "    uint32_t field = 0;",
             "    WireType type{};",
             "    if (!in.tag(field, type)) return false;",
             "    switch (field) {"]
    for f in schema.fields[name]:
        lines.append(f"      case {f['number']}:  // {f['name']}")
        lines += ["        " + line for line in emit_case(f)]
        lines.append("        break;")
    lines += ["      default: break;",
              "    }",
              "    // Unknown, or known with another wire type: skipped, as protobuf does.",
              "    if (!in.skip(field, type)) return false;",
              "  }",
              "  return true;",
              "}",
              ""]
    return lines


def emit_reset(schema, message):
    lines = [f"void reset(recorded::{message['name']}& m) {{"]
    for f in schema.fields[message["name"]]:
        if f["kind"] == "repeated" or f["category"] in ("bytes", "map"):
            lines.append(f"  m.{f['name']}.clear();  // keeps the capacity")
        elif f["category"] == "message":
            lines.append(f"  m.{f['name']}.reset();")
        else:
            member = f["member"] if f["compact"] else f["name"]
            lines.append(f"  m.{member} = {{}};")
    lines += ["}", ""]
    return lines


def emit_undo_compact(schema):
    """decode()'s second half for the container: runs along each list."""
    lines = []
    for f in schema.fields[schema.container["name"]]:
        if f["kind"] != "repeated" or f["category"] != "message":
            continue
        record = f["proto"]
        compact = [r for r in schema.fields[record] if r["compact"] in ("time", "running", "previous")]
        if not compact:
            continue
        lines.append("  {")
        for r in compact:
            if r["compact"] == "time":
                lines.append(f"    uint64_t {r['member']} = out.{TIME_BASE};")
            elif r["compact"] == "running":
                lines.append(f"    {r['cpp']} {r['member']} = 0;")
            else:
                lines.append(f"    {r['cpp']} {r['name']} = 0;")
        lines.append(f"    for (recorded::{record}& r : out.{f['name']}) {{")
        for r in compact:
            if r["compact"] in ("time", "running"):
                # Unsigned: a corrupt delta wraps instead of overflowing.
                lines.append(f"      r.{r['member']} = {r['member']} += r.{r['member']};")
            else:
                lines.append(f"      if (r.{r['name']} != 0) {r['name']} = r.{r['name']};")
                lines.append(f"      r.{r['name']} = {r['name']};")
        lines.append("    }")
        lines.append("  }")
    return lines


def generate_source(schema, ordered):
    out = [
        "// Generated from proto/prof.proto by proto/gen_reader_schema.py. Do not edit:",
        "// change the schema, and the build regenerates this file.",
        "#include <utility>",
        "",
        "#include \"io/records.h\"",
        "#include \"io/wire_reader.h\"",
        "",
        "namespace prof::analyzer {",
        "namespace {",
        "",
    ]
    for message in ordered:
        out.append(f"bool decode_fields(WireReader& in, recorded::{message['name']}& m);")
    out.append("")
    for message in ordered:
        out += emit_decoder(schema, message)
    for message in ordered:
        if message is schema.container:
            out += emit_reset(schema, message)
    out += ["}  // namespace", ""]
    for enum in schema.enums:
        out.append(f"std::string_view schema_name({enum_cpp_name(enum)} value) {{")
        out.append("  switch (value) {")
        seen = set()
        for value_name, number in enum["values"]:
            if number in seen:
                continue
            seen.add(number)
            out.append(f"    case {enum_cpp_name(enum)}::{enumerator(value_name, enum['name'])}: "
                       f"return \"{value_name}\";")
        out += ["  }", "  return {};", "}", ""]
    for message in ordered:
        name = message["name"]
        if message is schema.container:
            out += [f"bool decode(std::string_view bytes, recorded::{name}& out) {{",
                    "  reset(out);",
                    "  WireReader in(bytes, 0);",
                    "  if (!decode_fields(in, out)) return false;",
                    "  // The compact fields (FORMAT.md) run along each list of the chunk, so",
                    "  // they are undone once all of it is read: the wire need not put",
                    f"  // {TIME_BASE} first.",
                    ]
            out += emit_undo_compact(schema)
            out += ["  return true;", "}", ""]
        elif name == "Header" and message["parent"] is None:
            out += [f"bool decode(std::string_view bytes, recorded::{name}& out) {{",
                    "  out = {};",
                    "  WireReader in(bytes, 0);",
                    "  return decode_fields(in, out);",
                    "}", ""]
    out += ["}  // namespace prof::analyzer", ""]
    return "\n".join(out)


def generate(text):
    schema = Schema(text)
    ordered = order_by_dependency(schema.messages, ())
    return generate_header(schema, ordered), generate_source(schema, ordered)


def write_if_changed(path, text):
    # Rewrite only on change, so that an edit of the .proto that leaves a
    # file as it was rebuilds nothing.
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, out_dir = argv[1:]
    with open(source, encoding="utf-8") as f:
        text = f.read()
    try:
        header, decoder = generate(text)
    except SchemaError as error:
        print(f"{source}: {error}", file=sys.stderr)
        return 1
    os.makedirs(os.path.join(out_dir, "io"), exist_ok=True)
    write_if_changed(os.path.join(out_dir, "io", "records.h"), header)
    write_if_changed(os.path.join(out_dir, "io", "records_decode.cpp"), decoder)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
