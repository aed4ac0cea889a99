#!/usr/bin/env python3
"""The agent against what programs do (issue 27): close and reuse file
descriptors, crash early, exit from several threads at once, exec
themselves, probe for CUDA functions, live under a path named libprof.
One scenario per invocation, with run_cuda_tests.py's arguments; the app is
test/integration/apps/hostile_program.cpp. See docs/reliability.md.
"""
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time

import harness
import simcuda_truth as cuda
from harness import ARGS, Failure, analyze, check, ended, libprof_lines, main  # noqa: F401


def base_env():
    env = harness.base_env()
    if "address" in ARGS.sanitizer:
        # The crash scenarios need the signals to reach the program (and the
        # agent) as without a sanitizer: AddressSanitizer would turn them
        # into a report and exit 1.
        options = env.get("ASAN_OPTIONS", "detect_leaks=0")
        env["ASAN_OPTIONS"] = options + ":handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0"
    return env


def agent_env(tmp, extra=None):
    env = harness.agent_env({"PROF_OUTPUT": os.path.join(tmp, "run.pb")}, base=base_env())
    env.update(extra or {})
    return env


def program(*args):
    return [os.path.join(ARGS.apps, "hostile_program")] + [str(a) for a in args]


def run(cmd, env, cwd, timeout=60, core=False):
    """harness.run; core: with no limit on the size of a core dump."""
    def limits():
        if core:
            resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    return harness.run(cmd, env, cwd, timeout, preexec_fn=limits)


def ranges_named(path, cwd):
    counts = {}
    for line in analyze(["dump", path], cwd).splitlines():
        record = json.loads(line)
        if record["type"] == "range":
            counts[record["name"]] = counts.get(record["name"], 0) + 1
    return counts


# ---- 1: the program's descriptors ----

def fds_never_touch_the_programs_files(tmp, how):
    """close_reopen: the program closes every descriptor above 2 and opens two
    logs (which take the agent's numbers); dup2: it puts a log over every
    descriptor it has, the agent's included; closefrom: it closes them all.
    The logs hold exactly what the program wrote, and the capture file every
    range, before and after, and ends normally."""
    env = agent_env(tmp, {"PROF_FLUSH_MS": "10"})
    result = run(program("fds", how), env, tmp)
    check(result.returncode == 0, "exited %d: %s" % (result.returncode, result.stderr))
    check(result.stdout == "fds %s done\n" % how, "stdout: %r" % result.stdout)
    for log in ("app1", "app2"):
        path = os.path.join(tmp, log + ".log")
        if how == "closefrom":
            check(not os.path.exists(path), "closefrom made %s" % path)
            continue
        with open(path, "rb") as f:
            text = f.read()
        expected = "".join("%s line %d\n" % (log, i) for i in range(20)).encode()
        check(text == expected, "%s.log holds %d bytes, not the program's %d: %r" %
              (log, len(text), len(expected), text[:200]))
    counts = ranges_named("run.pb", tmp)
    check(counts.get("before") == 100 and counts.get("after") == 200, "ranges in the file: %s" % counts)
    check(ended("run.pb", tmp) == "exit", "run.pb did not end normally")
    lines = libprof_lines(result.stderr)
    check(any("wrote" in line and "run.pb" in line for line in lines), "end-of-run line: %s" % lines)


# ---- 4: crashes ----

CRASHES = {"SEGV": signal.SIGSEGV, "BUS": signal.SIGBUS, "FPE": signal.SIGFPE, "ILL": signal.SIGILL,
           "ABRT": signal.SIGABRT}


def run_for_status(cmd, env, cwd, stdout_path):
    """Runs cmd with core dumps allowed; returns (signal, core dumped, stderr)."""
    stderr_path = stdout_path + ".err"
    pid = os.fork()
    if pid == 0:
        try:
            resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            os.chdir(cwd)
            out = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, 1)
            os.dup2(err, 2)
            os.execve(cmd[0], cmd, env)
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    with open(stderr_path) as f:
        stderr = f.read()
    signalled = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    return signalled, os.WIFSIGNALED(status) and os.WCOREDUMP(status), stderr


def early_crash_keeps_signal_core_and_records(tmp, how, ms="100"):
    """A crash 100 ms into the run, well before the writer's first flush:
    the process dies of the same signal, with the same core-dump status, as
    without the agent, and the file holds every range recorded before."""
    sig = CRASHES[how]
    cmd = program("crash", how, ms)
    plain = run_for_status(cmd, base_env(), tmp, os.path.join(tmp, "plain.out"))
    profiled = run_for_status(cmd, agent_env(tmp), tmp, os.path.join(tmp, "profiled.out"))
    check(plain[0] == sig, "without the agent: %s" % (plain,))
    check(profiled[:2] == plain[:2], "(signal, core dumped) without the agent %s, with it %s: %s" %
          (plain[:2], profiled[:2], profiled[2]))
    with open(os.path.join(tmp, "profiled.out")) as f:
        printed = re.search(r"(\d+) ranges", f.read())
    check(printed is not None, "the app printed no count")
    check(os.path.exists(os.path.join(tmp, "run.pb")), "no file: %s" % profiled[2])
    counts = ranges_named("run.pb", tmp)
    check(counts.get("before crash") == int(printed.group(1)),
          "%s ranges in the file, %s recorded" % (counts.get("before crash"), printed.group(1)))
    end = ended("run.pb", tmp)
    check(end == "signal %d" % sig, "run.pb ended: %s" % end)


# ---- 2: exit() from several threads ----

def exit_from_threads_at_once(tmp, threads="8", runs="6"):
    """N threads call exit(3) at the same moment: every run writes a whole
    file (each thread's last range in it), as a program ending normally."""
    for attempt in range(int(runs)):
        output = os.path.join(tmp, "run%d.pb" % attempt)
        result = run(program("exit_threads", threads, 300), agent_env(tmp, {"PROF_OUTPUT": output}), tmp)
        check(result.returncode == 3, "run %d exited %d: %s" % (attempt, result.returncode, result.stderr))
        check(os.path.exists(output), "run %d wrote no file: %s" % (attempt, result.stderr))
        counts = ranges_named(output, tmp)
        check(counts.get("last") == int(threads), "run %d: %s of %s last ranges" % (attempt, counts.get("last"), threads))
        check(ended(output, tmp) == "exit", "run %d: file cut short" % attempt)


# ---- 7: a CUDA library under a path named libprof ----

def cuda_under_a_libprof_path(tmp):
    """The runtime and driver live in a folder whose path says libprof (a
    clone named so, /opt/libprof): the agent still forwards to them."""
    folder = os.path.join(tmp, "opt", "libprof", "lib")
    os.makedirs(os.path.dirname(folder))
    os.symlink(ARGS.simcuda_lib, folder)
    runtime = [name for name in os.listdir(ARGS.simcuda_lib) if name.startswith("libcudart.so.")]
    check(runtime, "no libcudart in " + ARGS.simcuda_lib)
    for backend in ("auto", "hooks"):
        env = agent_env(tmp, {"LD_LIBRARY_PATH": folder, "PROF_BACKEND": backend})
        result = run(program("dlopen_runtime", os.path.join(folder, runtime[0])), env, tmp)
        check(result.returncode == 0 and "cudaMalloc 0 cudaFree 0" in result.stdout,
              "PROF_BACKEND=%s: exit %d, %s %s" % (backend, result.returncode, result.stdout, result.stderr))


# ---- 8: exports the real library lacks ----

def older_runtime_env(env):
    """`env` with apps/older_runtime's libcudart.so.13 (older_cudart.cpp: no
    cudaLaunchCooperativeKernel) found ahead of simcuda's."""
    return dict(env, LD_LIBRARY_PATH=os.path.join(ARGS.apps, "older_runtime") + ":" + env["LD_LIBRARY_PATH"])


def dlsym_finds_only_what_the_library_has(tmp):
    """dlsym(RTLD_DEFAULT, name) finds a CUDA function under the agent only
    where the loaded library has it (an older runtime lacks
    cudaLaunchCooperativeKernel, simcuda's driver cuMemcpy3D_v2), as
    without the agent."""
    plain = run(program("dlsym_probe"), older_runtime_env(base_env()), tmp)
    check(plain.returncode == 0, plain.stderr)
    check("cudaLaunchCooperativeKernel absent" in plain.stdout and "cudaMalloc found" in plain.stdout,
          "simcuda is not what this test expects: " + plain.stdout)
    for backend in ("auto", "hooks", "cupti"):
        profiled = run(program("dlsym_probe"), older_runtime_env(agent_env(tmp, {"PROF_BACKEND": backend})), tmp)
        check(profiled.returncode == 0, profiled.stderr)
        check(profiled.stdout == plain.stdout, "PROF_BACKEND=%s: without the agent\n%swith it\n%s" %
              (backend, plain.stdout, profiled.stdout))


def bound_call_without_definition_says_so(tmp):
    """A program bound to cudaLaunchCooperativeKernel, which the loaded
    (older) runtime lacks: without the agent the loader stops it; with the
    agent the call returns cudaErrorCallRequiresNewerDriver (36), the
    runtime's answer for an entry point it cannot reach, and the program
    goes on."""
    app = os.path.join(ARGS.apps, "unavailable_entry_point")
    plain = run([app], older_runtime_env(base_env()), tmp)
    check(plain.returncode != 0, "the older runtime has cudaLaunchCooperativeKernel: " + plain.stdout)
    profiled = run([app], older_runtime_env(agent_env(tmp)), tmp)
    check(profiled.returncode == 0, "exit %d: %s" % (profiled.returncode, profiled.stderr))
    check("cudaLaunchCooperativeKernel 36" in profiled.stdout, "with the agent: %r" % profiled.stdout)


# ---- 3: a process that execs itself ----

def exec_self_keeps_every_image(tmp, images="4"):
    """A program that execs itself (images - 1 times, one pid): each image's
    ranges are in a file of its own, none overwritten, and the run's one
    line names them all."""
    result = run(program("exec_self", int(images) - 1), agent_env(tmp), tmp)
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    files = sorted(name for name in os.listdir(tmp) if name.endswith(".pb"))
    check(len(files) == int(images), "files: %s; %s" % (files, result.stderr))
    seen = {}
    for name in files:
        counts = ranges_named(name, tmp)
        check(len(counts) == 1 and list(counts.values())[0] == 50, "%s holds %s" % (name, counts))
        seen.update(counts)
        check(ended(name, tmp) == "exit", "%s did not end normally" % name)
    check(sorted(seen) == ["image %d" % i for i in range(int(images))], "images in the files: %s" % sorted(seen))
    lines = libprof_lines(result.stderr)
    check(len(lines) == 1 and "wrote %s files" % images in lines[0], "end-of-run lines: %s" % lines)


# ---- 6: Python stacks deeper than PROF_STACK_DEPTH ----

DEEP_SCRIPT = """
import ctypes
runtime = ctypes.CDLL("libcudart.so.13")

def allocate():
    memory = ctypes.c_void_p()
    assert runtime.cudaMalloc(ctypes.byref(memory), ctypes.c_size_t(1024)) == 0

def recurse(n):
    if n == 0:
        return allocate()
    return recurse(n - 1)

def training_loop():
    recurse(%d)

training_loop()
"""


def deep_python_stack_keeps_both_ends(tmp, depth="100", mode="python"):
    """A cudaMalloc 100 Python calls deep, at the default PROF_STACK_DEPTH
    (64): the stack keeps the outermost frames (training_loop, <module>) and
    the innermost (allocate), with one "..." frame between them, in the
    folded stacks, the trace and the report."""
    script = os.path.join(tmp, "deep.py")
    with open(script, "w") as f:
        f.write(DEEP_SCRIPT % int(depth))
    result = run([sys.executable, script], agent_env(tmp, {"PROF_STACKS": mode}), tmp)
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    folded = analyze(["stacks", "--metric", "self_cpu_time_total", "run.pb"], tmp).splitlines()
    stacks = [line.rsplit(" ", 1)[0].split(";") for line in folded if "cudaMalloc" in line]
    check(stacks, "no cudaMalloc stack:\n" + "\n".join(folded))
    frames = stacks[0]
    names = [f.rsplit(": ", 1)[-1] for f in frames]
    check("..." in names, "no ... frame in %s" % frames)
    cut = names.index("...")
    check("<module>" in names[:cut] and "training_loop" in names[:cut],
          "the outermost frames are gone (root first): %s" % names)
    check("allocate" in names[cut:], "the innermost frames are gone: %s" % names)
    check(names.count("...") == 1, "more than one ... frame: %s" % names)
    trace = os.path.join(tmp, "trace.json")
    analyze(["trace", "run.pb", "-o", trace], tmp)
    with open(trace) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("name") == "cudaMalloc"]
    check(any("..." in e.get("args", {}).get("stack", []) for e in events), "trace: no ... frame in %s" % events)


# ---- 5: without CUPTI, the context destroyed right after the work ----

def gpu_work_read_before_its_context_goes(tmp, api):
    """SIMCUDA_CUPTI=off: the hooks time GPU work with events, and the
    program destroys the context (cuCtxDestroy, cudaDeviceReset) at once,
    long before the writer's next pass. Every operation is in the file."""
    env = agent_env(tmp, {"SIMCUDA_CUPTI": "off", "SIMCUDA_KERNEL_NS": "default=2000000",
                          "SIMCUDA_TRUTH": os.path.join(tmp, "truth.jsonl")})
    result = run([os.path.join(ARGS.apps, "context_teardown"), api], env, tmp)
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    enqueued = int(re.search(r"(\d+) operations", result.stdout).group(1))
    gpu = [json.loads(line) for line in analyze(["dump", "run.pb"], tmp).splitlines()]
    gpu = [r for r in gpu if r["type"] in ("kernel", "memcpy", "memset")]
    check(len(gpu) == enqueued, "%d GPU records in the file, %d operations enqueued: %s" %
          (len(gpu), enqueued, [r["type"] for r in gpu]))
    check(all(r.get("event_timed") for r in gpu), "not event-timed: %s" % gpu)


# ---- 6: GPU work still running at exit ----

EXIT_WAIT_MS = 1000  # PROF_WINDOW_WAIT_MS: the bound of the wait at exit
COPY_BYTES = 40 << 20


def gpu_work_at_exit(tmp, what, backend, ending):
    """main returns with one kernel or one 40 MB asynchronous copy still on
    the GPU, never synchronised (NVIDIA's simpleAWBarrier). Through CUPTI or,
    with SIMCUDA_CUPTI=off, the hooks' event timing. "within": the work ends
    inside PROF_WINDOW_WAIT_MS, and its record is in the file as simcuda's
    truth has it. "beyond": it runs 30 s, and the program still ends within
    the bound (plus slack), the file counts it in ProcessEnd, `info` shows
    the count and the run's one line says it. The program's exit code and
    output are its own either way."""
    duration_ns = 300_000_000 if ending == "within" else 30_000_000_000
    extra = {"PROF_WINDOW_WAIT_MS": str(EXIT_WAIT_MS)}
    if what == "kernel":
        extra["SIMCUDA_KERNEL_NS"] = "default=%d" % duration_ns
    else:
        extra["SIMCUDA_PAGEABLE_GBPS"] = "%.6f" % (COPY_BYTES / duration_ns)  # bytes per ns
    if backend == "hooks":
        extra["SIMCUDA_CUPTI"] = "off"
    cmd = [os.path.join(ARGS.apps, "unsynchronized_exit"), what]
    kind = "kernel" if what == "kernel" else "memcpy"  # the truth's and dump's type
    alone_env = base_env()
    alone_env.update(extra)
    alone = run(cmd, alone_env, tmp)
    extra["SIMCUDA_TRUTH"] = os.path.join(tmp, "truth.jsonl")
    started = time.monotonic()
    result = run(cmd, agent_env(tmp, extra), tmp)
    elapsed = time.monotonic() - started
    check(result.returncode == alone.returncode == 0, "exit %d (alone %d): %s" %
          (result.returncode, alone.returncode, result.stderr))
    check(result.stdout == alone.stdout, "stdout %r, alone %r" % (result.stdout, alone.stdout))
    truth = [r for r in cuda.read_truth(os.path.join(tmp, "truth.jsonl")) if r["type"] in ("kernel", "memcpy")]
    check(len(truth) == 1 and truth[0]["type"] == kind, "truth: %s" % truth)
    check(truth[0]["end"] - truth[0]["start"] >= duration_ns * 0.99, "truth's duration: %s" % truth[0])
    records = [json.loads(line) for line in analyze(["dump", "run.pb"], tmp).splitlines()]
    gpu = [r for r in records if r["type"] in ("kernel", "memcpy", "memset")]
    ends = [r for r in records if r["type"] == "process_end"]
    check(len(ends) == 1 and ends[0]["reason"] == "EXIT", "process_end records: %s" % ends)
    info = analyze(["info", "run.pb"], tmp)
    # The run's one line; without CUPTI, before it, the line that says so.
    lines = [line for line in libprof_lines(result.stderr) if "CUPTI refused a subscriber" not in line]
    check(len(lines) == 1 and "wrote" in lines[0], "stderr: %s" % lines)
    if ending == "within":
        check(len(gpu) == 1 and gpu[0]["type"] == kind, "GPU records in the file: %s" % gpu)
        if kind == "memcpy":
            check(gpu[0]["bytes"] == COPY_BYTES, "copy: %s" % gpu[0])
        duration = gpu[0]["end"] - gpu[0]["start"]
        check(abs(duration - duration_ns) < duration_ns * 0.05, "%s lasted %d ns, truth %d" %
              (what, duration, duration_ns))
        check(ends[0]["gpu_records_missing"] == 0, "process_end: %s" % ends[0])
        check("GPU missing" not in info, "info: %s" % info)
        check("never came" not in lines[0], "stderr: %s" % lines)
    else:
        check(not gpu, "GPU records of unfinished work in the file: %s" % gpu)
        check(ends[0]["gpu_records_missing"] == 1, "process_end: %s" % ends[0])
        check(re.search(r"^\s+GPU missing\s+1 launch", info, re.MULTILINE) is not None, "info: %s" % info)
        check("1 GPU record never came" in lines[0], "stderr: %s" % lines)
        # The wait is bounded: a 30 s kernel must not hold the exit.
        check(elapsed < EXIT_WAIT_MS / 1000 + 6, "the program took %.1f s to end" % elapsed)


def captured_work_is_not_waited_for_at_exit(tmp):
    """A kernel launched into a stream capture becomes part of a graph and
    never runs: CUPTI gives no record of it. The exit does not wait for one
    (PROF_WINDOW_WAIT_MS=8000 here), and nothing is counted missing."""
    env = agent_env(tmp, {"PROF_WINDOW_WAIT_MS": "8000", "SIMCUDA_TRUTH": os.path.join(tmp, "truth.jsonl")})
    started = time.monotonic()
    result = run([os.path.join(ARGS.apps, "unsynchronized_exit"), "captured"], env, tmp)
    elapsed = time.monotonic() - started
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    check(not [r for r in cuda.read_truth(os.path.join(tmp, "truth.jsonl")) if r["type"] == "kernel"],
          "the captured kernel ran")
    records = [json.loads(line) for line in analyze(["dump", "run.pb"], tmp).splitlines()]
    check(any(r["type"] == "api" and r.get("name") == "cuLaunchKernel" for r in records), "no launch recorded")
    ends = [r for r in records if r["type"] == "process_end"]
    check(len(ends) == 1 and ends[0]["gpu_records_missing"] == 0, "process_end: %s" % ends)
    check(elapsed < 6, "the exit waited for captured work: %.1f s" % elapsed)


# ---- 9: one true end-of-run line, whatever ends the run; nothing left in /tmp ----

LOOP_SCRIPT = """
import ctypes
runtime = ctypes.CDLL("libcudart.so.13")
memory = ctypes.c_void_p()
runtime.cudaMalloc(ctypes.byref(memory), ctypes.c_size_t(1024))
runtime.cudaFree(memory)
print("looping", flush=True)
while True:
    runtime.cudaMalloc(ctypes.byref(memory), ctypes.c_size_t(1024))
    runtime.cudaFree(memory)
"""

PYTHON = "/usr/bin/python3"  # never a pyenv shim here: the shim case is a scenario of its own


def ending_env(tmp, extra=None):
    """The agent's environment with a TMPDIR of the test's own, whose run
    folders the test can count."""
    tmpdir = os.path.join(tmp, "tmpdir")
    os.makedirs(tmpdir, exist_ok=True)
    env = agent_env(tmp, {"TMPDIR": tmpdir})
    env.update(extra or {})
    return env


def run_folders_left(tmp):
    tmpdir = os.path.join(tmp, "tmpdir")
    return [name for name in os.listdir(tmpdir) if name.startswith("libprof-run-")] if os.path.isdir(tmpdir) else []


def check_one_line_naming(result, tmp, path):
    lines = libprof_lines(result.stderr)
    check(len(lines) == 1 and lines[0].startswith("libprof: wrote %s (" % path),
          "expected one line naming %s, got %s" % (path, lines))
    check(os.path.exists(path), "%s is not there: %s" % (path, lines))
    analyze(["info", path], tmp)  # reads
    check(not run_folders_left(tmp), "left in TMPDIR: %s" % run_folders_left(tmp))


def signal_once_looping(cmd, env, tmp, signum, group=False):
    """Runs `cmd` (a `timeout` or a shell over LOOP_SCRIPT) until the loop
    says it made its first CUDA calls, then sends `cmd` `signum`, which
    `timeout` passes on; `group`: to its whole process group, as a terminal's
    Ctrl-C does. Not after a fixed delay: on a loaded machine that could come
    before anything was recorded. The result as harness.run's."""
    process = subprocess.Popen(cmd, env=env, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=group)
    first_line = process.stdout.readline()  # "" if it ended first
    if first_line == "looping\n":
        if group:
            os.killpg(process.pid, signum)
        else:
            process.send_signal(signum)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        raise Failure("still running 60 s after the signal: %s" % stderr)
    check(first_line == "looping\n", "the loop never ran (exit %d): %s" % (process.returncode, stderr))
    # timeout dies of the signal it passed on, as its child did.
    check(process.returncode == -signum, "exit %d, not signal %d: %s" % (process.returncode, signum, stderr))
    return subprocess.CompletedProcess(cmd, process.returncode, first_line + stdout, stderr)


def one_true_line_whatever_ends_the_run(tmp, ending):
    """sigint: `timeout -s INT 120 python3 loop.py` preloaded, timeout sent
    SIGINT once the loop runs (Python dies of the SIGINT it re-raises after
    KeyboardInterrupt; timeout passes it on and dies of it too); sigterm:
    `timeout -s TERM 120 env LD_PRELOAD=... python3 loop.py` sent SIGTERM
    (the run's first process dies of it); shell_ctrl_c: `bash -c 'python3
    loop.py; ...'`, its process group sent SIGINT; no_tmpdir: TMPDIR=/nonexistent;
    five_fds: ulimit -n 5; shell: a bash script whose subshells and commands
    lose PROF_RUN (bash hands its children the environment it started
    with), as a pyenv shim. Each: one libprof line, true, naming the file,
    and no run folder left."""
    script = os.path.join(tmp, "loop.py")
    with open(script, "w") as f:
        f.write(LOOP_SCRIPT)
    output = os.path.join(tmp, "run.pb")
    if ending == "sigint":
        result = signal_once_looping(["timeout", "-s", "INT", "120", PYTHON, script], ending_env(tmp), tmp,
                                     signal.SIGINT)
    elif ending == "sigterm":
        env = ending_env(tmp)
        preload = env.pop("LD_PRELOAD")
        result = signal_once_looping(["timeout", "-s", "TERM", "120", "env", "LD_PRELOAD=" + preload, PYTHON, script],
                                     env, tmp, signal.SIGTERM)
    elif ending == "no_tmpdir":
        result = signal_once_looping(["timeout", "-s", "INT", "120", PYTHON, script],
                                     ending_env(tmp, {"TMPDIR": "/nonexistent"}), tmp, signal.SIGINT)
    elif ending == "shell_ctrl_c":
        # bash waits for its child, which dies of the SIGINT, then kills
        # itself with it: the run's first process dies of its own signal.
        result = signal_once_looping(["bash", "-c", '"$0" "$1"; echo not reached', PYTHON, script],
                                     ending_env(tmp), tmp, signal.SIGINT, group=True)
    elif ending == "five_fds":
        if ARGS.sanitizer:
            # The sanitizer runtimes need descriptors of their own (UBSan's
            # vptr check fails inside libstdc++ with none left).
            print("skipped: ulimit -n 5 leaves a sanitizer runtime no descriptor")
            raise SystemExit(77)
        result = run(["sh", "-c", 'ulimit -n 5; exec "$0" exec_self 0'] + program()[:1], ending_env(tmp), tmp)
        check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    elif ending == "shell":
        shell = 'x=$(bash -c "true"); y=$(/usr/bin/true); (true); "$0" exec_self 0; z=$(bash -c "true")'
        result = run(["bash", "-c", shell] + program()[:1], ending_env(tmp), tmp)
        check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    else:
        raise Failure("unknown ending " + ending)
    check_one_line_naming(result, tmp, output)


def signal_inside_cupti_still_ends_the_file(tmp):
    """A SIGINT lands on CUPTI's own thread while it holds the lock that the
    writer's flush waits for (simcuda's SIMCUDA_SIGNAL_IN_DELIVERY, sent
    once a flush waits), and at its default ends the process there: that
    thread never lets go. The writer must not wait for CUPTI then. It
    writes the file with its end, counting the GPU records that never came,
    and the process dies of SIGINT. The agent once waited for that flush:
    the handler's 3 s wait timed out and the process died with no file."""
    env = ending_env(tmp, {"SIMCUDA_SIGNAL_IN_DELIVERY": str(int(signal.SIGINT))})
    result = run([harness.app_path("tiny_kernels"), "1000000000"], env, tmp)
    check(result.returncode == -signal.SIGINT, "exit %d, not signal %d: %s" %
          (result.returncode, signal.SIGINT, result.stderr))
    output = os.path.join(tmp, "run.pb")
    check_one_line_naming(result, tmp, output)
    check(ended(output, tmp) == "signal %d" % signal.SIGINT, "ended: %s" % ended(output, tmp))
    check("GPU records never came" in result.stderr, "no count of the missing records: %s" % result.stderr)


def withdrawn_handler_never_runs(tmp, backlog="300000", runs="3"):
    """A SIGINT reaches a thread of the program's own while, on the main
    thread, the program withdraws its handler, sets SIGINT to its default
    and dies of a second one (CPython ending after a KeyboardInterrupt that
    `timeout` sent to it and to its process group): the agent writes the
    rings before it runs the app's handler, and once that is done the
    handler is no longer the app's, so it must not run (the program reports
    it and exits 99). The process dies of SIGINT, as without the agent,
    with its one line; the backlog makes the first handler's wait long."""
    cmd = program("withdrawn_handler", backlog)
    plain = run(cmd, base_env(), tmp)
    check(plain.returncode == -signal.SIGINT, "without the agent: exit %d: %s" % (plain.returncode, plain.stderr))
    for i in range(int(runs)):
        output = os.path.join(tmp, "run%d.pb" % i)
        result = run(cmd, ending_env(tmp, {"PROF_OUTPUT": output}), tmp)
        check("withdrawn handler ran" not in result.stderr, "run %d: %s" % (i, result.stderr))
        check(result.returncode == -signal.SIGINT,
              "run %d: exit %d, not signal %d: %s" % (i, result.returncode, signal.SIGINT, result.stderr))
        check_one_line_naming(result, tmp, output)


def nothing_of_ours_outlives_the_run(tmp):
    """A run ended by SIGKILL leaves its run folder (nothing can remove it
    then); the next run's sweep removes it, with control files' temporary
    copies of processes that are gone. A run ended by SIGTERM leaves none."""
    env = ending_env(tmp)
    victim = subprocess.Popen(program("exit_threads", 1, 20000), env=env, cwd=tmp,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        if run_folders_left(tmp):
            break
        time.sleep(0.05)
    check(run_folders_left(tmp), "no run folder while the program runs")
    victim.kill()
    victim.wait()
    check(run_folders_left(tmp), "the run folder of a SIGKILLed run vanished by itself")
    # A control file's temporary copy, of a pid no process has.
    control_dir = "/tmp/libprof-%d" % os.getuid()
    os.makedirs(control_dir, exist_ok=True)
    dead_pid = 4194303
    while os.path.exists("/proc/%d" % dead_pid):
        dead_pid -= 1
    stale = os.path.join(control_dir, "%d.ctl.tmp" % dead_pid)
    with open(stale, "w") as f:
        f.write("libprof\n")
    # Long enough for the writer's first pass, which sweeps control files.
    result = run(program("exit_threads", 1, 300), env, tmp)
    check(result.returncode == 3, result.stderr)
    check(not run_folders_left(tmp), "left in TMPDIR after the next run: %s" % run_folders_left(tmp))
    check(not os.path.exists(stale), "%s outlived its process" % stale)
    terminated = subprocess.Popen(program("exit_threads", 1, 20000), env=env, cwd=tmp,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    terminated.terminate()
    terminated.wait()
    check(not run_folders_left(tmp), "a SIGTERMed run left %s" % run_folders_left(tmp))


def ignored_signals_stay_ignored(tmp):
    """SIGINT and SIGTERM ignored when the program starts (inherited through
    exec, as a non-interactive shell leaves them to a background job): the
    agent installs its handler with one call per signal and puts back what
    that call found, so the kernel still ignores both (SigIgn, not SigCgt,
    in /proc/PID/status) and the program's kill of itself with each is
    ignored, as without the agent."""
    def ignore_both():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    shell = 'grep -E "^Sig(Ign|Cgt)" /proc/$$/status; kill -INT $$; kill -TERM $$; echo alive'
    result = harness.run(["sh", "-c", shell], ending_env(tmp), tmp, preexec_fn=ignore_both)
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    masks = dict(line.split(":\t") for line in result.stdout.splitlines() if line.startswith("Sig"))
    both = (1 << (signal.SIGINT - 1)) | (1 << (signal.SIGTERM - 1))
    check(int(masks["SigIgn"], 16) & both == both, "not ignored: %s" % result.stdout)
    check(int(masks["SigCgt"], 16) & both == 0, "caught: %s" % result.stdout)
    check(result.stdout.splitlines()[-1] == "alive", result.stdout)
    # The agent handles the crash signals it found at their default.
    check(int(masks["SigCgt"], 16) & (1 << (signal.SIGSEGV - 1)), "SIGSEGV not caught: %s" % result.stdout)


# ---- 10: the configuration, said once and truly ----

def bad_value_said_once_per_run(tmp):
    """A bad PROF_* value in a run of five processes (a preloaded timeout,
    bash, two commands, a subshell): said once."""
    shell = '"$0" exec_self 0; x=$(bash -c "true"); "$0" exec_self 0'
    result = run(["timeout", "20", "bash", "-c", shell] + program()[:1],
                 ending_env(tmp, {"PROF_BUFFER_KB": "lots"}), tmp)
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    said = [line for line in libprof_lines(result.stderr) if "PROF_BUFFER_KB" in line]
    check(len(said) == 1, "said %d times: %s" % (len(said), said))


def delay_out_of_range_records_nothing(tmp):
    """PROF_DELAY=99999999999999999999 is out of range (held at the largest
    delay), not "not a number; ignored" recording everything."""
    result = run(program("exec_self", 0), ending_env(tmp, {"PROF_DELAY": "99999999999999999999"}), tmp)
    check(result.returncode == 0, result.stderr)
    lines = libprof_lines(result.stderr)
    check(any("PROF_DELAY" in line and "out of range" in line for line in lines), "lines: %s" % lines)
    check(not os.path.exists(os.path.join(tmp, "run.pb")), "a file was written: %s" % lines)


def nvtx_injection_garbage_keeps_ranges(tmp):
    """NVTX_INJECTION64_PATH=garbage: the ranges are recorded, and that is said."""
    result = run(program("exec_self", 0), ending_env(tmp, {"NVTX_INJECTION64_PATH": "garbage"}), tmp)
    check(result.returncode == 0, result.stderr)
    check(ranges_named("run.pb", tmp).get("image 0") == 50, "ranges: %s" % ranges_named("run.pb", tmp))
    check(any("NVTX_INJECTION64_PATH" in line for line in libprof_lines(result.stderr)), result.stderr)


def stray_prof_run_is_said(tmp):
    """A PROF_RUN left in the environment renames the output (the process
    cannot claim it): never silently."""
    env = ending_env(tmp, {"PROF_RUN": os.path.join(tmp, "no-such-run"), "PROF_RUN_PID": "1"})
    result = run(program("exec_self", 0), env, tmp)
    check(result.returncode == 0, result.stderr)
    check(any("PROF_RUN" in line for line in libprof_lines(result.stderr)), "nothing said: %s" % result.stderr)


def child_taken_out_stays_out(tmp):
    """The program starts a child without LD_PRELOAD and PROF_OUTPUT; the
    agent's NVTX_INJECTION64_PATH is still in its environment, and NVTX
    loads it at the first range: the child records nothing, writes nothing."""
    child_dir = os.path.join(tmp, "child")
    os.makedirs(child_dir)
    shell = 'cd "$1" && env -u LD_PRELOAD -u PROF_OUTPUT "$0" exec_self 0'
    result = run(["bash", "-c", shell] + program()[:1] + [child_dir], ending_env(tmp), tmp)
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    check(not os.listdir(child_dir), "the child wrote %s" % os.listdir(child_dir))


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-hostile-"))
