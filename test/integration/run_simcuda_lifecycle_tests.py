#!/usr/bin/env python3
"""A CUDA program's own lifetime under the agent, on simcuda (issue 31): it
returns from main while its threads launch, forks while they are busy, or
runs under an address-space limit. The agent turns CUPTI's activity on, so
these are where simcuda's CUPTI stand-in must hold up as the real one does:
the program's exit status and output are the same as without the agent, and
no process crashes or hangs. One scenario per invocation, with
run_cuda_tests.py's arguments (harness.py).
"""
import os
import resource
import subprocess
import sys

import simcuda_truth as cuda
from harness import Failure, check, main

HERE = os.path.dirname(os.path.abspath(__file__))


def agent_env(tmp, extra=None):
    env = cuda.preload(cuda.base_env())
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    env["PROF_LOG"] = "quiet"
    env.update(extra or {})
    return env


def run_same_as_alone(tmp, command, runs, timeout=60, extra_env=None):
    """`command` alone once, then `runs` times under the agent: every run exits
    as the one alone did, with the same output (a crash is a signal, a hang a
    timeout)."""
    alone = cuda.run(command, env=cuda.base_env(), cwd=tmp, timeout=timeout)
    check(alone.returncode == 0, "alone: exit %d: %s" % (alone.returncode, alone.stderr))
    for index in range(runs):
        try:
            traced = cuda.run(command, env=agent_env(tmp, extra_env), cwd=tmp, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure("run %d of %d under the agent hung (over %d s)" % (index + 1, runs, timeout))
        check(traced.returncode == alone.returncode,
              "run %d of %d under the agent: exit %d (alone %d): %s"
              % (index + 1, runs, traced.returncode, alone.returncode, traced.stderr[-2000:]))
        check(traced.stdout == alone.stdout, "run %d: output changed: %r, alone %r" % (index + 1, traced.stdout, alone.stdout))


def exit_while_launching(tmp, runs="30"):
    """main returns while four threads launch: CUPTI's records of their calls
    keep coming while the program's static objects are destroyed."""
    run_same_as_alone(tmp, [cuda.app_path("process_lifecycle"), "exit_while_launching"], int(runs))


def fork_busy(tmp, runs="3"):
    """fork while four threads launch and copy; each child exits at once (its
    exit handlers run with the parent's locks as they were at the fork)."""
    run_same_as_alone(tmp, [cuda.app_path("process_lifecycle"), "fork_busy", "10"], int(runs))


def python_fork_busy(tmp, runs="3"):
    """The same from Python: os.fork while threads are inside ctypes CUDA
    calls, then sys.exit in the child."""
    run_same_as_alone(tmp, [sys.executable, os.path.join(HERE, "python", "fork_busy_threads.py"), "4"], int(runs),
                      timeout=30)


def address_space_limit(tmp, margin_mib="10"):
    """Under `ulimit -v`: the smallest limit (in MiB) under which tiny_kernels
    runs under the agent with CUPTI refused and its capture holds its 50
    kernels; with CUPTI on, the same must hold under that plus `margin_mib`.
    CUPTI's own threads must not need the default 8 MiB stack or a malloc
    arena of their own. Measured on simcuda: 18 MiB with CUPTI refused, 25
    with it on (the rest is the agent's CUPTI buffers); before the fix, 31
    (std::thread aborted below 24)."""
    command = [cuda.app_path("tiny_kernels"), "50"]

    def complete_under(limit_mib, cupti):
        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (limit_mib << 20, limit_mib << 20))
        output = os.path.join(tmp, "%s-%d.pb" % (cupti, limit_mib))
        env = agent_env(tmp, {"SIMCUDA_CUPTI": cupti, "PROF_OUTPUT": output})
        result = subprocess.run(command, env=env, cwd=tmp, timeout=60, capture_output=True, text=True,
                                     preexec_fn=limited)
        if result.returncode != 0 or not os.path.exists(output):
            return False
        return sum(1 for r in cuda.dump(output, tmp) if r["type"] == "kernel") == 50

    alone = next((mib for mib in range(8, 257) if complete_under(mib, "off")), None)
    check(alone is not None, "tiny_kernels is not captured under the agent within 256 MiB")
    limit = alone + int(margin_mib)
    check(complete_under(limit, "on"),
          "captured under %d MiB with CUPTI refused, not under %d MiB with CUPTI on" % (alone, limit))
    print("under the agent: captured under %d MiB with CUPTI refused, and under %d MiB with it on" % (alone, limit))


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-lifecycle-"))
