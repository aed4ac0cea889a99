#!/usr/bin/env python3
"""Every JSON writer of profanalyze (dump, report --format json, trace) must
write valid JSON for names holding quotes, backslashes, control characters
and invalid UTF-8: the output must decode as strict UTF-8 and parse with a
real JSON parser, and each name must come back as written, each invalid byte
replaced by U+FFFD.

usage: check_json_escaping.py MAKE_ESCAPE_CAPTURE PROFANALYZE
"""
import json
import os
import subprocess
import sys
import tempfile

# The names make_escape_capture writes, as a JSON parser must read them back.
NAMES = [
    'quote"back\\slash',
    "ctl\x01\x1f\ttab\nnl\x7f",
    "bad\ufffd\ufffd utf8 \ufffd( \ufffd\ufffd!",
    "ok \u00e9 \u2713",
]


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


def parse(what, data, lines=False):
    try:
        text = data.decode("utf-8")  # strict: invalid UTF-8 fails here
    except UnicodeDecodeError as e:
        sys.exit(f"{what}: not UTF-8: {e}")
    try:
        docs = [json.loads(line) for line in text.splitlines()] if lines else [json.loads(text)]
    except json.JSONDecodeError as e:
        sys.exit(f"{what}: not JSON: {e}")
    found = {s for doc in docs for s in strings_in(doc)}
    for name in NAMES:
        # The trace and the report may decorate a name; the name itself must be there whole.
        if not any(name in s for s in found):
            sys.exit(f"{what}: name {name!r} missing; strings: {sorted(found)!r}")
    print(f"{what}: valid JSON, all {len(NAMES)} names intact")


def main():
    maker, profanalyze = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        capture = os.path.join(tmp, "escape.pb")
        subprocess.run([maker, capture], check=True)

        def run(*args):
            r = subprocess.run([profanalyze, *args], capture_output=True, timeout=60)
            if r.returncode != 0:
                sys.exit(f"profanalyze {' '.join(args)} exited {r.returncode}: {r.stderr!r}")
            return r.stdout

        parse("dump", run("dump", capture), lines=True)
        parse("report --format json", run("report", capture, "--format", "json"))
        parse("report --view api --format json", run("report", capture, "--view", "api", "--format", "json"))
        trace = os.path.join(tmp, "trace.json")
        run("trace", capture, "-o", trace)
        with open(trace, "rb") as f:
            parse("trace", f.read())


if __name__ == "__main__":
    main()
