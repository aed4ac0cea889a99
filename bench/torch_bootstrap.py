#!/usr/bin/env python3
"""Cost of the Python bootstrap (agent/python/, docs/pytorch.md), side by
side in one run, configurations interleaved, medians of REPEATS:

  start-up   wall time of `python3 -c pass` and `python3 -c "import torch"`:
             without the agent, under the agent with PROF_TORCH=off (the
             bootstrap not installed), and under the agent (bootstrap on);
             the bootstrap's cost is the last minus the second
  modules    CPU time per nn.Module call (torch 1.13's Identity, through
             torch's global forward hooks), PROF_TORCH=modules vs off
  memory     CPU time per allocator event sent to the agent
             (_libprof_torch.MemoryHistory over a synthetic trace of STEPS
             steps): sent once at exit (how it was sent before it
             streamed, the baseline) against sent at every step's end,
             interleaved in one process

Not measured here: operator annotation (emit_nvtx) and the allocator's own
history recording need a CUDA torch; a CPU torch refuses both.

Usage: bench/torch_bootstrap.py BUILD_DIR [--quick]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PYTHON = "/usr/bin/python3"

MODULE_CALLS = r'''
import sys, time, torch
calls = int(sys.argv[1])
module = torch.nn.Identity()
x = torch.zeros(1)
for _ in range(calls // 10):
    module(x)
start = time.thread_time()
for _ in range(calls):
    module(x)
print("%.9f" % ((time.thread_time() - start) / calls))
'''

MEMORY_EVENTS = r'''
import ctypes, importlib.util, os, sys, time
events, steps, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[4])
spec = importlib.util.spec_from_file_location("_libprof_torch", os.path.join(sys.argv[3], "_libprof_torch.py"))
side = importlib.util.module_from_spec(spec)
spec.loader.exec_module(side)
agent = side.find_agent()
now_us = time.time_ns() // 1000
trace = [{"action": "segment_alloc", "addr": 0, "size": 1 << 30, "stream": 0, "time_us": now_us}]
for i in range(events // 2):
    trace.append({"action": "alloc", "addr": 4096 * i, "size": 4096, "stream": 0, "time_us": now_us + i})
    trace.append({"action": "free_requested", "addr": 4096 * i, "size": 4096, "stream": 0, "time_us": now_us + i})


class Memory:
    """torch.cuda.memory as the history sees it: its trace so far (torch's
    snapshot copies its ring; here a list slice)."""
    recorded = len(trace)

    @classmethod
    def _snapshot(cls):
        return {"device_traces": [trace[:cls.recorded]]}


def at_exit():
    Memory.recorded = len(trace)
    side.MemoryHistory(Memory, agent).send()


def every_step():
    history = side.MemoryHistory(Memory, agent)
    for step in range(1, steps + 1):
        Memory.recorded = len(trace) * step // steps
        history.send()


samples = {"exit": [], "steps": []}
for _ in range(rounds):  # interleaved
    for name, send in (("exit", at_exit), ("steps", every_step)):
        start = time.thread_time()
        send()
        samples[name].append((time.thread_time() - start) / len(trace))
print(" ".join("%.9f" % sorted(values)[len(values) // 2] for values in samples.values()))
'''


ENABLING = r'''
import importlib.util, os, sys, time, torch
start = time.perf_counter()
spec = importlib.util.spec_from_file_location("_libprof_torch", os.path.join(sys.argv[1], "_libprof_torch.py"))
side = importlib.util.module_from_spec(spec)
spec.loader.exec_module(side)
loaded = time.perf_counter()

class NoAgent:
    def options(self): return 15 | 0x100
    def push(self, name): return 0
    def pop(self): return 0
    def start(self, name): return 1
    def end(self, id): pass
    def memory(self, *args): pass
    def say(self, line): pass

side.find_agent = NoAgent
side.start(torch)
print(loaded - start, time.perf_counter() - loaded)
'''


def median_wall(command, env, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def per_call(command, env, repeats):
    return statistics.median(float(subprocess.run(command, env=env, check=True, capture_output=True,
                                                  text=True).stdout.split()[-1]) for _ in range(repeats))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 5 if args.quick else 21
    agent = os.path.join(os.path.abspath(args.build_dir), "lib", "libprof.so")
    bootstrap = os.path.join(os.path.dirname(agent), "libprof-python")
    tmp = tempfile.mkdtemp(prefix="torch-bench-")
    base = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PYTHONPATH", "PROF_TORCH")}
    base["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    base["PROF_LOG"] = "quiet"
    configs = {
        "no agent": dict(base),
        "agent, PROF_TORCH=off": dict(base, LD_PRELOAD=agent, PROF_TORCH="off"),
        "agent, bootstrap on": dict(base, LD_PRELOAD=agent),
    }

    print("Start-up, wall time (median, configurations interleaved)")
    print("%-30s %14s %14s %14s %12s" % ("program", *configs, "bootstrap"))
    # torch's import takes seconds: fewer rounds of it.
    for label, program, rounds in (("python3 -c pass", "pass", repeats * 4),
                                   ("python3 -c 'import torch'", "import torch", max(3, repeats // 4))):
        samples = {name: [] for name in configs}
        for _ in range(rounds):  # interleaved: one of each in turn
            for name, env in configs.items():
                samples[name] += median_wall([PYTHON, "-c", program], env, 1)
        medians = {name: statistics.median(values) * 1e3 for name, values in samples.items()}
        cost = medians["agent, bootstrap on"] - medians["agent, PROF_TORCH=off"]
        print("%-30s %12.2fms %12.2fms %12.2fms %+10.2fms  (median of %d)" % (label, *medians.values(), cost, rounds))
        minima = {name: min(values) * 1e3 for name, values in samples.items()}
        cost = minima["agent, bootstrap on"] - minima["agent, PROF_TORCH=off"]
        print("%-30s %12.2fms %12.2fms %12.2fms %+10.2fms  (min)" % ("", *minima.values(), cost))

    # The torch side's own work at `import torch`, in one process: loading
    # _libprof_torch.py and turning every part on (agent calls stubbed).
    enabling = subprocess.run([PYTHON, "-c", ENABLING, bootstrap], env=configs["no agent"], check=True,
                              capture_output=True, text=True).stdout.split()
    print("\nAt `import torch`: loading the torch side %.2f ms, turning its parts on %.2f ms"
          % (float(enabling[0]) * 1e3, float(enabling[1]) * 1e3))

    calls = 20_000 if args.quick else 100_000
    off = per_call([PYTHON, "-c", MODULE_CALLS, str(calls)], configs["agent, PROF_TORCH=off"], repeats // 2 + 1)
    on = per_call([PYTHON, "-c", MODULE_CALLS, str(calls)], dict(base, LD_PRELOAD=agent, PROF_TORCH="modules"),
                  repeats // 2 + 1)
    print("\nnn.Module call (torch %s, Identity), CPU time per call" % "1.13")
    print("  PROF_TORCH=off %.2f us, modules %.2f us: %+.2f us per call (two hooks, a push and a pop)"
          % (off * 1e6, on * 1e6, (on - off) * 1e6))

    events = 20_000 if args.quick else 200_000
    steps = 100
    result = subprocess.run([PYTHON, "-c", MEMORY_EVENTS, str(events), str(steps), bootstrap, str(repeats // 2 + 1)],
                            env=configs["agent, bootstrap on"], check=True, capture_output=True, text=True)
    at_exit, every_step = (float(v) for v in result.stdout.split())
    print("\nTensor memory, CPU time per allocator event sent to the agent (%d events, median of %d rounds)"
          % (events, repeats // 2 + 1))
    print("  sent once at exit %.2f us, sent at each of %d steps' ends %.2f us: %+.2f us per event (%.2fx)"
          % (at_exit * 1e6, steps, every_step * 1e6, (every_step - at_exit) * 1e6, every_step / at_exit))
    print("\nNot measured here: emit_nvtx per operator and the allocator's history (a CUDA torch).")


if __name__ == "__main__":
    sys.exit(main())
