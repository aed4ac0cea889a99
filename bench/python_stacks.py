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

With --callgrind: instructions per call instead of CPU time (exact, on a
noisy machine), from a DEPTH_CALLGRIND-deep stack, per interpreter given
(--python, repeatable: a real binary, not pyenv's shim script), by
bench/callgrind.py's difference of two runs; `none` is the baseline, in the
same invocation. Target (issue 30): python at most 2,000 instructions per
call over none at 50 frames.

With --best-batch: the quickest batch of BATCH calls (CPU time) of all runs
rather than the median of their means: what a call costs when no other
process evicted the caches or shared the core meanwhile, resolvable on a
loaded machine where the means are not.

Usage: bench/python_stacks.py BUILD_DIR [--quick] [--depth N] [--python PATH] [--best-batch]
       bench/python_stacks.py BUILD_DIR --callgrind [--python PATH]...
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

import callgrind

PYTHON = "/usr/bin/python3"
DEPTH = 20
TARGET_US = 1.0
BATCH = 100  # calls per batch with --best-batch
DEPTH_CALLGRIND = 50
TARGET_INSTRUCTIONS = 2000  # PROF_STACKS=python over none, at DEPTH_CALLGRIND frames

WORKLOAD = r'''
import ctypes, sys, time
rt = ctypes.CDLL("libcudart.so.13")
calls, depth = int(sys.argv[1]), int(sys.argv[2])
warm_up = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "-" else calls // 10
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 0  # 0: the mean over all calls
pointer = ctypes.c_void_p()
rt.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(64))
memset = rt.cudaMemset
one = ctypes.c_size_t(1)

def loop():
    for _ in range(warm_up):  # first sight of each frame
        memset(pointer, 0, one)
    if batch == 0:
        start = time.thread_time()
        for _ in range(calls):
            memset(pointer, 0, one)
        return time.thread_time() - start
    best = None
    for _ in range(calls // batch):
        start = time.thread_time_ns()
        for _ in range(batch):
            memset(pointer, 0, one)
        elapsed = time.thread_time_ns() - start
        best = elapsed if best is None else min(best, elapsed)
    return best * 1e-9 * calls / batch

def nest(n):
    return loop() if n == 0 else nest(n - 1)

rt.cudaDeviceSynchronize()
print("%.9f" % (nest(depth - 3) / calls))  # module, nest chain and loop: depth frames
'''


def agent_env(simcuda, agent, tmp, mode):
    env = dict(os.environ, LD_LIBRARY_PATH=simcuda, PROF_LOG="quiet", PROF_OUTPUT=os.path.join(tmp, "run.pb"))
    for name in ("LD_PRELOAD", "PROF_STACKS", "PROF_AGENT_PID", "PROF_RUN", "PROF_RUN_PID"):
        env.pop(name, None)
    if mode != "no agent":
        env["LD_PRELOAD"] = agent
        env["PROF_STACKS"] = mode
    return env


def instructions(args, agent, simcuda):
    """Instructions per call, all threads (the writer's share included), by
    mode and interpreter; returns 1 when python misses its target."""
    if not callgrind.available():
        print("python stacks, instructions: skipped (no valgrind)")
        return 0
    modes = ["none", "python", "mixed"]
    failed = False
    print("Python stacks: cudaMemset through ctypes from a %d-deep Python stack, instructions per call "
          "(callgrind, all threads)" % DEPTH_CALLGRIND)
    print("%-28s %-12s %14s %12s %12s %8s" % ("interpreter", "PROF_STACKS", "instructions", "over none",
                                               "per frame", "target"))
    for python in args.python or [PYTHON]:
        version = subprocess.run([python, "-V"], capture_output=True, text=True).stdout.strip()
        with tempfile.TemporaryDirectory(prefix="prof-bench-python-") as tmp:
            script = os.path.join(tmp, "workload.py")
            with open(script, "w") as f:
                f.write(WORKLOAD)
            per_call = {}
            for mode in modes:
                print("bench: %s %s under callgrind" % (version, mode), file=sys.stderr, flush=True)
                counts = callgrind.per_launch(lambda n: [python, script, str(n), str(DEPTH_CALLGRIND), "1000"],
                                              agent_env(simcuda, agent, tmp, mode), launches=(2_000, 6_000))
                per_call[mode] = sum(counts.values())
        for mode in modes:
            over = per_call[mode] - per_call["none"]
            target = ""
            if mode == "python":
                ok = over <= TARGET_INSTRUCTIONS
                failed |= not ok
                target = "met" if ok else "MISSED"
            print("%-28s %-12s %14s %12s %12s %8s" % (
                version, mode, "{:,.0f}".format(per_call[mode]),
                "" if mode == "none" else "{:+,.0f}".format(over),
                "" if mode == "none" else "{:,.1f}".format(over / DEPTH_CALLGRIND), target))
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--callgrind", action="store_true", help="instructions per call (valgrind)")
    parser.add_argument("--depth", type=int, default=DEPTH, help="Python frames on the stack (CPU times)")
    parser.add_argument("--best-batch", action="store_true",
                        help="the quickest batch of %d calls of all runs instead of the median (CPU times)" % BATCH)
    parser.add_argument("--python", action="append",
                        help="an interpreter (default: Debian's python3); repeatable with --callgrind")
    args = parser.parse_args()
    if args.callgrind:
        build = os.path.abspath(args.build_dir)
        return instructions(args, os.path.join(build, "lib", "libprof.so"), os.path.join(build, "simcuda", "lib"))
    python = (args.python or [PYTHON])[-1]
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
                env = agent_env(simcuda, agent, tmp, mode)
                command = [python, script, str(calls), str(args.depth)]
                if args.best_batch:
                    command += ["-", str(BATCH)]
                out = subprocess.run(command, env=env,
                                     capture_output=True, text=True, check=True, timeout=600)
                samples[mode].append(float(out.stdout.strip()) * 1e6)
                print("bench: %s run %d: %.3f us/call" % (mode, repeat + 1, samples[mode][-1]),
                      file=sys.stderr, flush=True)
    pick = min if args.best_batch else statistics.median
    median = {mode: pick(samples[mode]) for mode in modes}
    print("Python stacks: cudaMemset through ctypes from a %d-deep Python stack, %s, %d calls x %d runs (%s)"
          % (args.depth, subprocess.run([python, "-V"], capture_output=True, text=True).stdout.strip(), calls, repeats,
             "quickest batch of %d calls" % BATCH if args.best_batch else "median"))
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
