#!/usr/bin/env python3
"""Generates the agent's view of proto/prof.proto: one C++ header with, per
message, its field numbers, a plain struct the agent fills and a writer that
puts the struct on the wire in field-number order (the way Perfetto's protozero
is generated from its protos). The agent links no libprotobuf, so this reads
the subset of proto3 that prof.proto uses: messages, nested and top-level
enums, scalar, bytes, enum and message fields, `repeated`, `map<string, bytes>`
and `reserved`. Anything else is an error, so that the schema cannot outgrow
the generator unnoticed.

    gen_agent_schema.py prof.proto OUT.h [--fields-only MESSAGE ...]

A message named with --fields-only gets its field numbers only: the agent
assembles it itself (Chunk: one list per field, see chunk_encoder.h).
"""
import re
import sys

SCALARS = {
    # proto type: (C++ type, ProtoWriter call)
    "uint32": ("uint32_t", "add_uint"),
    "uint64": ("uint64_t", "add_uint"),
    "int32": ("int32_t", "add_int"),
    "int64": ("int64_t", "add_int"),
    "sint32": ("int32_t", "add_sint"),
    "sint64": ("int64_t", "add_sint"),
    "bool": ("bool", "add_bool"),
    "bytes": ("std::string", "add_bytes"),
    "string": ("std::string", "add_bytes"),
}
CPP_KEYWORDS = {"default", "delete", "new", "class", "private", "public", "register", "signed",
                "unsigned", "union", "switch", "case", "template", "this", "operator", "int",
                "char", "float", "double", "long", "short", "void", "bool", "auto", "const"}


class SchemaError(Exception):
    pass


def tokenize(text):
    text = re.sub(r"//[^\n]*", "", text)
    return re.findall(r'"[^"]*"|[A-Za-z_][A-Za-z0-9_.]*|\d+|[{}<>=;,\[\]()-]', text)


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.at = 0

    def peek(self):
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if token is None:
            raise SchemaError("unexpected end of file")
        if expected is not None and token != expected:
            raise SchemaError(f"expected {expected!r}, found {token!r} (token {self.at})")
        self.at += 1
        return token

    def skip_statement(self):
        while self.take() != ";":
            pass

    def parse_file(self):
        messages, enums = [], []
        while self.peek() is not None:
            token = self.peek()
            if token in ("syntax", "package", "option", "import"):
                self.skip_statement()
            elif token == "message":
                messages.append(self.parse_message(None))
            elif token == "enum":
                enums.append(self.parse_enum(None))
            else:
                raise SchemaError(f"unsupported top-level statement {token!r}")
        return messages, enums

    def parse_enum(self, parent):
        self.take("enum")
        name = self.take()
        self.take("{")
        values = []
        while self.peek() != "}":
            if self.peek() in ("option", "reserved"):
                self.skip_statement()
                continue
            value_name = self.take()
            self.take("=")
            negative = self.peek() == "-"
            if negative:
                self.take()
            number = int(self.take()) * (-1 if negative else 1)
            self.take(";")
            values.append((value_name, number))
        self.take("}")
        return {"name": name, "parent": parent, "values": values}

    def parse_message(self, parent):
        self.take("message")
        name = self.take()
        self.take("{")
        message = {"name": name, "parent": parent, "fields": [], "enums": [], "reserved": []}
        while self.peek() != "}":
            token = self.peek()
            if token == "enum":
                message["enums"].append(self.parse_enum(name))
            elif token == "message":
                raise SchemaError(f"{name}: nested messages are not supported")
            elif token == "reserved":
                self.skip_statement()
            elif token in ("oneof", "optional", "extensions", "extend", "option"):
                raise SchemaError(f"{name}: {token!r} is not supported by this generator")
            else:
                message["fields"].append(self.parse_field(name))
        self.take("}")
        message["fields"].sort(key=lambda f: f["number"])
        return message

    def parse_field(self, message):
        label = None
        if self.peek() == "repeated":
            label = self.take()
        if self.peek() == "map":
            self.take("map")
            self.take("<")
            key = self.take()
            self.take(",")
            value = self.take()
            self.take(">")
            if (key, value) not in (("string", "bytes"), ("string", "string")):
                raise SchemaError(f"{message}: only map<string, bytes> is supported")
            kind = "map"
            type_name = None
        else:
            type_name = self.take()
            kind = "repeated" if label else "singular"
        field_name = self.take()
        self.take("=")
        number = int(self.take())
        if self.peek() == "[":
            raise SchemaError(f"{message}.{field_name}: field options are not supported")
        self.take(";")
        return {"name": field_name, "number": number, "type": type_name, "kind": kind}


def screaming(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def enumerator(name, enum_name):
    # API_DOMAIN_UNSPECIFIED of enum ApiDomain is ApiDomain::unspecified.
    prefix = screaming(enum_name) + "_"
    if name.startswith(prefix):
        name = name[len(prefix):]
    lowered = name.lower()
    return lowered + "_" if lowered in CPP_KEYWORDS else lowered


def emit_enum(enum, indent):
    lines = [f"{indent}enum class {enum['name']} : int32_t {{"]
    for value_name, number in enum["values"]:
        lines.append(f"{indent}  {enumerator(value_name, enum['name'])} = {number},")
    lines.append(f"{indent}}};")
    return lines


def resolve(type_name, message, messages, enums):
    """Classifies a field type: scalar, enum (with its C++ name) or message."""
    if type_name in SCALARS:
        return "scalar", SCALARS[type_name][0]
    for nested in message["enums"]:
        if nested["name"] == type_name:
            return "enum", type_name
    for enum in enums:
        if enum["name"] == type_name:
            return "enum", type_name
    for other in messages:
        if other["name"] == type_name:
            return "message", type_name
    if "." in type_name:
        outer, inner = type_name.rsplit(".", 1)
        return "enum", f"{outer}::{inner}"
    raise SchemaError(f"{message['name']}: unknown type {type_name!r}")


def emit_message(message, messages, enums, fields_only):
    name = message["name"]
    lines = [f"struct {name} {{"]
    for enum in message["enums"]:
        lines += emit_enum(enum, "  ")
    lines.append("  struct Fields {")
    for field in message["fields"]:
        lines.append(f"    static constexpr uint32_t {field['name']} = {field['number']};")
    lines.append("  };")
    if not fields_only:
        for field in message["fields"]:
            fname = field["name"]
            if field["kind"] == "map":
                lines.append(f"  std::vector<std::pair<std::string, std::string>> {fname};")
                continue
            category, cpp = resolve(field["type"], message, messages, enums)
            if field["kind"] == "repeated":
                if category == "message":
                    raise SchemaError(f"{name}.{fname}: repeated messages are only supported in "
                                      "--fields-only messages")
                lines.append(f"  std::vector<{cpp}> {fname};")
            elif category == "message":
                # A sub-message has presence on the wire (proto3), so it has it here.
                lines.append(f"  bool has_{fname} = false;")
                lines.append(f"  {cpp} {fname};")
            elif category == "enum":
                lines.append(f"  {cpp} {fname} = {cpp}{{}};")
            elif cpp == "std::string":
                lines.append(f"  {cpp} {fname};")
            else:
                lines.append(f"  {cpp} {fname} = 0;")
    lines.append("};")
    return lines


def emit_writer(message, messages, enums):
    name = message["name"]
    lines = [
        f"// Writes the fields of a {name} (not its tag and length) in field-number order;",
        "// zero scalars and empty bytes are left out, as proto3 encodes them.",
        "template <typename Writer>",
        f"[[gnu::always_inline]] inline void write_fields(Writer& w, const {name}& m) {{",
    ]
    for field in message["fields"]:
        fname, number = field["name"], field["number"]
        if field["kind"] == "map":
            lines += [
                f"  for (const auto& entry : m.{fname}) {{",
                f"    w.add_message({number}, [&](auto& e) {{",
                "      e.add_bytes(1, entry.first);",
                "      e.add_bytes(2, entry.second);",
                "    });",
                "  }",
            ]
            continue
        category, cpp = resolve(field["type"], message, messages, enums)
        if field["kind"] == "repeated":
            if field["type"] in ("bytes", "string"):
                # An empty element is still an element.
                lines.append(f"  for (const auto& element : m.{fname}) w.add_repeated_bytes({number}, element);")
            elif field["type"] in ("uint32", "uint64"):
                lines.append(f"  w.add_packed_uints({number}, m.{fname});")
            else:
                raise SchemaError(f"{name}.{fname}: repeated {field['type']} is not supported")
        elif category == "message":
            lines.append(f"  if (m.has_{fname}) w.add_message({number}, [&](auto& s) {{ write_fields(s, m.{fname}); }});")
        elif category == "enum":
            lines.append(f"  w.add_uint({number}, static_cast<uint32_t>(m.{fname}));")
        else:
            call = SCALARS[field["type"]][1]
            lines.append(f"  w.{call}({number}, m.{fname});")
    lines.append("}")
    return lines


def order_by_dependency(messages, fields_only):
    """Messages before the messages that contain them (C++ needs complete types)."""
    by_name = {m["name"]: m for m in messages}
    ordered, done = [], set()

    def visit(message, trail):
        if message["name"] in done:
            return
        if message["name"] in trail:
            raise SchemaError(f"recursive message {message['name']}")
        if message["name"] not in fields_only:
            for field in message["fields"]:
                if field["type"] in by_name:
                    visit(by_name[field["type"]], trail | {message["name"]})
        done.add(message["name"])
        ordered.append(message)

    for message in messages:
        visit(message, set())
    return ordered


def generate(text, fields_only):
    messages, enums = Parser(tokenize(text)).parse_file()
    known = {m["name"] for m in messages}
    for name in fields_only:
        if name not in known:
            raise SchemaError(f"--fields-only {name}: no such message")
    out = [
        "// Generated from proto/prof.proto by proto/gen_agent_schema.py. Do not edit:",
        "// change the schema, and the build regenerates this header.",
        "#pragma once",
        "#include <cstdint>",
        "#include <string>",
        "#include <utility>",
        "#include <vector>",
        "",
        "namespace prof::file {",
        "",
    ]
    for enum in enums:
        out += emit_enum(enum, "")
        out.append("")
    ordered = order_by_dependency(messages, fields_only)
    for message in ordered:
        out += emit_message(message, messages, enums, message["name"] in fields_only)
        out.append("")
    for message in ordered:
        if message["name"] not in fields_only:
            out += emit_writer(message, messages, enums)
            out.append("")
    out.append("}  // namespace prof::file")
    return "\n".join(out) + "\n"


def main(argv):
    args = argv[1:]
    fields_only = []
    positional = []
    i = 0
    while i < len(args):
        if args[i] == "--fields-only":
            fields_only.append(args[i + 1])
            i += 2
        else:
            positional.append(args[i])
            i += 1
    if len(positional) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    source, output = positional
    with open(source, encoding="utf-8") as f:
        text = f.read()
    try:
        header = generate(text, fields_only)
    except SchemaError as error:
        print(f"{source}: {error}", file=sys.stderr)
        return 1
    # Rewrite only on change, so that an edit elsewhere in the .proto that
    # leaves the header as it was rebuilds nothing.
    try:
        with open(output, encoding="utf-8") as f:
            if f.read() == header:
                return 0
    except FileNotFoundError:
        pass
    with open(output, "w", encoding="utf-8") as f:
        f.write(header)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
