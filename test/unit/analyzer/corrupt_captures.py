#!/usr/bin/env python3
"""Corrupt captures never crash the analyzer.

Mutates the golden capture (seeded, so a failure reproduces) by flipping,
overwriting, truncating, duplicating and inserting bytes, and runs every
subcommand over each mutant. Each run must either succeed or fail with exit
code 1 and a one-line error that names the byte offset; a signal, another
exit code or a sanitizer report fails the test, and the mutant is kept next
to the report for reproduction.

The files in --regressions (test/unit/analyzer/corrupt/: inputs the fuzzers
of test/fuzz once crashed on, see scripts/fuzz.sh) go through the same
subcommands under the same verdict, before the mutants.

Usage: corrupt_captures.py MAKE_GOLDEN_CAPTURE PROFANALYZE [--cases N] [--seed S] [--regressions DIR]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

SANITIZER_MARKS = ("AddressSanitizer", "UndefinedBehaviorSanitizer", "runtime error:", "ThreadSanitizer",
                   "LeakSanitizer")


def mutate(data, rng):
    data = bytearray(data)
    kind = rng.randrange(7)
    at = rng.randrange(len(data))
    if kind == 0:
        data[at] ^= 1 << rng.randrange(8)
    elif kind == 1:
        data[at] = rng.choice((0x00, 0x7f, 0x80, 0xff))
    elif kind == 2:  # a varint that never ends
        data[at:at + 10] = b"\xff" * 10
    elif kind == 3:
        del data[at:]
    elif kind == 4:
        length = rng.randrange(1, 64)
        data[at:at] = data[at:at + length]
    elif kind == 5:
        data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 16)))
    else:  # several flips at once
        for _ in range(rng.randrange(2, 8)):
            data[rng.randrange(len(data))] ^= 0xff
    return bytes(data)


def commands(profanalyze, path, work):
    trace = os.path.join(work, "trace.json")
    return [
        [profanalyze, "info", path],
        [profanalyze, "report", path],
        [profanalyze, "dump", path],
        [profanalyze, "stacks", path],
        [profanalyze, "trace", "-o", trace, path],
        [profanalyze, "advise", "--step", "auto", path],
    ]


def verdict(result):
    """None when the run behaved, else what went wrong."""
    if any(mark in result.stderr for mark in SANITIZER_MARKS):
        return "sanitizer report"
    if result.returncode == 0:
        return None
    if result.returncode != 1:
        return "exit code %d" % result.returncode
    errors = [line for line in result.stderr.splitlines() if not line.startswith("profanalyze: warning:")]
    if len(errors) != 1 or not errors[0].startswith("profanalyze: ") or "byte " not in errors[0]:
        return "error is not one line naming the byte offset: %r" % result.stderr[-500:]
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("make_golden_capture")
    parser.add_argument("profanalyze")
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--regressions", default=None)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="corrupt_captures.")
    golden = os.path.join(work, "golden.pb")
    subprocess.run([args.make_golden_capture, golden], check=True)
    with open(golden, "rb") as f:
        original = f.read()

    failures, errors_seen = [], 0
    regressions = sorted(f for f in os.listdir(args.regressions) if f.endswith(".pb")) if args.regressions else []
    for name in regressions:
        path = os.path.join(args.regressions, name)
        for argv in commands(args.profanalyze, path, work):
            result = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=60)
            problem = verdict(result)
            if problem:
                failures.append("regression %s, %s: %s\n%s" % (name, " ".join(argv[1:-1]), problem,
                                                               result.stderr[-2000:]))
    if regressions:
        print("%d fuzzer regressions x %d subcommands" % (len(regressions), len(commands("", "", ""))))

    rng = random.Random(args.seed)
    for case in range(args.cases):
        mutant = os.path.join(work, "mutant.pb")
        with open(mutant, "wb") as f:
            f.write(mutate(original, rng))
        for argv in commands(args.profanalyze, mutant, work):
            result = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=60)
            errors_seen += result.returncode == 1
            problem = verdict(result)
            if problem:
                kept = os.path.join(work, "failing-%d.pb" % case)
                shutil.copy(mutant, kept)
                failures.append("case %d, %s: %s (mutant kept: %s)\n%s" %
                                (case, " ".join(argv[1:-1]), problem, kept, result.stderr[-2000:]))
    print("%d mutants x %d subcommands, %d clean errors, %d failures" %
          (args.cases, len(commands("", "", "")), errors_seen, len(failures)))
    for failure in failures[:5]:
        print(failure, file=sys.stderr)
    # Mutants that all parse would mean the mutator or the reader's checks do nothing.
    if errors_seen == 0:
        print("no mutant was rejected: the test exercises nothing", file=sys.stderr)
        return 1
    if not failures:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
