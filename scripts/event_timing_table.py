#!/usr/bin/env python3
"""How far recorded kernel durations are from the kernels' own: reads the
captures scripts/gpu-check.sh made of test/gpu/event_timing.cu (one per
backend, NAME.pb beside NAME.txt, the program's own global-timer spans) and
prints, per kernel shape and length, recorded minus own duration.
usage: event_timing_table.py PROFANALYZE NAME..."""
import json
import statistics
import subprocess
import sys


def timed_kernels(analyzer, capture):
    dump = subprocess.run([analyzer, "dump", capture], capture_output=True, text=True, check=True).stdout
    kernels = [json.loads(line) for line in dump.splitlines() if line.startswith('{"type":"kernel"')]
    return sorted((k for k in kernels if "spin_for" in k["name"]), key=lambda k: k["start"])


def main():
    analyzer, names = sys.argv[1], sys.argv[2:]
    print("%-28s %-6s %6s %12s %10s %10s %8s" % ("capture", "stream", "kernel", "median diff", "min", "max", "of own"))
    for name in names:
        kernels = timed_kernels(analyzer, name + ".pb")
        own = [line.split() for line in open(name + ".txt")]
        if len(kernels) != len(own):
            sys.exit("%s: %d kernels recorded, %d run" % (name, len(kernels), len(own)))
        by_shape = {}
        for kernel, (_, shape, wanted_us, own_ns) in zip(kernels, own):
            by_shape.setdefault((shape, int(wanted_us)), []).append(kernel["end"] - kernel["start"] - int(own_ns))
        for (shape, us), diffs in sorted(by_shape.items()):
            median = statistics.median(diffs)
            print("%-28s %-6s %4d us %+10.0f ns %+10.0f %+10.0f %+7.2f%%" %
                  (name.rsplit("/", 1)[-1], shape, us, median, min(diffs), max(diffs), 100 * median / (us * 1000)))


if __name__ == "__main__":
    main()
