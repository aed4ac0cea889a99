#!/usr/bin/env python3
"""A CUDA process's exit and fork with CUPTI's activity on (through a tool
loaded by CUDA_INJECTION64_PATH that flushes at exit, as profilers do), on
simcuda: the program exits as it does without the tool, never by a signal,
never hanging; and under an address-space limit the tool's CUPTI still works.

usage: check_lifecycle.py LIB_DIR APPS_DIR INJECTION SCENARIO
  exit_while_launching  process_lifecycle exit_while_launching, 30 times
  fork_busy             process_lifecycle fork_busy 10, 3 times
  address_space         tiny_kernels 50 under `ulimit -v`, tool on and off
"""
import os
import resource
import subprocess
import sys


def run(command, env, timeout=60, limit=None):
    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=limited if limit else None)
    except subprocess.TimeoutExpired:
        return None


def same_as_alone(command, env, injection, runs):
    alone = run(command, env)
    if alone is None or alone.returncode != 0:
        return ["alone: %s" % (alone.stderr if alone else "hung")]
    failures = []
    for index in range(runs):
        traced = run(command, dict(env, CUDA_INJECTION64_PATH=injection))
        if traced is None:
            failures.append("run %d hung" % (index + 1))
        elif traced.returncode != 0 or traced.stdout != alone.stdout:
            failures.append("run %d: exit %d: %s" % (index + 1, traced.returncode, traced.stderr[-300:]))
    return failures


def main():
    lib_dir, apps_dir, injection, scenario = sys.argv[1:5]
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir)
    if env.get("SIMCUDA_TEST_PRELOAD"):
        env["LD_PRELOAD"] = env["SIMCUDA_TEST_PRELOAD"]
    lifecycle = os.path.join(apps_dir, "process_lifecycle")
    if scenario == "exit_while_launching":
        failures = same_as_alone([lifecycle, "exit_while_launching"], env, injection, 30)
    elif scenario == "fork_busy":
        failures = same_as_alone([lifecycle, "fork_busy", "10"], env, injection, 3)
    elif scenario == "address_space":
        # The smallest limit of 8 MiB steps under which the app runs without
        # the tool; with it (two CUPTI threads' worth more), it must run too.
        command = [os.path.join(apps_dir, "tiny_kernels"), "50"]
        limit = next((mib for mib in range(16, 1024, 8) if (r := run(command, env, limit=mib << 20)) and
                      r.returncode == 0), None)
        if limit is None:
            return print("FAIL: tiny_kernels does not run under 1 GiB") or 1
        with_tool = limit + 16
        traced = run(command, dict(env, CUDA_INJECTION64_PATH=injection), limit=with_tool << 20)
        failures = [] if traced and traced.returncode == 0 else [
            "alone under %d MiB, with CUPTI's activity on not under %d MiB: %s"
            % (limit, with_tool, traced.stderr[-300:] if traced else "hung")]
        print("tiny_kernels runs under %d MiB alone, %s under %d MiB with CUPTI on"
              % (limit, "and" if not failures else "not", with_tool))
    else:
        return print("unknown scenario " + scenario) or 2
    for failure in failures[:10]:
        print("FAIL:", failure)
    print("%s: %d failures" % (scenario, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
