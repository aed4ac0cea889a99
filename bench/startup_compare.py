#!/usr/bin/env python3
"""Start-up of a process that never records, under several preloads in one run.

bench.py --only startup measures one libprof.so against no agent; this puts
any number of libraries side by side (main's and a branch's, a preload that
does nothing), in interleaved rounds, so that a loaded machine's drift falls
on all of them alike. Spawned and reaped as bench.py does (posix_spawn,
wait4); per process: CPU (user + sys) and minor page faults, medians of the
rounds' means, each over no preload in the same run.

Usage: bench/startup_compare.py LIB [LIB...]
  LIB: a library path, or PATH@NAME=VALUE to set one variable for it too.
  SPAWNS (default 300) and ROUNDS (default 9) in the environment.
"""
import os
import statistics
import sys
import tempfile


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    spawns = int(os.environ.get("SPAWNS", "300"))
    rounds = int(os.environ.get("ROUNDS", "9"))
    program = "/usr/bin/true"
    configs = [("no preload", None)] + [(spec, spec) for spec in sys.argv[1:]]
    tmp = tempfile.mkdtemp(prefix="startup_compare.")  # the run folders, were any made
    devnull = os.open(os.devnull, os.O_WRONLY)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    base = {key: value for key, value in os.environ.items()
            if not key.startswith(("PROF_", "NVTX_INJECTION", "CUDA_INJECTION")) and key != "LD_PRELOAD"}
    base["TMPDIR"] = tmp
    cpu_ms = {name: [] for name, _ in configs}
    faults = {name: [] for name, _ in configs}
    for round_index in range(rounds):
        for name, spec in (configs if round_index % 2 == 0 else configs[::-1]):
            env = dict(base)
            if spec:
                path, _, extra = spec.partition("@")
                env["LD_PRELOAD"] = path
                if extra:
                    variable, _, value = extra.partition("=")
                    env[variable] = value
            cpu = minor = 0.0
            for _ in range(spawns):
                pid = os.posix_spawn(program, [program], env, file_actions=actions)
                _, status, usage = os.wait4(pid, 0)
                if status != 0:
                    sys.exit(f"{program} under {name} exited with status {status}")
                cpu += usage.ru_utime + usage.ru_stime
                minor += usage.ru_minflt
            cpu_ms[name].append(cpu * 1000 / spawns)
            faults[name].append(minor / spawns)
    os.close(devnull)
    base_cpu = statistics.median(cpu_ms["no preload"])
    base_faults = statistics.median(faults["no preload"])
    print(f"{program}, {rounds} interleaved rounds of {spawns}, load {os.getloadavg()[0]:.1f}")
    for name, _ in configs:
        cpu = statistics.median(cpu_ms[name])
        fault = statistics.median(faults[name])
        print(f"{name:40s} CPU {cpu:.3f} ms (+{cpu - base_cpu:.3f})  page faults {fault:.0f} (+{fault - base_faults:.0f})")


if __name__ == "__main__":
    main()
