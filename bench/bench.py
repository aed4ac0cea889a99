#!/usr/bin/env python3
"""Benchmarks of issue #7: agent overhead, recording throughput, file size,
analyzer speed. Prints one table to stdout; progress goes to stderr.

Every figure is set against a baseline measured in the same invocation:
  overhead    the uninstrumented app (and uftrace, the peer to beat)
  throughput  the same synthetic app without the agent
  file size   uftrace's bytes per traced call, from the overhead runs
  analyzer    a parse-only pass over the same file (bench_record_sizes)

Run through scripts/bench.sh, which installs and builds what this needs.
Usage: bench.py BUILD_DIR [--quick]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import callgrind

LAUNCHES = 1_000_000          # tiny launches per overhead run
THREADS_MT = 8                # multithread_launch's fixed thread count
REPEATS = 5                   # runs per overhead configuration (median)
RATE_SECONDS = 1.5            # length of one throughput run
ANALYZER_EVENTS = 10_000_000  # events in the generated capture
ANALYZER_ROUNDS = 3           # runs per analyzer command (median wall, highest RSS)

# Targets of issue #7 on the 2-core reference machine.
TARGET_NS_NO_STACKS = 150
TARGET_NS_STACKS = 1500
TARGET_RATE = 2_000_000
TARGET_BYTES = 32
# Issue 30, at 10M events: report at parse speed in 400 MB; trace, advise
# and html within twice the parse in 600 MB.
TARGET_REPORT_RATIO = 1.0
TARGET_REPORT_RSS_MB = 400
TARGET_EXPORT_RATIO = 2.0
TARGET_EXPORT_RSS_MB = 600
RANK_FILES = 64               # several files: one per rank
RANK_EVENTS = 1_000_000       # events per rank's file
TARGET_HTML_LOAD_S = 2.0  # issue 19: a 10M-event capture's page opens in under 2 s
TARGET_STARTUP_MS = 0.2   # issue 30: a process that never records pays a few syscalls
TARGET_CLOCK_NS_NO_STACKS = 100  # issue 30: the agent's own CPU per call, app thread and writer
TARGET_CLOCK_NS_STACKS = 150
STARTUP_SPAWNS = 300      # /bin/true runs per start-up round
STARTUP_ROUNDS = 7        # rounds per configuration, interleaved
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def progress(message):
    print(f"bench: {message}", file=sys.stderr, flush=True)


class Result:
    def __init__(self, wall, cpu, rss_kb, rc, stdout, stderr):
        self.wall, self.cpu, self.rss_kb, self.rc = wall, cpu, rss_kb, rc
        self.stdout, self.stderr = stdout, stderr


def run_reaped(argv, env=None, stdout_path=None, check=True):
    """Runs argv: wall time, CPU time (user + sys of the process and of
    every child it waited for: wait4 reports RUSAGE_BOTH) and peak RSS.
    Popen.communicate() would reap the child and lose its rusage, so its
    output goes through temporary files and we reap it ourselves."""
    out = open(stdout_path, "wb") if stdout_path else tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    start = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=out, stderr=err)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout = ""
    if not stdout_path:
        out.seek(0)
        stdout = out.read().decode(errors="replace")
    out.close()
    err.seek(0)
    stderr = err.read().decode(errors="replace")
    err.close()
    result = Result(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode, stdout, stderr)
    if check and result.rc != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {result.rc}:\n{stderr[-2000:]}")
    return result


def median_run(argv, rounds, stdout_path=None):
    """run_reaped `rounds` times: the median wall and CPU time, the highest
    peak RSS (a single run of a multi-second command on a shared VM moves
    by 10% and more)."""
    runs = [run_reaped(argv, stdout_path=stdout_path) for _ in range(rounds)]
    middle = sorted(runs, key=lambda r: r.wall)[len(runs) // 2]
    return Result(middle.wall, statistics.median(r.cpu for r in runs), max(r.rss_kb for r in runs), middle.rc,
                  middle.stdout, middle.stderr)


def info_counts(profanalyze, path):
    """Record and drop counts from `profanalyze info`."""
    text = run_reaped([profanalyze, "info", path]).stdout
    counts = {}
    for line in text.splitlines():
        m = re.match(r"\s+([A-Za-z_ ]+?)\s{2,}(\d+)$", line)
        if m:
            counts[m.group(1).strip()] = int(m.group(2))
    return counts


def fmt_ns(value):
    return f"{value:,.0f}"


def median(values):
    return statistics.median(values)


class Bench:
    def __init__(self, build, quick, agent=None):
        self.build = os.path.abspath(build)
        self.quick = quick
        self.lib = os.path.abspath(agent) if agent else os.path.join(self.build, "lib", "libprof.so")
        self.analyzer = os.path.join(self.build, "analyzer", "profanalyze")
        self.apps = os.path.join(self.build, "simcuda", "apps")
        self.simlib = os.path.join(self.build, "simcuda", "lib")
        self.tools = os.path.join(self.build, "bench")
        self.tmp = tempfile.mkdtemp(prefix="prof-bench-")
        self.rows = []    # (section, what, measured, baseline, ratio, target, verdict)
        self.notes = []
        self.uftrace = shutil.which("uftrace")
        self.uftrace_bytes_per_call = None
        self.captures = []  # files for the size section
        for path in (self.lib, self.analyzer, self.apps, self.simlib):
            if not os.path.exists(path):
                sys.exit(f"bench: {path} is missing; build first (scripts/bench.sh does)")

    def env(self, agent=None, **extra):
        env = dict(os.environ)
        for key in list(env):
            if key.startswith(("PROF_", "SIMCUDA_", "NVTX_INJECTION", "CUDA_INJECTION")):
                del env[key]
        env["LD_LIBRARY_PATH"] = self.simlib + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
        # Tiny kernels: 100 ns of simulated GPU time, shorter than a launch,
        # so the app stays launch-bound and the final sync waits ~nothing.
        env["SIMCUDA_DEFAULT_KERNEL_NS"] = "100"
        if agent is not None:
            env["LD_PRELOAD"] = self.lib
            env["PROF_LOG"] = "quiet"
            env["PROF_STACKS"] = agent
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def add(self, section, what, measured, baseline, ratio, target, ok):
        verdict = "" if ok is None else ("ok" if ok else "MISSED")
        self.rows.append((section, what, measured, baseline, ratio, target, verdict))

    # ------------------------------------------------------------ overhead --
    def overhead(self):
        launches = 100_000 if self.quick else LAUNCHES
        repeats = 3 if self.quick else REPEATS
        per_thread = launches // THREADS_MT
        workloads = [
            ("1 thread", [os.path.join(self.apps, "tiny_kernels"), str(launches)], launches),
            # Each thread also makes one launch on cudaStreamPerThread.
            (f"{THREADS_MT} threads", [os.path.join(self.apps, "multithread_launch"), str(per_thread)],
             THREADS_MT * (per_thread + 1)),
        ]
        configs = [("uninstrumented", None), ("null CUPTI tool", "cupti"),
                   ("libprof, PROF_STACKS=none", "none"), ("libprof, PROF_STACKS=native", "native")]
        if self.uftrace:
            configs.append(("uftrace record --force", "uftrace"))
        else:
            self.notes.append("uftrace is not installed (scripts/bench.sh installs it with apt-get "
                              "when it can): its rows are missing.")
        for label, argv, n in workloads:
            samples = {name: [] for name, _ in configs}
            cpu = {name: [] for name, _ in configs}
            drops = {}
            recorded = {}
            for rep in range(repeats):
                # Round robin, so that load drifting on the machine hits every
                # configuration alike.
                for name, mode in configs:
                    progress(f"overhead {label}: {name}, run {rep + 1}/{repeats}")
                    out = os.path.join(self.tmp, f"ovh-{mode}.pb")
                    if mode is None:
                        r = run_reaped(argv, env=self.env())
                    elif mode == "cupti":
                        r = run_reaped(argv, env=self.env(CUDA_INJECTION64_PATH=os.path.join(
                            self.tools, "libbench_null_cupti_tool.so")))
                    elif mode == "uftrace":
                        data = os.path.join(self.tmp, "uftrace.data")
                        shutil.rmtree(data, ignore_errors=True)
                        r = run_reaped([self.uftrace, "record", "--force", "-d", data] + argv, env=self.env())
                        if rep == repeats - 1 and label == "1 thread":
                            size = sum(os.path.getsize(os.path.join(root, f))
                                       for root, _, files in os.walk(data) for f in files)
                            self.uftrace_bytes_per_call = size / (3 * n)
                        shutil.rmtree(data, ignore_errors=True)
                    else:
                        r = run_reaped(argv, env=self.env(mode, PROF_OUTPUT=out))
                        if rep == repeats - 1:
                            counts = info_counts(self.analyzer, out)
                            drops[name] = counts.get("ring_full", 0) + counts.get("cupti_records", 0)
                            recorded[name] = counts.get("API calls", 0)
                            keep = os.path.join(self.tmp, f"size-{label[0]}-{mode}.pb")
                            os.replace(out, keep)
                            if label == "1 thread":
                                self.captures.append(keep)
                    samples[name].append(r.wall)
                    cpu[name].append(r.cpu)
            base_wall = median(samples["uninstrumented"])
            base_cpu = median(cpu["uninstrumented"])
            cupti_wall = median(samples["null CUPTI tool"])
            cupti_cpu = median(cpu["null CUPTI tool"])
            self.add("overhead", f"{label}: uninstrumented, {n:,} launches",
                     f"{base_wall * 1e9 / n:,.0f} ns/launch (CPU {base_cpu * 1e9 / n:,.0f})", "", "1.00x", "",
                     None)
            for name, mode in configs[1:]:
                wall = median(samples[name])
                calls = 3 if mode == "uftrace" else 2
                added = (wall - base_wall) * 1e9 / (n * calls)
                added_cpu = (median(cpu[name]) - base_cpu) * 1e9 / (n * calls)
                measured = f"+{fmt_ns(added)} ns/call (CPU +{fmt_ns(added_cpu)})"
                target, ok = "", None
                if mode in ("none", "native"):
                    # The agent's own cost: on top of the null CUPTI tool.
                    own = (wall - cupti_wall) * 1e9 / (n * calls)
                    own_cpu = (median(cpu[name]) - cupti_cpu) * 1e9 / (n * calls)
                    limit = TARGET_NS_NO_STACKS if mode == "none" else TARGET_NS_STACKS
                    measured += (f"; own +{fmt_ns(own)} (CPU +{fmt_ns(own_cpu)}) over CUPTI; "
                                 f"{recorded[name]:,} calls kept, {drops[name]:,} dropped")
                    target, ok = f"own <= {limit} ns/call", own <= limit
                elif mode == "uftrace":
                    target = "peer"
                else:
                    target = "CUPTI floor"
                self.add("overhead", f"{label}: {name}", measured,
                         f"{base_wall * 1e9 / n:,.0f} ns/launch", f"{wall / base_wall:.2f}x", target, ok)
        self.notes.append(
            "overhead: 'a call' is one intercepted CUDA API call. Each <<<>>> launch is one runtime call "
            "(__cudaLaunchKernel) nesting one driver call (cuLaunchKernel): 2 calls per launch reach libprof "
            "(2 CUPTI callback pairs, enter and exit; __cudaPush/PopCallConfiguration make no callback), and it "
            "records the runtime call (the nested driver call only under PROF_API=all: 'calls kept' counts "
            "records). "
            "uftrace record --force (no -pg in the app) traces the app's PLT calls into shared libraries: "
            "__cudaPushCallConfiguration, __cudaPopCallConfiguration, __cudaLaunchKernel, 3 calls per launch "
            "(not the nested driver call; --nest-libcall would trace simcuda's internals too). "
            "ns/call = (median wall - uninstrumented median wall) / calls; CPU = same with user+sys time of "
            f"all threads (the writer thread's too). Median of {repeats} runs, configurations interleaved. "
            "'null CUPTI tool' (bench/null_cupti_tool.cpp, loaded through CUDA_INJECTION64_PATH) subscribes to "
            "the same callbacks and activity kinds as libprof and records nothing: what CUPTI itself costs. "
            "'own' = libprof minus that tool, the agent's own work, which the targets apply to. On simcuda "
            "the CUPTI cost is its emulation's (a mutex, a malloc and a worker-thread wakeup per activity "
            "record), not real CUPTI's. "
            "Simulated kernels take 100 ns (SIMCUDA_DEFAULT_KERNEL_NS), so the apps stay launch-bound.")

    # --------------------------------------------------------------- clock --
    def clock(self):
        """The app threads' timestamps from the TSC (PROF_CLOCK=auto, where it
        is invariant) against clock_gettime (PROF_CLOCK=monotonic, the
        fallback), same run: the agent's own cost per API call over the null
        CUPTI tool, in wall and CPU time and in callgrind's instructions."""
        launches = 100_000 if self.quick else LAUNCHES
        repeats = 3 if self.quick else REPEATS
        app = os.path.join(self.apps, "tiny_kernels")
        null_tool = {"CUDA_INJECTION64_PATH": os.path.join(self.tools, "libbench_null_cupti_tool.so")}
        configs = [("null CUPTI tool", None, None)]
        for stacks in ("none", "native"):
            for clock in ("auto", "monotonic"):
                configs.append((f"PROF_STACKS={stacks}, PROF_CLOCK={clock}", stacks, clock))
        wall = {name: [] for name, _, _ in configs}
        cpu = {name: [] for name, _, _ in configs}
        for rep in range(repeats):
            for name, stacks, clock in configs:
                progress(f"clock: {name}, run {rep + 1}/{repeats}")
                if stacks is None:
                    env = self.env(**null_tool)
                else:
                    env = self.env(stacks, PROF_OUTPUT=os.path.join(self.tmp, "clock.pb"), PROF_CLOCK=clock)
                r = run_reaped([app, str(launches)], env=env)
                wall[name].append(r.wall)
                cpu[name].append(r.cpu)
        calls = 2 * launches
        base_wall, base_cpu = median(wall["null CUPTI tool"]), median(cpu["null CUPTI tool"])
        instructions = {}
        if callgrind.available():
            for name, stacks, clock in configs:
                progress(f"clock: instructions per launch (callgrind), {name}")
                env = (self.env(**null_tool) if stacks is None else
                       self.env(stacks, PROF_OUTPUT=os.path.join(self.tmp, "clock-cg.pb"), PROF_CLOCK=clock))
                instructions[name] = sum(callgrind.per_launch(lambda n: [app, str(n)], env).values())
        for name, stacks, clock in configs[1:]:
            own = (median(wall[name]) - base_wall) * 1e9 / calls
            own_cpu = (median(cpu[name]) - base_cpu) * 1e9 / calls
            measured = f"own +{fmt_ns(own)} ns/call (CPU +{fmt_ns(own_cpu)})"
            if instructions:
                measured += f", +{(instructions[name] - instructions['null CUPTI tool']) / 2:,.0f} instructions/call"
            limit = TARGET_CLOCK_NS_NO_STACKS if stacks == "none" else TARGET_CLOCK_NS_STACKS
            ok = own_cpu <= limit if clock == "auto" else None
            self.add("clock", f"tiny_kernels {launches:,}: {name}", measured, "null CUPTI tool", "",
                     f"CPU <= {limit} ns/call" if clock == "auto" else "", ok)
        self.notes.append(
            "clock: the agent's own cost per API call (2 per launch) over the null CUPTI tool, with the app "
            "threads' timestamps from the invariant TSC (PROF_CLOCK=auto; where the CPU has none, auto is "
            "the fallback too) and from clock_gettime (PROF_CLOCK=monotonic); CPU is the app thread's and the "
            f"writer's together. Median of {repeats} runs, configurations interleaved; instructions: callgrind, "
            "20,000 and 40,000 launches, the difference per call, over the null tool's.")

    # ------------------------------------------------------------ backends --
    def backends(self):
        """The agent's cost per API call through CUPTI's callbacks and through
        its own hooks (capture/hooks/), each against the uninstrumented run."""
        launches = 100_000 if self.quick else LAUNCHES // 2
        repeats = 3 if self.quick else REPEATS
        argv = [os.path.join(self.apps, "tiny_kernels"), str(launches)]
        configs = [
            ("uninstrumented", None),
            ("PROF_BACKEND=cupti", {"PROF_BACKEND": "cupti"}),
            ("PROF_BACKEND=hooks, PROF_GPU_TIMING=none", {"PROF_BACKEND": "hooks", "PROF_GPU_TIMING": "none"}),
            ("PROF_BACKEND=hooks, PROF_GPU_TIMING=events", {"PROF_BACKEND": "hooks", "PROF_GPU_TIMING": "events"}),
        ]
        wall = {name: [] for name, _ in configs}
        cpu = {name: [] for name, _ in configs}
        recorded = {}
        for rep in range(repeats):
            for name, extra in configs:
                progress(f"backends: {name}, run {rep + 1}/{repeats}")
                out = os.path.join(self.tmp, "backend.pb")
                env = self.env() if extra is None else self.env("none", PROF_OUTPUT=out, **extra)
                r = run_reaped(argv, env=env)
                wall[name].append(r.wall)
                cpu[name].append(r.cpu)
                if extra is not None and rep == repeats - 1:
                    counts = info_counts(self.analyzer, out)
                    recorded[name] = (counts.get("API calls", 0), counts.get("ring_full", 0))
        base_wall, base_cpu = median(wall["uninstrumented"]), median(cpu["uninstrumented"])
        self.add("backends", f"tiny_kernels {launches:,}: uninstrumented",
                 f"{base_wall * 1e9 / launches:,.0f} ns/launch (CPU {base_cpu * 1e9 / launches:,.0f})", "",
                 "1.00x", "", None)
        for name, _ in configs[1:]:
            calls = 2 * launches  # __cudaLaunchKernel and its cuLaunchKernel
            added = (median(wall[name]) - base_wall) * 1e9 / calls
            added_cpu = (median(cpu[name]) - base_cpu) * 1e9 / calls
            kept, dropped = recorded[name]
            self.add("backends", f"tiny_kernels: {name}",
                     f"+{fmt_ns(added)} ns/call (CPU +{fmt_ns(added_cpu)}); {kept:,} calls kept, {dropped:,} dropped",
                     f"{base_wall * 1e9 / launches:,.0f} ns/launch", f"{median(wall[name]) / base_wall:.2f}x", "",
                     None)
        self.notes.append(
            "backends: PROF_STACKS=none everywhere; ns/call over the uninstrumented run, 2 calls per launch. "
            "PROF_BACKEND=cupti includes CUPTI's own cost (on simcuda, its emulation's: a mutex, a malloc and "
            "a worker wakeup per activity record) and the hooks' pass-through; PROF_BACKEND=hooks never loads "
            "CUPTI, so with PROF_GPU_TIMING=none it has no GPU records, and with events it adds two "
            "cuEventRecord per launch and the writer's reading of them.")

    # ------------------------------------------------------------- windows --
    def windows(self):
        """Cost per launch outside capture windows, beside the uninstrumented
        run and full recording, on the launch-bound tiny_kernels."""
        launches = 100_000 if self.quick else LAUNCHES
        repeats = 3 if self.quick else REPEATS
        argv = [os.path.join(self.apps, "tiny_kernels"), str(launches)]
        # PROF_START=off: no window ever opens, so every launch is outside one;
        # the step rules are those of a training loop the app does not match.
        outside = {"PROF_START": "off"}
        configs = [
            ("uninstrumented", None, {}),
            ("full recording, PROF_STACKS=native", "native", {}),
            ("outside windows, PROF_STEP=nvtx:^ProfilerStep#\\d+$", "native",
             dict(outside, PROF_STEP=r"nvtx:^ProfilerStep#\d+$")),
            ("outside windows, PROF_STEP=nvtx:^ProfilerStep#\\d+$, PROF_CUPTI_DETACH=1", "native",
             dict(outside, PROF_STEP=r"nvtx:^ProfilerStep#\d+$", PROF_CUPTI_DETACH="1")),
            ("outside windows, PROF_STEP=kernel:^optimizer_kernel$", "native",
             dict(outside, PROF_STEP="kernel:^optimizer_kernel$")),
            ("outside windows, PROF_STEP=api:cudaGraphLaunch", "native",
             dict(outside, PROF_STEP="api:cudaGraphLaunch")),
            ("outside windows, PROF_STEP=nvtx:^ProfilerStep#\\d+$, PROF_BACKEND=hooks", "native",
             dict(outside, PROF_STEP=r"nvtx:^ProfilerStep#\d+$", PROF_BACKEND="hooks")),
        ]
        samples = {name: [] for name, _, _ in configs}
        cpu = {name: [] for name, _, _ in configs}
        for rep in range(repeats):
            for name, mode, extra in configs:
                progress(f"windows: {name}, run {rep + 1}/{repeats}")
                out = os.path.join(self.tmp, "win.pb")
                if os.path.exists(out):
                    os.unlink(out)
                env = self.env() if mode is None else self.env(mode, PROF_OUTPUT=out, **extra)
                r = run_reaped(argv, env=env)
                samples[name].append(r.wall)
                cpu[name].append(r.cpu)
                if extra and os.path.exists(out):
                    sys.exit("bench: a run outside windows wrote a file")
        base = median(samples["uninstrumented"])
        base_cpu = median(cpu["uninstrumented"])
        self.add("windows", f"tiny_kernels: uninstrumented, {launches:,} launches",
                 f"{base * 1e9 / launches:,.0f} ns/launch (CPU {base_cpu * 1e9 / launches:,.0f})", "", "1.00x", "", None)
        for name, mode, extra in configs[1:]:
            wall = median(samples[name])
            added = (wall - base) * 1e9 / launches
            added_cpu = (median(cpu[name]) - base_cpu) * 1e9 / launches
            # No verdict on times: this machine's noise is larger than 5%.
            self.add("windows", name, f"+{fmt_ns(added)} ns/launch (CPU +{fmt_ns(added_cpu)})",
                     f"{base * 1e9 / launches:,.0f} ns/launch", f"{wall / base:.2f}x", "", None)
        self.window_instructions(configs)
        # NVTX outside windows: bench_record_rate pushes and pops flat out, its
        # names (layer0, forward, ...) never a step, so every push asks the rule.
        tool = os.path.join(self.tools, "bench_record_rate")
        seconds = 0.5 if self.quick else 1.0
        nvtx = {"uninstrumented": [], "outside": []}
        for rep in range(repeats):
            progress(f"windows: NVTX push/pop outside windows, run {rep + 1}/{repeats}")
            nvtx["uninstrumented"].append(float(run_reaped([tool, "1", "1e12", str(seconds)], env=self.env()).stdout.split()[1]))
            out = os.path.join(self.tmp, "win.pb")
            env = self.env("native", PROF_OUTPUT=out, PROF_START="off", PROF_STEP=r"nvtx:^ProfilerStep#\d+$")
            nvtx["outside"].append(float(run_reaped([tool, "1", "1e12", str(seconds)], env=env).stdout.split()[1]))
        base_event = 1e9 / median(nvtx["uninstrumented"])
        event = 1e9 / median(nvtx["outside"])
        self.add("windows", "NVTX push or pop outside windows, PROF_STEP=nvtx:^ProfilerStep#\\d+$ (flat out, 1 thread)",
                 f"+{fmt_ns(event - base_event)} ns/event", f"{base_event:,.1f} ns/event uninstrumented",
                 f"{event / base_event:.0f}x", "", None)
        self.notes.append(
            "windows: tiny_kernels under the agent with no capture window open (PROF_START=off), per step "
            "rule: nvtx (CUPTI callbacks and activity kinds off: a launch reaches only the agent's "
            "pass-through hooks, and CUPTI, still subscribed, delivers nothing), "
            "kernel (the launches' CUPTI callbacks stay on: the agent checks the kernel's name, cached per "
            "kernel, reads no clock and records nothing), api (only cudaGraphLaunch's callbacks are on; "
            "tiny_kernels never calls it). NVTX: a push asks the rule once per distinct name (cached), a pop "
            "only whether it closes the step's range. "
            f"Median of {repeats} runs, configurations interleaved; wall times on a loaded machine are "
            "loose, CPU times and callgrind's instructions per launch (README) the figures to read.")

    def window_instructions(self, configs):
        """The same configurations in instructions per launch (callgrind):
        exact, and split between the agent and CUPTI."""
        if not callgrind.available():
            self.notes.append("windows: valgrind not installed (scripts/bootstrap.sh installs it): "
                              "no instructions per launch")
            return
        app = os.path.join(self.apps, "tiny_kernels")
        per_launch = {}
        for name, mode, extra in configs:
            progress(f"windows: instructions per launch (callgrind), {name}")
            env = self.env() if mode is None else self.env(mode, PROF_OUTPUT=os.path.join(self.tmp, "cg.pb"), **extra)
            per_launch[name] = callgrind.per_launch(lambda n: [app, str(n)], env)
        base = per_launch["uninstrumented"]
        base_total = sum(base.values())
        self.add("windows", "tiny_kernels: uninstrumented, instructions per launch (callgrind)",
                 f"{base_total:,.0f} instructions", "", "1.00x", "", None)
        for name, _, _ in configs[1:]:
            added = {obj: per_launch[name].get(obj, 0.0) - base.get(obj, 0.0) for obj in set(per_launch[name]) | set(base)}
            total = sum(added.values())
            # CUPTI's share: its library and the driver's calls into it (simcuda's
            # stand-in models a driver with CUPTI attached); the rest is the
            # agent's: its own code, and glibc's locks taking their multi-threaded
            # path once the agent's writer thread exists.
            cupti = sum(v for obj, v in added.items() if obj.startswith(("libcupti", "libcuda")))
            agent = total - cupti
            target, ok = "", None
            if "nvtx:" in name and "PROF_BACKEND" not in name:  # issue 14's target: within 5% of uninstrumented
                target, ok = "agent <= 5%", agent <= 0.05 * base_total
            self.add("windows", f"{name}, instructions",
                     f"{round(total):+,} (agent {round(agent):+,} = {100 * agent / base_total:.1f}%, CUPTI {round(cupti):+,})",
                     f"{base_total:,.0f} instructions", f"{(base_total + total) / base_total:.2f}x", target, ok)
        self.notes.append(
            "windows, instructions: callgrind over 20,000 and 40,000 launches, the difference per launch "
            "(start-up cancels out); by shared object: CUPTI = simcuda's libcupti and libcuda's calls into "
            "it (a model of a driver with CUPTI attached, not a measurement of one), agent = the rest.")

    # ---------------------------------------------------------- throughput --
    def throughput(self):
        tool = os.path.join(self.tools, "bench_record_rate")
        seconds = 0.5 if self.quick else RATE_SECONDS
        for threads in (1, 2):
            progress(f"throughput, {threads} thread(s): flat out, no agent")
            base = run_reaped([tool, str(threads), "1e12", str(seconds)], env=self.env())
            base_rate = float(base.stdout.split()[1])
            best_clean = 0.0
            first_drop = None
            flat = None
            app_saturated = False
            for rate in (500_000, 1_000_000, 2_000_000, 3_000_000, 4_000_000, 6_000_000, 8_000_000, 1e12):
                if app_saturated and rate != 1e12:
                    continue
                out = os.path.join(self.tmp, "rate.pb")
                progress(f"throughput, {threads} thread(s): {rate:,.0f} events/s under the agent")
                # PROF_RING_WAIT_MS=0: what the writer takes without holding
                # the app back (the rows below measure the waits).
                r = run_reaped([tool, str(threads), str(rate), str(seconds)],
                               env=self.env("none", PROF_OUTPUT=out, PROF_RING_WAIT_MS=0))
                _, achieved, emitted = r.stdout.split()
                achieved = float(achieved)
                counts = info_counts(self.analyzer, out)
                dropped = counts.get("ring_full", 0)
                if rate == 1e12:
                    flat = (achieved, dropped, int(emitted))
                    if threads == 1:
                        keep = os.path.join(self.tmp, "size-nvtx.pb")
                        os.replace(out, keep)
                        self.captures.append(keep)
                elif dropped == 0 and achieved >= 0.95 * rate:
                    best_clean = max(best_clean, achieved)
                elif dropped and first_drop is None:
                    first_drop = (rate, dropped, int(emitted))
                if dropped == 0 and rate == 1e12:
                    best_clean = max(best_clean, achieved)
                if achieved < 0.95 * rate and rate != 1e12:
                    app_saturated = True  # the app cannot go faster: only flat out is left
            drop_text = (f"; first drops at {first_drop[0]:,.0f}/s ({first_drop[1]:,} of {first_drop[2]:,})"
                         if first_drop else "")
            flat_text = f"; flat out {flat[0]:,.0f}/s, {flat[1]:,} dropped" if flat else ""
            self.add("throughput", f"{threads} thread(s): most events/s with no drop",
                     f"{best_clean:,.0f}/s{drop_text}{flat_text}",
                     f"{base_rate:,.0f}/s no agent", f"{best_clean / base_rate:.2f}x",
                     f">= {TARGET_RATE:,}/s", best_clean >= TARGET_RATE)
            # Flat out with the default back-pressure: the app is held at its
            # outermost pushes while its ring is over half full.
            out = os.path.join(self.tmp, "rate.pb")
            progress(f"throughput, {threads} thread(s): flat out, waits on (PROF_RING_WAIT_MS default)")
            r = run_reaped([tool, str(threads), "1e12", str(seconds)], env=self.env("none", PROF_OUTPUT=out))
            achieved = float(r.stdout.split()[1])
            counts = info_counts(self.analyzer, out)
            self.add("throughput", f"{threads} thread(s): flat out, waits for the writer on (default)",
                     f"{achieved:,.0f}/s, {counts.get('ring_full', 0):,} dropped, "
                     f"{counts.get('overheads', 0):,} waits",
                     f"{base_rate:,.0f}/s no agent", f"{achieved / base_rate:.2f}x", "no drop",
                     counts.get("ring_full", 0) == 0)
        self.notes.append(
            "throughput: bench_record_rate emits NVTX push/pop events (each one record in the agent's "
            f"per-thread ring, PROF_BUFFER_KB default) at a paced rate for {seconds} s per rate, "
            "rates 0.5M..8M/s then flat out, with PROF_RING_WAIT_MS=0 (the writer's own capacity; the "
            "'waits ... on' rows run flat out with the default, where a thread whose ring is over half full "
            "waits for the writer before its next outermost push); drops from `profanalyze info` "
            "(ring_full), waits are its Overhead records. A push/pop pair is "
            "one NVTX range in the file. The baseline is the same app flat out without the agent "
            "(NVTX calls with no tool attached are near no-ops).")

    # ---------------------------------------------------------------- names --
    def names(self):
        """Distinct NVTX names: what the writer sustains (bench_writer_names,
        CPU time of its translation alone) against what an app makes
        (`reliability nvtx_strings`, a million names in a tight loop)."""
        count = 1_000_000  # a second or so per run: --quick only repeats less
        repeats = 3 if self.quick else REPEATS
        tool = os.path.join(self.tools, "bench_writer_names")
        app = [os.path.join(self.apps, "reliability"), "nvtx_strings", str(count)]
        writer, longest = [], []
        app_runs = {"waits off": [], "default": []}
        for rep in range(repeats):
            progress(f"names: writer and app, run {rep + 1}/{repeats}")
            fields = run_reaped([tool, str(count), os.path.join(self.tmp, "names-writer.pb")]).stdout.split()
            writer.append(float(fields[1]))
            longest.append(float(fields[3]))
            for name, extra in (("waits off", {"PROF_RING_WAIT_MS": 0}), ("default", {})):
                out = os.path.join(self.tmp, "names.pb")
                r = run_reaped(app, env=self.env("none", PROF_OUTPUT=out, **extra))
                counts = info_counts(self.analyzer, out)
                app_runs[name].append((r.wall, counts.get("ring_full", 0), counts.get("overheads", 0)))
        made = count + (count + 1) // 2  # ranges: every other name has one inside
        off_wall = median([w for w, _, _ in app_runs["waits off"]])
        app_rate = count / off_wall
        rate = median(writer)
        self.add("names", f"writer: distinct NVTX names/s (bench_writer_names {count:,}, CPU)",
                 f"{rate:,.0f}/s ({1e9 / rate:,.0f} ns/name), longest 1 MiB slice {max(longest) / 1e3:,.1f} ms",
                 f"{app_rate:,.0f}/s the app makes", f"{rate / app_rate:.2f}x", ">= 1.00x", rate >= app_rate)
        for name, runs in app_runs.items():
            drops = [d for _, d, _ in runs]
            waits = [n for _, _, n in runs]
            self.add("names", f"app: {count:,} names ({made:,} ranges), PROF_RING_WAIT_MS "
                     f"{'0' if name == 'waits off' else 'default'}",
                     f"{median([w for w, _, _ in runs]) * 1e3:,.0f} ms; ranges dropped {min(drops) // 2:,}-"
                     f"{max(drops) // 2:,} ({max(drops) / 2 / made:.0%} at most); waits {min(waits):,}-{max(waits):,}",
                     "", "", "no drop" if name == "default" else "",
                     max(drops) == 0 if name == "default" else None)
        self.notes.append(
            "names: bench_writer_names puts the records of N distinct range names (every other one with a range "
            "inside) in a ring and times, in CPU time, the writer's translation of them (interning, pairing, "
            "encoding, 4 MiB chunks written to a file) 1 MiB slice at a time; the app rows run `reliability "
            f"nvtx_strings {count}` under the agent, median wall time of {repeats}, drops and waits over the runs.")

    # ----------------------------------------------------------- file size --
    def file_size(self):
        progress("file size: recording copies, nvtx_training, malloc_churn under the agent")
        for app, args in (("copies", []), ("nvtx_training", ["200"]), ("malloc_churn", [])):
            out = os.path.join(self.tmp, f"size-{app}.pb")
            run_reaped([os.path.join(self.apps, app)] + args, env=self.env("native", PROF_OUTPUT=out))
            self.captures.append(out)
        r = run_reaped([os.path.join(self.tools, "bench_record_sizes")] + self.captures)
        base = self.uftrace_bytes_per_call
        for line in r.stdout.splitlines():
            kind, name, records, size = line.split("\t")
            records, size = int(records), int(size)
            if kind != "record" or records == 0:
                if kind == "total":
                    self.add("file size", f"all records, whole files ({records:,} records)",
                             f"{size / records:.1f} B/record", "", "", "", None)
                continue
            per = size / records
            target_applies = name.startswith("API call") or name == "kernel"
            self.add("file size", f"{name} ({records:,})", f"{per:.1f} B/record",
                     f"{base:.1f} B/call uftrace" if base else "",
                     f"{per / base:.2f}x" if base else "",
                     f"<= {TARGET_BYTES} B" if target_applies else "",
                     per <= TARGET_BYTES if target_applies else None)
        self.notes.append(
            "file size: each record's tag + length + body as it lies in the file (bench_record_sizes), over "
            "captures of tiny_kernels (both stack modes), bench_record_rate, copies, nvtx_training and "
            "malloc_churn; 'whole files' adds definitions (strings, frames, stacks, modules) and framing. "
            "A stack is one interned id per call. Baseline: uftrace's data directory per traced call "
            "(1-thread tiny_kernels run).")

    # ------------------------------------------------------------ analyzer --
    def analyzer_speed(self):
        events = 1_000_000 if self.quick else ANALYZER_EVENTS
        path = os.path.join(self.tmp, "generated.pb")
        progress(f"analyzer: generating a {events:,}-event capture")
        gen = run_reaped([os.path.join(self.tools, "bench_generate_capture"), path, str(events)])
        written = int(gen.stdout.split()[0])
        size_mb = os.path.getsize(path) / 1e6
        self.add("analyzer", f"generate {written:,} events ({size_mb:.0f} MB) with ChunkEncoder",
                 f"{written / gen.wall / 1e6:.1f} M events/s", "", "", "", None)
        # The file's 326 MB are still being written back: timed now, the
        # first runs shared the disk with that (one run gave report 1.83 s,
        # the same binary 1.23-1.32 s a minute later).
        os.sync()
        rounds = 1 if self.quick else ANALYZER_ROUNDS
        progress("analyzer: parse-only baseline")
        base = median_run([os.path.join(self.tools, "bench_record_sizes"), path], rounds)
        self.add("analyzer", "baseline: parse every chunk only (libprotobuf)",
                 f"{base.wall:.2f} s, {base.rss_kb / 1024:.0f} MB RSS", "", "1.00x", "", None)
        commands = [
            ("info", ["info", path], None),
            ("report", ["report", path], os.devnull),
            ("stacks", ["stacks", path, "-o", os.path.join(self.tmp, "stacks.txt")], None),
            ("trace", ["trace", path, "-o", "-"], os.devnull),
            ("advise", ["advise", path], os.devnull),
            ("html", ["html", path, "-o", os.path.join(self.tmp, "page.html")], None),
        ]
        targets = {"report": (TARGET_REPORT_RATIO, TARGET_REPORT_RSS_MB),
                   "trace": (TARGET_EXPORT_RATIO, TARGET_EXPORT_RSS_MB),
                   "advise": (TARGET_EXPORT_RATIO, TARGET_EXPORT_RSS_MB),
                   "html": (TARGET_EXPORT_RATIO, TARGET_EXPORT_RSS_MB)}
        for name, args, stdout in commands:
            progress(f"analyzer: profanalyze {name}")
            r = median_run([self.analyzer] + args, rounds, stdout_path=stdout)
            rss_mb = r.rss_kb / 1024
            target, ok = "", None
            if name in targets:
                # The memory targets are for 10M events; --quick checks the ratio only.
                ratio, rss_limit = targets[name]
                ok = r.wall / base.wall <= ratio
                target = f"<= {ratio:.1f}x"
                if not self.quick:
                    ok = ok and rss_mb <= rss_limit
                    target += f", <= {rss_limit} MB"
            self.add("analyzer", f"profanalyze {name}",
                     f"{r.wall:.2f} s = {written / r.wall / 1e6:.2f} M events/s, {rss_mb:,.0f} MB RSS",
                     f"{base.wall:.2f} s parse", f"{r.wall / base.wall:.2f}x", target, ok)
        self.html_page_load(os.path.join(self.tmp, "page.html"), written)
        self.analyzer_files()
        self.notes.append(
            f"analyzer: bench_generate_capture writes {written:,} events (API calls with stacks, kernels "
            "correlated to them, copies, NVTX step/forward/backward ranges; 2 threads; 4 MiB chunks) with the "
            "agent's ChunkEncoder. Wall time and peak RSS (wait4) of each subcommand, the median wall and "
            f"the highest RSS of {ANALYZER_ROUNDS} runs (one with --quick); report and trace write to "
            "/dev/null, stacks to a file. Baseline: reading and parsing every chunk, nothing else, the same way.")

    def analyzer_files(self):
        """Several ranks' files in one `report`: read on every core
        (load_run.cpp) against one by one (PROFANALYZE_JOBS=1), both against
        libprotobuf's parse of every file, all in this run."""
        files = 8 if self.quick else RANK_FILES
        events = RANK_EVENTS // 4 if self.quick else RANK_EVENTS
        one = os.path.join(self.tmp, "rank.pb")
        progress(f"analyzer: generating {files} files of {events:,} events")
        gen = run_reaped([os.path.join(self.tools, "bench_generate_capture"), one, str(events)])
        written = int(gen.stdout.split()[0])
        # Links to one file: the same bytes per rank, without the disk space.
        paths = []
        for rank in range(files):
            path = os.path.join(self.tmp, f"rank{rank}.pb")
            os.link(one, path)
            paths.append(path)
        what = f"{files} files x {written:,} events"
        base = run_reaped([os.path.join(self.tools, "bench_record_sizes")] + paths)
        self.add("analyzer", f"{what}: baseline, parse every chunk only (libprotobuf)",
                 f"{base.wall:.2f} s, {base.rss_kb / 1024:.0f} MB RSS", "", "1.00x", "", None)
        single = run_reaped([self.analyzer, "report", one], stdout_path=os.devnull)
        self.add("analyzer", f"{what}: report of one file (its working set)",
                 f"{single.wall:.2f} s, {single.rss_kb / 1024:,.0f} MB RSS", "", "", "", None)
        cores = os.cpu_count() or 1
        for label, jobs in (("one file after another (PROFANALYZE_JOBS=1)", "1"),
                            (f"read on every core ({cores})", None)):
            env = dict(os.environ)
            env.pop("PROFANALYZE_JOBS", None)
            if jobs:
                env["PROFANALYZE_JOBS"] = jobs
            progress(f"analyzer: report of {what}, {label}")
            r = run_reaped([self.analyzer, "report"] + paths, env=env, stdout_path=os.devnull)
            self.add("analyzer", f"{what}: report, {label}",
                     f"{r.wall:.2f} s (CPU {r.cpu:.2f} s), {r.rss_kb / 1024:,.0f} MB RSS",
                     f"{base.wall:.2f} s parse", f"{r.wall / base.wall:.2f}x", "", None)
        self.notes.append(
            f"analyzer, several files: {files} links to one generated capture of {written:,} events (one per "
            "rank); the Run holds every file's events, so report's memory is their sum plus at most one "
            "file in flight per core.")

    def html_page_load(self, page, events):
        """Size of `profanalyze html`'s page and its load time in headless Chromium and Firefox."""
        sys.path.insert(0, os.path.join(ROOT, "test", "integration"))
        import devtools_pipe
        import webdriver_bidi
        size_mb = os.path.getsize(page) / 1e6
        measured = False
        for name, driver, path in (("Chromium", devtools_pipe, devtools_pipe.find_chromium()),
                                   ("Firefox", webdriver_bidi, webdriver_bidi.find_firefox())):
            if not path:
                continue
            progress(f"analyzer: html page load in headless {name}")
            what = f"html page of {events:,} events: size, load in {name} (navigate to load event, median of 3)"
            measured = True
            try:
                browser = driver.Browser(path)
                try:
                    browser.open_page()
                    browser.navigate("about:blank")
                    loads = []
                    for _ in range(3):
                        loads.append(browser.navigate("file://" + page))
                        if browser.evaluate("document.body.getAttribute('data-ready')") != "1":
                            raise RuntimeError("the page's script did not finish")
                finally:
                    browser.close()
            except Exception as error:  # a page too slow to load is a result, not the end of the run
                self.add("analyzer", what, f"{size_mb:.2f} MB, not loaded: {error}", "", "",
                         f"< {TARGET_HTML_LOAD_S:.0f} s", False)
                continue
            load = median(loads)
            self.add("analyzer", what, f"{size_mb:.2f} MB, {load:.2f} s", "", "", f"< {TARGET_HTML_LOAD_S:.0f} s",
                     load < TARGET_HTML_LOAD_S)
        if not measured:
            self.add("analyzer", f"html page of {events:,} events", f"{size_mb:.2f} MB (no browser: load not timed)",
                     "", "", "", None)

    # ------------------------------------------------------------- startup --
    def startup(self):
        """Wall time of fork+exec+exit of /bin/true, a process that never
        uses CUDA, with and without the agent preloaded: what a shell pipeline
        or `make` under an exported LD_PRELOAD pays per process."""
        program = shutil.which("true") or "/bin/true"
        spawns = 50 if self.quick else STARTUP_SPAWNS
        rounds = 3 if self.quick else STARTUP_ROUNDS
        configs = {"without the agent": self.env(),
                   "LD_PRELOAD=libprof.so": self.env(LD_PRELOAD=self.lib)}
        # Each process's stderr line ("nothing recorded") and run folder
        # go to /dev/null and our temporary folder.
        for env in configs.values():
            env["TMPDIR"] = self.tmp
        devnull = os.open(os.devnull, os.O_WRONLY)
        actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        per_spawn_ms = {name: [] for name in configs}
        cpu_ms = {name: [] for name in configs}  # user + sys of the process: steadier on a loaded machine
        faults = {name: [] for name in configs}  # minor page faults: each page first touched (several us in a VM)
        order = list(configs)
        progress(f"startup: {rounds} rounds of {spawns} x {program}, with and without the agent")
        for round_index in range(rounds):
            for name in (order if round_index % 2 == 0 else reversed(order)):
                env = configs[name]
                start = time.monotonic()
                cpu = 0.0
                minor_faults = 0
                for _ in range(spawns):
                    pid = os.posix_spawn(program, [program], env, file_actions=actions)
                    _, status, usage = os.wait4(pid, 0)
                    if status != 0:
                        raise RuntimeError(f"{program} under {name} exited with status {status}")
                    cpu += usage.ru_utime + usage.ru_stime
                    minor_faults += usage.ru_minflt
                per_spawn_ms[name].append((time.monotonic() - start) * 1000 / spawns)
                cpu_ms[name].append(cpu * 1000 / spawns)
                faults[name].append(minor_faults / spawns)
        os.close(devnull)
        base = median(per_spawn_ms["without the agent"])
        self.add("startup", f"{program}, without the agent (fork+exec+exit, wall)", f"{base:.3f} ms",
                 "", "1.00x", "", None)
        agent = median(per_spawn_ms["LD_PRELOAD=libprof.so"])
        added = agent - base
        self.add("startup", f"{program} under LD_PRELOAD=libprof.so (default options)",
                 f"{agent:.3f} ms, +{added:.3f} ms", f"{base:.3f} ms", f"{agent / base:.2f}x",
                 f"<= +{TARGET_STARTUP_MS} ms", added <= TARGET_STARTUP_MS)
        base_cpu = median(cpu_ms["without the agent"])
        agent_cpu = median(cpu_ms["LD_PRELOAD=libprof.so"])
        self.add("startup", f"{program} under LD_PRELOAD=libprof.so, CPU (user + sys of the process)",
                 f"{agent_cpu:.3f} ms, +{agent_cpu - base_cpu:.3f} ms", f"{base_cpu:.3f} ms",
                 f"{agent_cpu / base_cpu:.2f}x", "", None)
        base_faults = median(faults["without the agent"])
        agent_faults = median(faults["LD_PRELOAD=libprof.so"])
        self.add("startup", f"{program} under LD_PRELOAD=libprof.so, page faults per process",
                 f"{agent_faults:.0f}, +{agent_faults - base_faults:.0f}", f"{base_faults:.0f}",
                 f"{agent_faults / base_faults:.2f}x", "", None)
        self.notes.append(
            f"startup: median over {rounds} interleaved rounds of the mean wall time of {spawns} posix_spawn + "
            f"waitpid of {program} (stdout and stderr to /dev/null); baseline: the same without LD_PRELOAD, "
            "same run. The agent's part is everything its constructor and exit handler do in a process "
            "that records nothing.")

    # --------------------------------------------------------------- table --
    def print_table(self):
        header = ("section", "what", "measured", "baseline", "ratio", "target", "")
        widths = [max(len(str(row[i])) for row in self.rows + [header]) for i in range(len(header))]
        line = "  ".join("-" * w for w in widths)

        def fmt(row):
            return "  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip()

        print(line)
        print(fmt(header))
        print(line)
        previous = None
        for row in self.rows:
            if previous is not None and row[0] != previous:
                print(line)
            print(fmt(row if row[0] != previous else ("",) + row[1:]))
            previous = row[0]
        print(line)
        for note in self.notes:
            print(f"* {note}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build_dir")
    parser.add_argument("--quick", action="store_true", help="smaller runs, for trying the script out")
    parser.add_argument("--agent", help="the libprof.so to measure (default: BUILD_DIR/lib/libprof.so): "
                        "another build's, to set against this one's in a second run")
    parser.add_argument("--only", default="startup,overhead,clock,backends,windows,throughput,names,size,analyzer",
                        help="comma-separated sections to run")
    args = parser.parse_args()
    bench = Bench(args.build_dir, args.quick, args.agent)
    sections = args.only.split(",")
    try:
        started = time.monotonic()
        if "startup" in sections:
            bench.startup()
        if "overhead" in sections:
            bench.overhead()
        if "clock" in sections:
            bench.clock()
        if "backends" in sections:
            bench.backends()
        if "windows" in sections:
            bench.windows()
        if "throughput" in sections:
            bench.throughput()
        if "names" in sections:
            bench.names()
        if "size" in sections:
            bench.file_size()
        if "analyzer" in sections:
            bench.analyzer_speed()
        progress(f"done in {time.monotonic() - started:.0f} s")
        bench.print_table()
    finally:
        shutil.rmtree(bench.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
