#!/usr/bin/env python3
"""Cost of Python call stacks per recorded API call (issue 12).

A Python program (Debian's python3) calls cudaMemset (1 byte, through ctypes,
on simcuda) CALLS times from a 20-deep Python stack, under the agent with
PROF_STACKS=none, native, python and mixed, and without the agent. Each
configuration runs REPEATS times, interleaved; the table has the median CPU
time of the calling thread per call (time.thread_time around the loop:
start-up, the writer thread and waits for a CPU on this shared machine are
excluded; the stack capture runs on the calling thread), and each mode's cost
over `none` in the same run. Target: python and mixed
at most 1 us per call over none.

Usage: bench/python_stacks.py BUILD_DIR [--quick] [--python PATH]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

PYTHON = "/usr/bin/python3"
DEPTH = 20
TARGET_US = 1.0

WORKLOAD = r'''
import ctypes, sys, time
rt = ctypes.CDLL("libcudart.so.13")
calls, depth = int(sys.argv[1]), int(sys.argv[2])
pointer = ctypes.c_void_p()
rt.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(64))
memset = rt.cudaMemset
one = ctypes.c_size_t(1)

def loop():
    for _ in range(calls // 10):  # warm-up: first sight of each frame
        memset(pointer, 0, one)
    start = time.thread_time()
    for _ in range(calls):
        memset(pointer, 0, one)
    return time.thread_time() - start

def nest(n):
    return loop() if n == 0 else nest(n - 1)

rt.cudaDeviceSynchronize()
print("%.9f" % (nest(depth - 3) / calls))  # module, nest chain and loop: depth frames
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--python", default=PYTHON, help="the interpreter (default: Debian's python3)")
    args = parser.parse_args()
    calls = 20_000 if args.quick else 100_000
    repeats = 3 if args.quick else 7
    build = os.path.abspath(args.build_dir)
    agent = os.path.join(build, "lib", "libprof.so")
    simcuda = os.path.join(build, "simcuda", "lib")
    modes = ["no agent", "none", "native", "python", "mixed"]
    samples = {mode: [] for mode in modes}
    with tempfile.TemporaryDirectory(prefix="prof-bench-python-") as tmp:
        script = os.path.join(tmp, "workload.py")
        with open(script, "w") as f:
            f.write(WORKLOAD)
        for repeat in range(repeats):
            for mode in modes:
                env = dict(os.environ, LD_LIBRARY_PATH=simcuda, PROF_LOG="quiet",
                           PROF_OUTPUT=os.path.join(tmp, "run.pb"))
                for name in ("LD_PRELOAD", "PROF_STACKS", "PROF_AGENT_PID"):
                    env.pop(name, None)
                if mode != "no agent":
                    env["LD_PRELOAD"] = agent
                    env["PROF_STACKS"] = mode
                out = subprocess.run([args.python, script, str(calls), str(DEPTH)], env=env,
                                     capture_output=True, text=True, check=True, timeout=600)
                samples[mode].append(float(out.stdout.strip()) * 1e6)
                print("bench: %s run %d: %.3f us/call" % (mode, repeat + 1, samples[mode][-1]),
                      file=sys.stderr, flush=True)
    median = {mode: statistics.median(samples[mode]) for mode in modes}
    print("Python stacks: cudaMemset through ctypes from a %d-deep Python stack, %s, %d calls x %d runs (median)"
          % (DEPTH, subprocess.run([args.python, "-V"], capture_output=True, text=True).stdout.strip(), calls, repeats))
    print("%-10s %12s %14s %8s" % ("PROF_STACKS", "us per call", "over none", "target"))
    failed = False
    for mode in modes:
        over = "" if mode in ("no agent", "none") else "%+.3f us" % (median[mode] - median["none"])
        target = ""
        if mode in ("python", "mixed"):
            ok = median[mode] - median["none"] <= TARGET_US
            failed |= not ok
            target = "met" if ok else "MISSED"
        print("%-10s %12.3f %14s %8s" % (mode, median[mode], over, target))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
