#!/usr/bin/env python3
"""Integration tests of the agent's CUDA capture, on simcuda: every program of
test/apps runs under libprof.so with simcuda's ground-truth log, and the
capture file (read back with `profanalyze dump`) must agree with the truth.
One scenario per invocation (harness.py); CMakeLists.txt lists them.
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import time

from harness import ARGS, app_path, check, dump, forked_child_dies_under_tsan, libprof_lines, main, preload, run
from simcuda_truth import (APP_ENV, GPU_TYPES, base_env, compare_event_timed, compare_hooked_calls, compare_memory,
                           compare_with_truth, read_truth, record_app)

def matches_truth(tmp, app, *args):
    _, truth, records = record_app(tmp, app, list(args), dict(APP_ENV.get(app, {}), PROF_API="all"))
    compare_with_truth(truth, records)
    compare_memory(truth, records, "cupti")
    drops = [r for r in records if r["type"] == "drops"]
    check(drops and drops[-1]["ring_full"] == 0 and drops[-1]["cupti_records"] == 0, "drops: %s" % drops[-1:])


def tsc_expected():
    """Whether the agent should choose the TSC here: invariant (the kernel's
    constant_tsc and nonstop_tsc flags) and still a clock source."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
        with open("/sys/devices/system/clocksource/clocksource0/available_clocksource") as f:
            sources = f.read().split()
    except OSError:
        return None  # cannot tell: not checked
    return "constant_tsc" in flags and "nonstop_tsc" in flags and "tsc" in sources


def host_clock_choice(tmp):
    """PROF_CLOCK=monotonic forces the fallback (what a CPU without an
    invariant TSC gets); auto takes the TSC where it is invariant and usable.
    Either way the file's times match simcuda's truth (CLOCK_MONOTONIC)."""
    for choice in ("monotonic", "auto"):
        result, truth, records = record_app(tmp, "tiny_kernels", ["200"],
                                            {"PROF_CLOCK": choice, "PROF_LOG": "debug", "PROF_API": "all"})
        compare_with_truth(truth, records)
        said = [line for line in result.stderr.splitlines() if "timestamps from" in line]
        check(len(said) == 1, "PROF_CLOCK=%s: said %s" % (choice, said))
        tsc = "invariant TSC" in said[0]
        if choice == "monotonic":
            check(not tsc, "PROF_CLOCK=monotonic: %s" % said[0])
        elif tsc_expected() is not None:
            check(tsc == tsc_expected(), "PROF_CLOCK=auto on a machine whose TSC is%s usable: %s"
                  % ("" if tsc_expected() else " not", said[0]))


# The agent's own driver calls under the hooks: a kernel's name, asked once
# per kernel and thread right after its first driver launch returns
# (cuFuncGetName, then cuKernelGetName for the CUkernel handles the runtime
# launches with). simcuda's truth logs them like the app's; the runtime's
# own cuKernelGetName comes before its launch, so position tells them apart.
def hooks_match_truth(tmp, app, *args):
    """CUPTI refused (SIMCUDA_CUPTI=off): the hooks record every call."""
    _, truth, records = record_app(tmp, app, list(args), dict(APP_ENV.get(app, {}), PROF_API="all",
                                                              SIMCUDA_CUPTI="off", PROF_GPU_TIMING="none"))
    compare_hooked_calls(truth, records)
    compare_memory(truth, records, "hooks")
    drops = [r for r in records if r["type"] == "drops"]
    check(drops and drops[-1]["ring_full"] == 0, "drops: %s" % drops[-1:])


def hooks_backend_without_cupti_subscription(tmp):
    """PROF_BACKEND=hooks never subscribes to CUPTI, even where it could."""
    _, truth, records = record_app(tmp, "two_streams", [], {"PROF_API": "all", "PROF_BACKEND": "hooks",
                                                            "PROF_GPU_TIMING": "none"})
    compare_hooked_calls(truth, records)
    check(not any(r["type"] in GPU_TYPES for r in records), "GPU records without CUPTI or events")


def driver_found_through_dlsym_and_proc_address(tmp):
    """The static runtime's route to the driver: dlopen, dlsym(cuGetProcAddress_v2),
    cuGetProcAddress through itself, suffixed-name dlsym. Every call recorded."""
    for cupti in ("off", "on"):
        sub = os.path.join(tmp, cupti)
        os.mkdir(sub)
        _, truth, records = record_app(sub, "driver_by_dlsym", [],
                                       {"PROF_API": "all", "SIMCUDA_CUPTI": cupti, "PROF_GPU_TIMING": "none"})
        if cupti == "off":
            compare_hooked_calls(truth, records)
        else:
            compare_with_truth(truth, records)
        names = collections.Counter(r["name"] for r in records if r["type"] == "api")
        # The per-thread-stream flag picked the _ptds variant, the fallback the _v2 symbol.
        check(names["cuMemcpyHtoD_v2_ptds"] == 1 and names["cuMemFree_v2"] == 1 and names["cuInit"] == 1,
              "calls by name: %s" % dict(names))


def cupti_on_records_the_first_calls_once(tmp):
    """With CUPTI: each app's first cudaMalloc (or the call that starts CUDA)
    and its cuInit are in the file once, recorded by the hooks; nothing twice."""
    for app, args in (("tiny_kernels", ["50"]), ("copies", []), ("malloc_churn", ["5"]), ("driver_api", [])):
        sub = os.path.join(tmp, app)
        os.mkdir(sub)
        _, truth, records = record_app(sub, app, args, {"PROF_API": "all"})
        compare_with_truth(truth, records)
        inits = [r for r in records if r["type"] == "api" and r["name"] == "cuInit"]
        check(len(inits) == 1 and inits[0]["backend"] == "hooks", "%s: cuInit records %s" % (app, inits))


def event_timed_gpu_work(tmp, app, *args):
    """CUPTI refused, default GPU timing (events): every kernel, copy and
    memset of the truth (outside graphs) once, marked event-timed, linked to
    its launching call, kernels of 10 us or more within 1% of the truth."""
    _, truth, records = record_app(tmp, app, list(args), dict(APP_ENV.get(app, {}), SIMCUDA_CUPTI="off"))
    compare_event_timed(truth, records)
    compare_memory(truth, records, "hooks")


def default_skips_queries(tmp):
    _, truth, records = record_app(tmp, "tiny_kernels", ["200"])
    names = collections.Counter(r["name"] for r in records if r["type"] == "api")
    check(names["cudaLaunchKernel"] == 200, "launches: %s" % names)
    for query in ("__cudaGetKernel", "cudaGetLastError", "cuCtxGetCurrent", "cudaGetDevice"):
        check(names[query] == 0, "%s recorded by default: %s" % (query, names))
    launches = [r for r in records if r["type"] == "api" and r["name"] == "cudaLaunchKernel"]
    check(all(r["kernel"] == "_Z11tiny_kernelPii" for r in launches), "kernel name of the launch call")
    check(all(r["grid"][0] > 0 and r["block"][0] > 0 for r in launches), "launch configuration missing")
    check(all(r["stack"] > 0 for r in launches), "launches without a stack")
    # The driver call inside each runtime launch repeats it: left out unless
    # PROF_API=all.
    nested = [r for r in records if r["type"] == "api" and r["name"].startswith("cuLaunchKernel")]
    check(not nested, "nested driver launches recorded by default: %d" % len(nested))
    # Recorded, each shares its runtime launch's correlation id and leaves
    # stack and arguments to it (FORMAT.md, "Compact fields").
    os.makedirs(os.path.join(tmp, "all"))
    _, _, records = record_app(os.path.join(tmp, "all"), "tiny_kernels", ["200"], {"PROF_API": "all"})
    launches = [r for r in records if r["type"] == "api" and r["name"] == "cudaLaunchKernel"]
    nested = [r for r in records if r["type"] == "api" and r["name"].startswith("cuLaunchKernel")]
    check(len(nested) == 200, "nested driver launches under PROF_API=all: %d" % len(nested))
    check(sorted(r["corr"] for r in nested) == sorted(r["corr"] for r in launches),
          "nested driver launches do not share the runtime launches' correlation ids")
    check(all("grid" not in r and r["stack"] == 0 for r in nested),
          "a nested driver launch repeats the runtime launch's arguments or stack")


def text_that_is_not_utf8_is_read(tmp):
    """argv, thread names and NVTX messages need not be UTF-8; one such byte
    must not make the capture unreadable (proto/prof.proto stores text as bytes)."""
    env = preload(base_env())
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    argument = b"\xff\xfe-latin1-\xe9"
    result = subprocess.run([app_path("tiny_kernels").encode(), b"20", argument], env=env, cwd=tmp,
                            capture_output=True, timeout=60)
    check(result.returncode == 0, "tiny_kernels exited %d" % result.returncode)
    info = subprocess.run([ARGS.analyzer, "info", "run.pb"], env=base_env(False), cwd=tmp, capture_output=True)
    check(info.returncode == 0, "info failed: %r" % info.stderr)
    check(argument in info.stdout, "the command line lost its argument: %r" % info.stdout[:400])
    trace = run([ARGS.analyzer, "trace", "run.pb", "-o", "trace.json"], env=base_env(False), cwd=tmp)
    check(trace.returncode == 0, "trace failed: " + trace.stderr)
    with open(os.path.join(tmp, "trace.json"), encoding="utf-8") as f:
        json.load(f)  # valid UTF-8 JSON, or this raises


def driver_launches_carry_arguments(tmp):
    """A launch made through the driver API alone has no outer call to lean on."""
    _, truth, records = record_app(tmp, "driver_api", [])
    truth_launches = [t for t in truth if t["type"] == "api" and t["name"].startswith("cuLaunchKernel")]
    launches = [r for r in records if r["type"] == "api" and r["name"].startswith("cuLaunchKernel")]
    check(truth_launches and len(launches) == len(truth_launches),
          "driver launches: %d recorded, %d in the truth" % (len(launches), len(truth_launches)))
    check(all(r["grid"][0] > 0 and r["block"][0] > 0 and r["stack"] > 0 for r in launches),
          "a driver-only launch lacks its configuration or stack: %s" % launches[:1])


def eight_threads_no_drops(tmp):
    _, truth, records = record_app(tmp, "multithread_launch", ["2000"])
    truth_launches = collections.Counter(a["tid"] for a in truth if a["type"] == "api" and a["name"].startswith("cudaLaunchKernel"))
    file_launches = collections.Counter(r["tid"] for r in records if r["type"] == "api" and r["name"].startswith("cudaLaunchKernel"))
    check(len(truth_launches) == 8, "the app launched from %d threads" % len(truth_launches))
    check(file_launches == truth_launches, "launches per thread: file %s, truth %s" % (file_launches, truth_launches))
    drops = [r for r in records if r["type"] == "drops"][-1]
    check(drops["ring_full"] == 0 and drops["cupti_records"] == 0, "drops: %s" % drops)


def injection_path_alone_and_with_preload(tmp):
    # "copy": the driver is pointed at another copy of the library than the
    # preloaded one; the two copies must still record once.
    copy = os.path.join(tmp, "libprof-copy.so")
    shutil.copyfile(ARGS.agent, copy)
    for mode, injected in (("injection", ARGS.agent), ("both", ARGS.agent), ("copy", copy)):
        sub = os.path.join(tmp, mode)
        os.mkdir(sub)
        # base_env() preloads a sanitizer's runtime alone, preload() with the
        # agent after it (setting LD_PRELOAD here left the agent out).
        extra = {"PROF_API": "all", "CUDA_INJECTION64_PATH": injected}
        _, truth, records = record_app(sub, "two_streams", [], extra, use_preload=(mode != "injection"))
        compare_with_truth(truth, records, hooks=(mode != "injection"))


def own_cupti_subscriber_keeps_working(tmp):
    app = app_path("own_cupti_subscriber")
    alone = run([app], env=base_env(), cwd=tmp)
    env = preload(base_env())
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    traced = run([app], env=env, cwd=tmp)
    check(alone.returncode == 0 and "runtime calls seen" in alone.stdout, alone.stdout + alone.stderr)
    check(traced.stdout == alone.stdout, "output changed:\n%s\n---\n%s" % (alone.stdout, traced.stdout))
    check(traced.returncode == alone.returncode, "exit code changed")
    check(len(re.findall(r"libprof: CUPTI is in use by another tool \(.*\)", traced.stderr)) == 1,
          "the agent must say once who holds CUPTI: %r" % traced.stderr)
    # CUPTI is the program's: events time its copies, the hooks record its calls.
    copies = [r for r in dump(env["PROF_OUTPUT"], tmp) if r["type"] == "memcpy"]
    check(len(copies) == 10 and all(r["event_timed"] == 1 and r["bytes"] == 4096 for r in copies),
          "event-timed copies: %s" % copies[:2])
    _, truth, records = record_app(tmp, "own_cupti_subscriber", [], {"PROF_API": "all", "PROF_GPU_TIMING": "none"})
    compare_hooked_calls(truth, records)


def cupti_unavailable_is_reported_once(tmp):
    """CUPTI refused: said once, and the hooks record the API calls instead."""
    app = app_path("nvtx_training")
    alone = run([app], env=dict(base_env(), SIMCUDA_CUPTI="off"), cwd=tmp)
    env = preload(dict(base_env(), SIMCUDA_CUPTI="off", PROF_OUTPUT=os.path.join(tmp, "run.pb")))
    traced = run([app], env=env, cwd=tmp)
    check(alone.returncode == 0 and traced.returncode == 0, traced.stderr)
    check(traced.stdout == alone.stdout, "output changed")
    lines = [l for l in traced.stderr.splitlines() if "CUPTI" in l]
    check(len(lines) == 1 and lines[0].startswith("libprof: CUPTI refused a subscriber")
          and lines[0].endswith("recorded through the agent's hooks"),
          "expected one line about CUPTI: %r" % traced.stderr)
    records = dump(env["PROF_OUTPUT"], tmp)
    apis = [r for r in records if r["type"] == "api"]
    check(apis and all(r["backend"] == "hooks" for r in apis), "API calls without CUPTI: %d" % len(apis))
    check(sum(1 for r in records if r["type"] == "range" and r["name"].startswith("ProfilerStep#")) == 5,
          "NVTX must still be recorded")


def real_cuda_without_gpu_unchanged(tmp):
    """The real CUDA 13 libraries, no driver: the apps fail as they do alone,
    and the hooks record the failing calls (cudaErrorInsufficientDriver, 35;
    the driver-API app gets the stub library's CUDA_ERROR_STUB_LIBRARY, 34)."""
    # With no driver installed the only libcuda.so.1 is the toolkit's stub,
    # which the driver-API apps get (as in simcuda's check_real_cuda.py).
    stub_dir = os.path.join(tmp, "stub")
    os.mkdir(stub_dir)
    cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    os.symlink(os.path.join(cuda_home, "lib64", "stubs", "libcuda.so"), os.path.join(stub_dir, "libcuda.so.1"))
    for app, error in (("tiny_kernels", 35), ("copies", 35), ("driver_api", 34), ("cuda_exceptions", 35),
                       ("own_cupti_subscriber", 35), ("driver_by_dlsym", 34)):
        plain_env = base_env(False)
        if app.startswith("driver_"):
            plain_env["LD_LIBRARY_PATH"] = os.path.join(cuda_home, "lib64") + ":" + stub_dir
        plain = run([app_path(app)], env=plain_env, cwd=tmp)
        env = preload(dict(plain_env))
        env["PROF_LOG"] = "quiet"
        env["PROF_API"] = "all"  # driver_by_dlsym fails in its first lookup, a query
        env["PROF_OUTPUT"] = os.path.join(tmp, app + ".pb")
        traced = run([app_path(app)], env=env, cwd=tmp)
        check(plain.stdout == traced.stdout, "%s: output changed:\n%s\n---\n%s" % (app, plain.stdout, traced.stdout))
        check(plain.stderr == traced.stderr, "%s: stderr changed" % app)
        check(plain.returncode == traced.returncode,
              "%s: exit code %d, without the agent %d" % (app, traced.returncode, plain.returncode))
        check(os.path.exists(env["PROF_OUTPUT"]), "%s: no file" % app)
        failed = [r for r in dump(env["PROF_OUTPUT"], tmp) if r["type"] == "api" and r["ret"] == error]
        check(failed and all(r["backend"] == "hooks" for r in failed),
              "%s: no failing call (%d) recorded by the hooks" % (app, error))


def same_behaviour_with_agent(tmp, app):
    plain = run([app_path(app)], env=base_env(), cwd=tmp)
    env = preload(base_env())
    env["PROF_LOG"] = "quiet"
    traced = run([app_path(app)], env=env, cwd=tmp)
    check(plain.returncode == 0, plain.stderr)
    check(plain.stdout == traced.stdout, "output changed:\n%s\n---\n%s" % (plain.stdout, traced.stdout))
    check(plain.returncode == traced.returncode, "exit code changed")
    check(traced.stderr == "", "stderr: " + traced.stderr)
    records = dump("run.pb", tmp)
    check(any(r["type"] == "api" and r["stack"] > 0 for r in records),
          "no stacks were captured, so the stack walk was never exercised")


def exceptions_unchanged(tmp):
    same_behaviour_with_agent(tmp, "cuda_exceptions")


def backtrace_unchanged(tmp):
    same_behaviour_with_agent(tmp, "cuda_backtrace")


def launch_stack_names_launch_from_here(tmp, backend="auto"):
    # With the hooks the kernel's time comes from events (CUPTI refused).
    record_app(tmp, "launch_site", [], {"SIMCUDA_CUPTI": "off"} if backend == "hooks" else {})
    result = run([ARGS.analyzer, "stacks", "--metric", "self_cuda_time_total", "run.pb"], env=base_env(False), cwd=tmp)
    check(result.returncode == 0, result.stderr)
    lines = [l for l in result.stdout.splitlines() if "symbolized_kernel" in l]
    check(lines, "no stack ends in the kernel:\n" + result.stdout)
    for line in lines:
        frames = line.rsplit(" ", 1)[0].split(";")
        check("launch_from_here" in frames, "launch_from_here is not a frame of " + line)
        check(frames.index("launch_from_here") < frames.index("cudaLaunchKernel"),
              "launch_from_here must be above the launch call: " + line)
        check(frames[0] in ("_start", "main") or "main" in frames, "the stack does not reach main: " + line)


def stacks_need_no_libunwind(tmp):
    """The agent walks stacks itself: a launch's stack reaches main, and the
    loader never loaded libunwind (or anything the app did not) for it."""
    loaded = os.path.join(tmp, "loader")
    _, _, records = record_app(tmp, "launch_site", [], {"LD_DEBUG": "files", "LD_DEBUG_OUTPUT": loaded})
    logs = [os.path.join(tmp, f) for f in os.listdir(tmp) if f.startswith("loader")]
    check(logs, "LD_DEBUG_OUTPUT wrote nothing")
    text = ""
    for log in logs:
        with open(log) as f:
            text += f.read()
    opened = sorted(set(re.findall(r"file=(\S+) \[", text)))
    check(opened, "the loader log names no file: LD_DEBUG=files did not work")
    check("libunwind" not in text, "libunwind was loaded; files: %s" % opened)
    launches = [r for r in records if r["type"] == "api" and r["domain"] == "runtime" and "LaunchKernel" in r["name"]]
    check(launches, "no launches recorded")
    check(all(r["stack"] > 0 for r in launches), "launches without a stack")
    result = run([ARGS.analyzer, "stacks", "run.pb"], env=base_env(False), cwd=tmp)
    check(result.returncode == 0, result.stderr)
    check(any("main" in line.split(";") and "launch_from_here" in line for line in result.stdout.splitlines()),
          "no stack runs from main through launch_from_here:\n" + result.stdout[:2000])


def stacks_none_records_no_stacks(tmp):
    _, _, records = record_app(tmp, "tiny_kernels", ["50"], {"PROF_STACKS": "none"})
    launches = [r for r in records if r["type"] == "api" and r["name"] == "cudaLaunchKernel"]
    check(len(launches) == 50, "launches: %d" % len(launches))
    check(all(r["stack"] == 0 for r in launches), "PROF_STACKS=none still recorded stacks")


def capture_range_is_cuda_profiler_api(tmp):
    _, truth, records = record_app(tmp, "profiler_range", [], {"PROF_CAPTURE": "cudaProfilerApi"})
    copies = [r for r in records if r["type"] == "memcpy"]
    calls = [r for r in records if r["type"] == "api" and r["name"] == "cudaMemcpy"]
    ranges = [r["name"] for r in records if r["type"] == "range"]
    check(len(copies) == 5 and len(calls) == 5, "%d copies, %d cudaMemcpy calls recorded" % (len(copies), len(calls)))
    inside = [t for t in truth if t["type"] == "memcpy"][3:8]
    check(sorted(c["corr"] for c in copies) == sorted(t["corr"] for t in inside), "not the copies inside the range")
    check(ranges == ["inside"], "NVTX ranges recorded: %s" % ranges)


def report_json(tmp, *options):
    result = run([ARGS.analyzer, "report", "--format", "json", "--row-limit", "-1", *options, "run.pb"],
                 env=base_env(False), cwd=tmp)
    check(result.returncode == 0, result.stderr)
    return json.loads(result.stdout), result.stderr


def duration_of(ops):
    return sum(o["end"] - o["start"] for o in ops)


def report_cuda_totals_equal_truth(tmp):
    _, truth, _ = record_app(tmp, "nvtx_training", [])
    report, _ = report_json(tmp)
    rows = {r["name"]: r for r in report["windows"][0]["rows"]}
    ops = [t for t in truth if t["type"] in GPU_TYPES]
    for kernel in ("forward_kernel", "backward_kernel", "optimizer_kernel"):
        row = next(r for name, r in rows.items() if name.startswith(kernel + "("))
        want = duration_of(t for t in ops if t["type"] == "kernel" and kernel in t["name"])
        check(row["is_gpu"] and row["self_cuda_ns"] == want, "%s: self CUDA %d ns, truth %d" % (kernel, row["self_cuda_ns"], want))
        # The NVTX range around each launch holds exactly that kernel's time.
        range_name = {"forward_kernel": "forward", "backward_kernel": "backward", "optimizer_kernel": "optimizer_step"}[kernel]
        check(rows[range_name]["cuda_total_ns"] == want,
              "%s: CUDA total %d ns, its kernels %d" % (range_name, rows[range_name]["cuda_total_ns"], want))
    htod = duration_of(t for t in ops if t["type"] == "memcpy" and t["copy_kind"] == "HtoD")
    copy_row = next(r for name, r in rows.items() if name.startswith("Memcpy HtoD"))
    check(copy_row["self_cuda_ns"] == htod, "HtoD copies: %d ns, truth %d" % (copy_row["self_cuda_ns"], htod))
    gpu_rows = [r for r in rows.values() if r["is_gpu"]]
    check(sum(r["self_cuda_ns"] for r in gpu_rows) == duration_of(ops) == report["windows"][0]["self_cuda_time_total_ns"],
          "Self CUDA total differs from the truth")
    check(abs(sum(r["self_cuda_pct"] for r in gpu_rows) - 100.0) < 0.05, "Self CUDA %% sums to %.2f" %
          sum(r["self_cuda_pct"] for r in gpu_rows))
    step_work = duration_of(t for t in ops if not (t["type"] == "memcpy" and t["copy_kind"] == "DtoH"))
    check(rows["ProfilerStep*"]["cuda_total_ns"] == step_work,
          "ProfilerStep*: CUDA total %d, the GPU work launched in steps %d" % (rows["ProfilerStep*"]["cuda_total_ns"], step_work))


def auto_steps_find_training_steps(tmp):
    record_app(tmp, "nvtx_training", ["8"])
    # nvtx_training names its iterations ProfilerStep#N: auto takes them.
    auto, message = report_json(tmp, "--step", "auto", "--active", "8")
    check("NVTX ranges ProfilerStep#N count 8 iterations: --step nvtx:^ProfilerStep#[0-9]+$" in message and
          "8 steps" in message, "auto steps: " + message)
    nvtx, _ = report_json(tmp, "--step", "nvtx:^ProfilerStep#", "--active", "8")
    gpu = lambda report: {r["name"]: r["self_cuda_ns"] for r in report["windows"][0]["rows"] if r["is_gpu"]}
    check(gpu(auto) == gpu(nvtx), "GPU time per kernel differs between auto and NVTX steps:\n%s\n%s" % (gpu(auto), gpu(nvtx)))


def stacks_and_trace_of_a_simcuda_run(tmp):
    """Issue 6 on a real recording: the format rules of check_outputs.py (the
    views' own checker), and the numbers against simcuda's truth."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "views"))
    import check_outputs
    _, truth, _ = record_app(tmp, "nvtx_training", [])
    analyzer = lambda *a: run([ARGS.analyzer, *a], env=base_env(False), cwd=tmp)
    for command in (["stacks", "run.pb", "-o", "cuda.folded"], ["flamegraph", "run.pb", "-o", "cuda.svg"],
                    ["trace", "run.pb", "-o", "trace.json"], ["trace", "run.pb", "-o", "trace.json.gz"]):
        result = analyzer(*command)
        check(result.returncode == 0, "%s: %s" % (command, result.stderr))
    stacks = check_outputs.folded(os.path.join(tmp, "cuda.folded"))
    check_outputs.svg(os.path.join(tmp, "cuda.svg"), stacks)
    doc, by_cat = check_outputs.trace(os.path.join(tmp, "trace.json"))
    check_outputs.trace(os.path.join(tmp, "trace.json.gz"))
    check(not check_outputs.failures, "format rules: %s" % check_outputs.failures[:5])

    kernels = [t for t in truth if t["type"] == "kernel"]
    # Folded: every stack of a kernel ends in the kernel, under the NVTX range
    # that launched it, and the microseconds per kernel are the truth's.
    per_kernel = collections.Counter()
    for frames, us in stacks:
        if frames[-1].startswith(("forward_kernel", "backward_kernel", "optimizer_kernel")):
            per_kernel[frames[-1].split("(")[0]] += us
            range_name = {"forward_kernel": "forward", "backward_kernel": "backward",
                          "optimizer_kernel": "optimizer_step"}[frames[-1].split("(")[0]]
            check(range_name in frames and any(f.startswith("ProfilerStep") for f in frames),
                  "kernel stack without its NVTX ranges: %s" % ";".join(frames))
            check("main" in frames, "the native stack does not reach main: %s" % ";".join(frames))
    for name in ("forward_kernel", "backward_kernel", "optimizer_kernel"):
        want = sum(k["end"] - k["start"] for k in kernels if name in k["name"]) // 1000
        check(per_kernel[name] == want, "%s: %d us in the folded stacks, truth %d" % (name, per_kernel[name], want))
    # Trace: one kernel event per truth kernel, same start and duration (us,
    # ns decimals), each with a flow from its launch.
    # ts counts from the trace's own origin (baseTimeNanoseconds is on the
    # wall clock), so starts are compared relative to the first kernel's.
    trace_kernels = sorted((round(e["ts"] * 1000), round(e["dur"] * 1000)) for e in by_cat["kernel"])
    trace_kernels = [(t - trace_kernels[0][0], d) for t, d in trace_kernels] if trace_kernels else []
    first = min(k["start"] for k in kernels)
    want = sorted((k["start"] - first, k["end"] - k["start"]) for k in kernels)
    check(len(trace_kernels) == len(want), "%d kernel events, truth %d" % (len(trace_kernels), len(want)))
    check([d for _, d in trace_kernels] == [d for _, d in want], "kernel durations differ from the truth")
    check([t for t, _ in trace_kernels] == [t for t, _ in want], "kernel starts differ from the truth")
    flows = [e for e in doc["traceEvents"] if e.get("ph") == "f" and e.get("cat") == "ac2g"]
    check(len(flows) >= len(kernels), "%d ac2g flow ends for %d kernels" % (len(flows), len(kernels)))


def run_under_wrapper(tmp, command, output="x.pb"):
    env = preload(base_env())
    env.pop("PROF_RUN", None)
    env.pop("PROF_RUN_PID", None)
    env["PROF_OUTPUT"] = os.path.join(tmp, output)
    result = run(command, env=env, cwd=tmp)
    check(result.returncode == 0, "%s exited %d: %s" % (command, result.returncode, result.stderr))
    files = sorted(f for f in os.listdir(tmp) if f.endswith(".pb"))
    return result, files


def wrappers_leave_the_file_asked_for_and_one_line(tmp):
    """A launcher that records nothing claims nothing and says nothing: the
    program it starts writes PROF_OUTPUT, and the run prints one line."""
    app = app_path("nvtx_training")
    for name, command in (("timeout", ["timeout", "60", app]), ("bash", ["bash", "-c", app + " > /dev/null"]),
                          ("nested", ["bash", "-c", "timeout 60 " + app])):
        sub = os.path.join(tmp, name)
        os.mkdir(sub)
        result, files = run_under_wrapper(sub, command)
        check(files == ["x.pb"], "%s: files %s, want x.pb alone" % (name, files))
        lines = libprof_lines(result.stderr)
        check(len(lines) == 1 and re.fullmatch(r"libprof: wrote .*/x\.pb \(\d+ bytes\)", lines[0]),
              "%s: stderr lines %s, want one 'wrote .../x.pb'" % (name, lines))
        records = dump(os.path.join(sub, "x.pb"), sub)
        check(sum(1 for r in records if r["type"] == "range" and r["name"].startswith("ProfilerStep#")) == 5,
              "%s: x.pb is not the program's recording" % name)
    # Nothing recorded anywhere: one line says so.
    sub = os.path.join(tmp, "nothing")
    os.mkdir(sub)
    result, files = run_under_wrapper(sub, ["bash", "-c", "true; true"])
    lines = libprof_lines(result.stderr)
    check(files == [] and lines == ["libprof: nothing recorded; no file written"],
          "a run that recorded nothing: files %s, stderr %s" % (files, lines))


def two_programs_of_a_run_name_their_files_and_read_together(tmp):
    """The first process that records claims PROF_OUTPUT, the next writes
    <name>.<pid>.pb beside it; one line names both; profanalyze reads them
    together from the folder or a glob."""
    app = app_path("nvtx_training")
    result, files = run_under_wrapper(tmp, ["bash", "-c", "%s 3 && %s 2" % (app, app)])
    check(len(files) == 2 and "x.pb" in files, "files: %s" % files)
    other = next(f for f in files if f != "x.pb")
    check(re.fullmatch(r"x\.\d+\.pb", other) is not None, "the second file is %s" % other)
    steps = lambda f: sum(1 for r in dump(os.path.join(tmp, f), tmp)
                          if r["type"] == "range" and r["name"].startswith("ProfilerStep#"))
    check(steps("x.pb") == 3 and steps(other) == 2, "x.pb is not the first program's recording")
    lines = libprof_lines(result.stderr)
    check(len(lines) == 1 and lines[0].startswith("libprof: wrote 2 files: ") and "x.pb" in lines[0] and
          other in lines[0], "stderr: %s" % lines)
    for argument in (tmp, os.path.join(tmp, "x*.pb")):
        info = run([ARGS.analyzer, "report", "--format", "json", argument], env=base_env(False), cwd=tmp)
        check(info.returncode == 0, "report %s: %s" % (argument, info.stderr))
        rows = {r["name"]: r for r in json.loads(info.stdout)["windows"][0]["rows"]}
        check(rows["ProfilerStep*"]["calls"] == 5, "report %s: %s ProfilerStep rows, want 3 + 2" %
              (argument, rows["ProfilerStep*"]["calls"]))


def torch_schedule_windows(skip, wait, warmup, active, repeat, steps):
    """The steps torch.profiler.schedule records, written independently of the
    agent (which computes each step's action): walk the phases of each cycle."""
    windows = []
    step = skip
    cycle = 0
    while repeat == 0 or cycle < repeat:
        step += wait + warmup
        if step >= steps:
            break
        windows.append(list(range(step, min(step + active, steps))))
        step += active
        cycle += 1
    return windows


STEP_RULE = r"nvtx:^ProfilerStep#\d+$"


def training_kernels_by_step(truth, steps):
    """nvtx_training launches forward, backward and optimizer once per step, in
    order and on one stream: the truth's kernels by start, three per step."""
    kernels = sorted((t for t in truth if t["type"] == "kernel"), key=lambda t: t["start"])
    check(len(kernels) == 3 * steps, "%d kernels in the truth for %d steps" % (len(kernels), steps))
    return {i: kernels[3 * i:3 * i + 3] for i in range(steps)}


def window_files(tmp):
    return sorted(f for f in os.listdir(tmp) if re.fullmatch(r"run\.step\d+\.pb", f))


def check_window_file(tmp, name, want_steps, by_step):
    records = dump(os.path.join(tmp, name), tmp)
    step_ranges = sorted(int(r["name"].split("#")[1]) for r in records
                         if r["type"] == "range" and r["name"].startswith("ProfilerStep#"))
    check(step_ranges == want_steps, "%s holds steps %s, torch.profiler.schedule records %s" % (name, step_ranges, want_steps))
    kernels = sorted((r for r in records if r["type"] == "kernel"), key=lambda r: r["start"])
    want = [k for s in want_steps for k in by_step[s]]
    check([(k["name"], k["start"], k["end"]) for k in kernels] ==
          [(k["name"], k["start"], k["end"]) for k in want],
          "%s: %d kernels, the truth has %d for its steps (or their times differ)" % (name, len(kernels), len(want)))
    windows = [r for r in records if r["type"] == "window"]
    check(len(windows) == 1 and windows[0]["first_step"] == want_steps[0] and windows[0]["last_step"] == want_steps[-1],
          "%s: window record %s, want steps %d..%d" % (name, windows, want_steps[0], want_steps[-1]))
    # Each file is read on its own: the device its kernels ran on is described
    # in every one (CUPTI describes a device once per process).
    devices = [r["id"] for r in records if r["type"] == "device"]
    check(devices == sorted({k["device"] for k in kernels}),
          "%s: device records for %s, its kernels ran on %s" % (name, devices, sorted({k["device"] for k in kernels})))


def check_info_window(tmp, name, index, cut_by, steps):
    """profanalyze info on a window file: its window, how it was cut, its steps."""
    r = run([ARGS.analyzer, "info", name], env=base_env(False), cwd=tmp)
    check(r.returncode == 0, "info %s: %s" % (name, r.stderr))
    lines = {l.split(None, 1)[0]: l.split(None, 1)[1] for l in r.stdout.splitlines()[1:] if l.startswith("  ") and
             not l.startswith("    ") and len(l.split(None, 1)) == 2}
    check(lines.get("format", "").startswith("2.4,"), "info %s: format %r, want 2.4" % (name, lines.get("format")))
    check(lines.get("window", "").startswith("%d, cut by %s" % (index, cut_by)),
          "info %s: window %r, want %d cut by %s" % (name, lines.get("window"), index, cut_by))
    want = "%d: %s" % (len(steps), ", ".join(str(s) for s in steps))
    check(lines.get("steps") == want, "info %s: steps %r, want %r" % (name, lines.get("steps"), want))


def check_windows_read_together(tmp, want, by_step):
    """The window files read together (named, as a folder, as a glob): one
    window per file with the agent's step numbers, each holding exactly the
    truth's kernels of its steps; merged, their union, steps distinct."""
    files = [os.path.join(tmp, f) for f in window_files(tmp)]
    truth_of = lambda steps: sorted((k["name"], k["end"] - k["start"]) for s in steps for k in by_step[s])
    got_of = lambda rows: sorted((n, t) for n, t in ((r["name"].split("(")[0], r["total_ns"] // r["instances"])
                                                      for r in rows for _ in range(r["instances"])))
    short = lambda kernels: sorted((re.sub(r"^_Z\d+|PK?f.*$", "", n), t) for n, t in kernels)
    for arguments in (files, [tmp], [os.path.join(tmp, "run.step*.pb")]):
        for merge in ([], ["--merge-windows"]):
            r = run([ARGS.analyzer, "report", "--view", "kernels", "--format", "json"] + merge + arguments,
                    env=base_env(False), cwd=tmp)
            check(r.returncode == 0, "report %s %s: %s" % (merge, arguments, r.stderr))
            windows = json.loads(r.stdout)["windows"]
            expected = [sum(want, [])] if merge else want
            check([w["steps"] for w in windows] == expected, "report %s %s: windows %s, want steps %s"
                  % (merge, arguments, [w["steps"] for w in windows], expected))
            if not merge:
                check([w["window"] for w in windows] == list(range(len(want))), "window indices %s" % windows)
            for w, steps in zip(windows, expected):
                check(len(set(steps)) == len(steps), "steps %s repeat" % steps)
                check(got_of(w["rows"]) == short(truth_of(steps)), "report %s %s, steps %s: kernels %s, the truth %s"
                      % (merge, arguments, steps, got_of(w["rows"]), short(truth_of(steps))))
    r = run([ARGS.analyzer, "report", "--wait", "5", "--active", "3"] + files, env=base_env(False), cwd=tmp)
    check(r.returncode != 0 and "capture window the agent cut" in r.stderr,
          "a schedule over window files: rc %d, %r" % (r.returncode, r.stderr))


def schedule_windows_match_torch_and_truth(tmp):
    steps = 100
    env = {"PROF_STEP": STEP_RULE, "PROF_SCHEDULE": "wait=5,warmup=1,active=3,repeat=2"}
    result, truth = record_windows(tmp, steps, env)
    want = torch_schedule_windows(0, 5, 1, 3, 2, steps)
    files = window_files(tmp)
    check(files == sorted("run.step%d.pb" % w[0] for w in want), "window files %s, want %s" % (files, want))
    check(not os.path.exists(os.path.join(tmp, "run.pb")), "run.pb written beside the window files")
    by_step = training_kernels_by_step(truth, steps)
    for i, w in enumerate(want):
        check_window_file(tmp, "run.step%d.pb" % w[0], w, by_step)
        check_info_window(tmp, "run.step%d.pb" % w[0], i, "schedule", w)
    check_windows_read_together(tmp, want, by_step)


def cupti_detached_between_windows(tmp):
    """PROF_CUPTI_DETACH=1: CUPTI detaches between windows and attaches again
    for the next, and each window file still holds exactly its steps' kernels.
    The gap before the second window (60 steps, about 0.3 s) spans many writer
    passes, so the detach in it does not depend on timing."""
    steps = 200
    env = {"PROF_STEP": STEP_RULE, "PROF_SCHEDULE": "wait=60,warmup=1,active=3,repeat=2",
           "PROF_CUPTI_DETACH": "1", "PROF_LOG": "debug"}
    result, truth = record_windows(tmp, steps, env)
    want = torch_schedule_windows(0, 60, 1, 3, 2, steps)
    files = window_files(tmp)
    check(files == sorted("run.step%d.pb" % w[0] for w in want), "window files %s, want %s" % (files, want))
    by_step = training_kernels_by_step(truth, steps)
    for w in want:
        check_window_file(tmp, "run.step%d.pb" % w[0], w, by_step)
    events = re.findall(r"CUPTI (detached until the next window|attached again for a window)", result.stderr)
    events = ["detach" if e.startswith("detached") else "attach" for e in events]
    # Detaching and attaching alternate, from attached; each window found it
    # detached (a gap of 60 steps) and attached it.
    check(events[:4] == ["detach", "attach", "detach", "attach"] and
          all(a != b for a, b in zip(events, events[1:])),
          "CUPTI detach/attach sequence %s, want detach, attach before each of 2 windows" % events)


def quiet_callbacks(stderr):
    """The callbacks the agent leaves on outside windows (its PROF_LOG=debug line)."""
    lines = re.findall(r"outside capture windows, CUPTI calls back for: (.*)", stderr)
    check(len(lines) == 1, "%d lines naming the callbacks outside windows: %s" % (len(lines), stderr))
    return lines[0].split(", ")


def step_rules_cut_windows_with_and_without_cupti(tmp):
    """PROF_STEP=nvtx:REGEX, kernel:REGEX, api:NAME (a step starts at the call)
    and api:...Synchronize (a step ends where it returns) on nvtx_training:
    each rule's steps are one iteration each, so each window file holds exactly the
    truth's kernels of torch.profiler.schedule's steps; through CUPTI and,
    without it, through the hooks (kernels timed with events: names compared).
    Outside windows only the calls that can mark a boundary call back through
    CUPTI: none, the launches, or NAME."""
    steps = 40
    want = torch_schedule_windows(0, 5, 1, 3, 2, steps)
    for backend in ("cupti", "hooks"):
        for rule, quiet in ((STEP_RULE, ["none"]), ("kernel:forward_kernel", None), ("api:cudaMemcpy", ["cudaMemcpy"]),
                            ("api:cudaDeviceSynchronize", ["cudaDeviceSynchronize"])):
            sub = os.path.join(tmp, backend + "_" + re.sub(r"\W", "_", rule))
            os.mkdir(sub)
            env = {"PROF_STEP": rule, "PROF_SCHEDULE": "wait=5,warmup=1,active=3,repeat=2", "PROF_LOG": "debug",
                   "PROF_BACKEND": backend}
            result, truth = record_windows(sub, steps, env)
            what = "%s, %s" % (rule, backend)
            files = window_files(sub)
            check(files == sorted("run.step%d.pb" % w[0] for w in want), "%s: window files %s, want %s" % (what, files, want))
            by_step = training_kernels_by_step(truth, steps)
            for w in want:
                records = dump(os.path.join(sub, "run.step%d.pb" % w[0]), sub)
                kernels = sorted(((r["name"], r["start"], r["end"]) for r in records if r["type"] == "kernel"),
                                 key=lambda k: k[1])
                truth_kernels = [(k["name"], k["start"], k["end"]) for s in w for k in by_step[s]]
                if backend == "hooks":
                    kernels, truth_kernels = [k[0] for k in kernels], [k[0] for k in truth_kernels]
                check(kernels == truth_kernels, "%s, steps %s: kernels %s differ from the truth's %s"
                      % (what, w, kernels, truth_kernels))
                windows = [r for r in records if r["type"] == "window"]
                check(len(windows) == 1 and (windows[0]["first_step"], windows[0]["last_step"]) == (w[0], w[-1]),
                      "%s: window record %s, want steps %d..%d" % (what, windows, w[0], w[-1]))
            if backend == "hooks":
                continue
            on = quiet_callbacks(result.stderr)
            if quiet is None:
                check({"cudaLaunchKernel", "cuLaunchKernel"} <= set(on) and all("Launch" in name for name in on),
                      "%s: callbacks outside windows %s, want the launches alone" % (what, on))
            else:
                check(on == quiet, "%s: callbacks outside windows %s, want %s" % (what, on, quiet))
    # A name CUPTI does not know is said, and every call is checked for it.
    sub = os.path.join(tmp, "misspelt")
    os.mkdir(sub)
    result, _ = record_windows(sub, 8, {"PROF_STEP": "api:cudaMemcpyy", "PROF_SCHEDULE": "wait=1,active=1",
                                        "PROF_LOG": "debug"})
    check("PROF_STEP=api:cudaMemcpyy: CUPTI knows no CUDA call of that name" in result.stderr and
          quiet_callbacks(result.stderr) == ["every runtime and driver call"] and not window_files(sub),
          "a misspelt api rule: %s" % result.stderr)


def record_step_kernels(sub, backend, args, extra_env=None):
    """step_kernels ARGS under the agent: returns the run's stderr."""
    os.makedirs(sub, exist_ok=True)
    env = preload(base_env())
    env.pop("SIMCUDA_KERNEL_NS")  # simcuda's own std::regex must not see the long name
    env.update({"PROF_OUTPUT": os.path.join(sub, "run.pb"), "PROF_BACKEND": backend})
    env.update(extra_env or {})
    result = run([app_path("step_kernels")] + args, env=env, cwd=sub, timeout=100)
    check(result.returncode == 0 and "step_kernels: %s steps" % args[0] in result.stdout,
          "step_kernels %s (%s, %s) exited %d: %s" % (args, backend, extra_env, result.returncode, result.stderr))
    return result.stderr


def kernel_windows(files, cwd, *options):
    """report --view kernels over `files`: per window, its steps and its
    kernels' (name, launches)."""
    r = run([ARGS.analyzer, "report", "--view", "kernels", "--format", "json", "--row-limit", "-1", *options] + files,
            env=base_env(False), cwd=cwd)
    check(r.returncode == 0, "report %s %s: %s" % (options, files, r.stderr))
    return [(w["steps"], sorted((row["name"], row["instances"]) for row in w["rows"]))
            for w in json.loads(r.stdout)["windows"]], r.stderr


def kernel_rule_finds_the_same_steps_in_agent_and_analyzer(tmp):
    """PROF_STEP=kernel:REGEX (the agent cuts window files as it runs) and
    --step kernel:REGEX (the analyzer cuts the whole run afterwards) find the
    same steps: one rule, one meaning. A C++ kernel is matched by the name
    users write and reports show (scale(float*, int), never its mangling
    _Z5scalePfi), a C-linkage kernel by its own; through CUPTI and through
    the hooks. Each window holds its steps' launches: per step one c_step,
    one scale and two work kernels, the first one the rule's kernel."""
    steps = 12
    want = torch_schedule_windows(0, 1, 1, 3, 2, steps)
    per_step = {"c_step_kernel": 1, "scale(float*, int)": 1, "work(float*, int)": 2}
    rules = ((r"kernel:^scale\(float\*, int\)$", "_Z5scalePfi"), (r"kernel:^c_step_kernel$", "c_step_kernel"))
    for backend in ("cupti", "hooks"):
        whole = os.path.join(tmp, backend, "whole")
        record_step_kernels(whole, backend, [str(steps)])
        for rule, first_kernel in rules:
            what = "%s, %s" % (rule, backend)
            by_analyzer, stderr = kernel_windows(["run.pb"], whole, "--step", rule, "--wait", "1", "--warmup", "1",
                                                 "--active", "3", "--repeat", "2")
            check("--step %s: %d steps" % (rule, steps) in stderr, "%s: the analyzer found: %s" % (what, stderr))
            sub = os.path.join(tmp, backend, re.sub(r"\W", "_", rule))
            record_step_kernels(sub, backend, [str(steps)],
                                {"PROF_STEP": rule, "PROF_SCHEDULE": "wait=1,warmup=1,active=3,repeat=2"})
            files = window_files(sub)
            check(files == sorted("run.step%d.pb" % w[0] for w in want), "%s: window files %s, want %s"
                  % (what, files, want))
            by_agent, _ = kernel_windows(files, sub)
            check(by_agent == by_analyzer, "%s: the agent's windows %s, the analyzer's %s" % (what, by_agent, by_analyzer))
            for (window_steps, kernels), wanted in zip(by_agent, want):
                check(window_steps == wanted, "%s: window of steps %s, want %s" % (what, window_steps, wanted))
                launches = {name.split("(")[0]: n for name, n in kernels}
                check(launches == {k.split("(")[0]: n * len(wanted) for k, n in per_step.items()},
                      "%s, steps %s: kernels %s" % (what, wanted, kernels))
            for f in files:
                launched = sorted((r for r in dump(os.path.join(sub, f), sub) if r["type"] == "kernel"),
                                  key=lambda r: r["start"])
                check(launched and launched[0]["name"] == first_kernel,
                      "%s: %s begins with %s, want %s" % (what, f, launched[:1], first_kernel))


def check_each_window_holds_its_steps_kernels(what, sub):
    """The window files step_kernels 12 left in `sub` under the schedule
    wait=1,warmup=1,active=3,repeat=2 and the rule kernel:scale: each holds
    exactly its own steps' kernels (one c_step, one scale, two work each)."""
    want = torch_schedule_windows(0, 1, 1, 3, 2, 12)
    per_step = {"c_step_kernel": 1, "scale": 1, "work": 2}
    files = window_files(sub)
    check(files == sorted("run.step%d.pb" % w[0] for w in want), "%s: window files %s" % (what, files))
    by_agent, _ = kernel_windows(files, sub)
    for (window_steps, kernels), wanted in zip(by_agent, want):
        launches = {name.split("(")[0]: n for name, n in kernels}
        check(window_steps == wanted and launches == {k: n * len(wanted) for k, n in per_step.items()},
              "%s: window of steps %s holds %s, want steps %s with %s each" %
              (what, window_steps, kernels, wanted, per_step))


STEP_KERNEL_WINDOWS = {"PROF_STEP": r"kernel:^scale\(float\*, int\)$",
                       "PROF_SCHEDULE": "wait=1,warmup=1,active=3,repeat=2"}


def windows_keep_their_kernels_when_the_writer_lags(tmp):
    """A writer that falls behind the program (slow_writer.c: 150 ms before
    each of its polls, as on a loaded machine) completes a window after the
    next one has run: each window's file still holds exactly its own steps'
    kernels, through CUPTI and through the hooks' event timing. The hooks put
    the second window's kernels into the first's file (by the time they were
    drained, not by their launch: seen as a flaky test under load)."""
    shim = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(ARGS.agent))), "test", "integration",
                        "apps", "libslow_writer.so")
    check(os.path.isfile(shim), "no " + shim)
    for backend in ("cupti", "hooks"):
        sub = os.path.join(tmp, backend)
        # After a sanitizer's runtime (which must come first), before the agent.
        preloads = ([ARGS.preload_first] if ARGS.preload_first else []) + [shim, ARGS.agent]
        record_step_kernels(sub, backend, ["12"], dict(STEP_KERNEL_WINDOWS, LD_PRELOAD=":".join(preloads)))
        check_each_window_holds_its_steps_kernels(backend, sub)


def windows_wait_for_their_last_kernels(tmp):
    """A window ends as its next step begins, when the kernels its last step
    launched may still be running (work kernels of 30 ms here): its file
    waits for them, through CUPTI (their records, by correlation id) and
    through the hooks (their end events). The hooks completed the file
    without them, and so lost them (a flaky test under load on CI: the
    second window's last work kernel)."""
    for backend in ("cupti", "hooks"):
        sub = os.path.join(tmp, backend)
        record_step_kernels(sub, backend, ["12"], dict(STEP_KERNEL_WINDOWS, SIMCUDA_KERNEL_NS="work=30000000"))
        check_each_window_holds_its_steps_kernels(backend, sub)


def hostile_step_regex_leaves_the_program_alone(tmp):
    """Patterns on which a backtracking engine recurses once per character
    of the name (std::regex overflowed the app thread's stack, SIGSEGV) on a
    kernel named by 300,000 characters: the program runs as without them, in
    the agent (CUPTI and hooks) and in the analyzer's --step; a pattern that
    is no regex is said in RE2's words, once."""
    long_name = 300000
    for backend in ("cupti", "hooks"):
        for rule in (r"kernel:(.|\n)*", r"kernel:^(a|[^a])*$"):
            sub = os.path.join(tmp, backend, re.sub(r"\W", "_", rule))
            record_step_kernels(sub, backend, ["3", str(long_name)],
                                {"PROF_STEP": rule, "PROF_SCHEDULE": "wait=1,active=1,repeat=1"})
            # Every launch starts a step: the set-up kernel is step 0.
            check(window_files(sub) == ["run.step1.pb"], "%s, %s: window files %s" % (rule, backend, window_files(sub)))
    whole = os.path.join(tmp, "whole")
    record_step_kernels(whole, "cupti", ["3", str(long_name)])
    for rule, steps in ((r"kernel:(.|\n)*", 16), (r"kernel:^(a|[^a])*$", 16), (r"kernel:^a+$", 3)):
        r = run([ARGS.analyzer, "report", "--step", rule, "run.pb"], env=base_env(False), cwd=whole)
        check(r.returncode == 0 and "--step %s: %d steps" % (rule, steps) in r.stderr,
              "report --step %s: rc %d, %s" % (rule, r.returncode, r.stderr[-2000:]))
    bad = os.path.join(tmp, "bad")
    stderr = record_step_kernels(bad, "cupti", ["2"], {"PROF_STEP": "kernel:*"})
    said = [l for l in stderr.splitlines() if "PROF_STEP" in l]
    check(said == ["libprof: PROF_STEP=kernel:* has a bad regular expression: no argument for repetition "
                   "operator: *; steps are not counted"], "PROF_STEP=kernel:* said: %s" % stderr)
    r = run([ARGS.analyzer, "report", "--step", "kernel:*", "run.pb"], env=base_env(False), cwd=whole)
    check(r.returncode == 2 and "--step: 'kernel:*' has a bad regular expression: no argument for repetition "
          "operator: *" in r.stderr, "--step kernel:*: rc %d, %s" % (r.returncode, r.stderr))


def window_end_cuts_calls_of_other_threads(tmp):
    """A worker thread is inside cudaStreamSynchronize when a window ends, so
    its exit never calls back; in the next window its launches are still its
    own (not taken for calls nested in that synchronization): each has a
    stack and names its kernel. Under the nvtx rule (every callback off
    between windows) and a kernel rule (the launches stay on)."""
    for rule in (STEP_RULE, "kernel:main_kernel"):
        sub = os.path.join(tmp, rule.split(":")[0])
        os.mkdir(sub)
        env = preload(base_env())
        env.update({"PROF_OUTPUT": os.path.join(sub, "run.pb"), "PROF_STACKS": "native", "PROF_STEP": rule,
                    "PROF_SCHEDULE": "wait=1,warmup=0,active=3,repeat=2"})
        result = run([app_path("window_edge_calls"), "10", "3", "6"], env=env, cwd=sub)
        check(result.returncode == 0, "window_edge_calls exited %d: %s" % (result.returncode, result.stderr))
        check(window_files(sub) == ["run.step1.pb", "run.step5.pb"], "%s: window files %s" % (rule, window_files(sub)))
        first = dump(os.path.join(sub, "run.step1.pb"), sub)
        syncs = [r for r in first if r["type"] == "api" and r["name"] == "cudaStreamSynchronize"]
        worker = {r["tid"] for r in first if r["type"] == "api" and "long_kernel" in r.get("kernel", "")}
        check(len(worker) == 1, "%s: the first window has no launch of long_kernel: %s" % (rule, worker))
        check(not [r for r in syncs if r["tid"] in worker], "%s: the worker's synchronization ended in the window" % rule)
        second = dump(os.path.join(sub, "run.step5.pb"), sub)
        launches = [r for r in second if r["type"] == "api" and r["name"] == "cudaLaunchKernel" and r["tid"] in worker]
        check(len(launches) == 5 and all(r["stack"] > 0 and "worker_kernel" in r.get("kernel", "") for r in launches),
              "%s: the worker's launches in the second window (want 5, each with a stack and its kernel): %s"
              % (rule, [(r["stack"], r.get("kernel")) for r in launches]))


def keep_leaves_the_newest_windows(tmp):
    steps = 200
    env = {"PROF_STEP": STEP_RULE, "PROF_SCHEDULE": "wait=5,warmup=1,active=3,repeat=0", "PROF_KEEP": "2"}
    _, truth = record_windows(tmp, steps, env)
    want = torch_schedule_windows(0, 5, 1, 3, 0, steps)[-2:]
    files = window_files(tmp)
    check(files == sorted("run.step%d.pb" % w[0] for w in want), "files left %s, want the newest two of %s" % (files, want))
    by_step = training_kernels_by_step(truth, steps)
    for w in want:
        check_window_file(tmp, "run.step%d.pb" % w[0], w, by_step)


def record_windows(tmp, steps, extra_env):
    env = preload(base_env())
    env["SIMCUDA_TRUTH"] = os.path.join(tmp, "truth.jsonl")
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    env.update(extra_env)
    result = run([app_path("nvtx_training"), str(steps)], env=env, cwd=tmp, timeout=110)
    check(result.returncode == 0, "nvtx_training exited %d: %s" % (result.returncode, result.stderr))
    return result, read_truth(env["SIMCUDA_TRUTH"])


def control_names_process(path, pid):
    """Whether the control file at `path` says the running process `pid`'s
    start time (field 22 of /proc/PID/stat), as profanalyze capture checks."""
    try:
        with open(path) as f:
            started = [l.split()[1] for l in f if l.startswith("started ")]
        with open("/proc/%d/stat" % pid) as f:
            ticks = f.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return False
    return started[:1] == [ticks]


def capture_on_demand(tmp):
    """profanalyze capture on a running app started with PROF_START=off: the
    file holds exactly the steps asked for (kernels as in the truth), a second
    capture gives a second file, and a process without the agent or a
    finished one is refused with a clear message."""
    steps = 6000
    env = preload(base_env())
    env["SIMCUDA_TRUTH"] = os.path.join(tmp, "truth.jsonl")
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    env.update({"PROF_START": "off", "PROF_STEP": STEP_RULE})
    app = subprocess.Popen([app_path("nvtx_training"), str(steps)], env=env, cwd=tmp,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        control = "/tmp/libprof-%d/%d.ctl" % (os.getuid(), app.pid)
        # Its own file, not one a killed process of the same pid left behind
        # (this machine had 400 of those, and the test once read one).
        for _ in range(200):
            if control_names_process(control, app.pid):
                break
            time.sleep(0.02)
        check(control_names_process(control, app.pid), "the agent made no " + control)
        captured = []
        for name, n in (("first.pb", 3), ("second.pb", 2)):
            r = run([ARGS.analyzer, "capture", str(app.pid), "--steps", str(n), "-o", name], base_env(False), tmp)
            check(r.returncode == 0, "capture --steps %d failed: %s" % (n, r.stderr))
            check(r.stdout.strip() == os.path.join(tmp, name), "capture printed %r" % r.stdout)
            captured.append((name, n))
        stranger = subprocess.Popen(["sleep", "30"])
        try:
            r = run([ARGS.analyzer, "capture", str(stranger.pid), "--steps", "1"], base_env(False), tmp)
            check(r.returncode != 0 and "does not run the libprof agent" in r.stderr,
                  "capture of a process without the agent: rc %d, %r" % (r.returncode, r.stderr))
            # A control file an earlier, killed process of the same pid left behind.
            stale = "/tmp/libprof-%d/%d.ctl" % (os.getuid(), stranger.pid)
            with open(stale, "w") as f:
                f.write("libprof 0.1.0\nstarted 1\n")
            try:
                r = run([ARGS.analyzer, "capture", str(stranger.pid), "--steps", "1", "--timeout", "5"],
                        base_env(False), tmp)
            finally:
                os.unlink(stale)
            check(r.returncode != 0 and "does not run the libprof agent" in r.stderr,
                  "capture of a process with a stale control file: rc %d, %r" % (r.returncode, r.stderr))
        finally:
            stranger.kill()
            stranger.wait()
    finally:
        out, err = app.communicate(timeout=100)
    check(app.returncode == 0, "nvtx_training exited %d: %s" % (app.returncode, err))
    check(not os.path.exists(control), "the agent left " + control + " behind")
    r = run([ARGS.analyzer, "capture", str(app.pid), "--steps", "1"], base_env(False), tmp)
    check(r.returncode != 0 and "no process" in r.stderr, "capture of a finished process: rc %d, %r" % (r.returncode, r.stderr))
    check(not os.path.exists(os.path.join(tmp, "run.pb")), "PROF_START=off wrote run.pb")
    by_step = training_kernels_by_step(read_truth(env["SIMCUDA_TRUTH"]), steps)
    previous_last = -1
    for name, n in captured:
        records = dump(os.path.join(tmp, name), tmp)
        got = sorted(int(r["name"].split("#")[1]) for r in records
                     if r["type"] == "range" and r["name"].startswith("ProfilerStep#"))
        check(len(got) == n and got == list(range(got[0], got[0] + n)) and got[0] > previous_last,
              "%s holds steps %s, asked for %d consecutive ones after step %d" % (name, got, n, previous_last))
        check_window_file(tmp, name, got, by_step)
        check_info_window(tmp, name, captured.index((name, n)), "capture", got)
        previous_last = got[-1]


def max_mb_stops_with_one_message(tmp):
    env = {"PROF_MAX_MB": "1", "PROF_STACKS": "native"}
    result, _ = record_windows(tmp, 3000, env)
    messages = [l for l in result.stderr.splitlines() if "PROF_MAX_MB" in l]
    check(len(messages) == 1, "messages about PROF_MAX_MB: %s" % messages)
    size = os.path.getsize(os.path.join(tmp, "run.pb"))
    check(size <= 1 << 20, "run.pb is %d bytes, over PROF_MAX_MB=1" % size)
    dump(os.path.join(tmp, "run.pb"), tmp)  # still readable


def delay_and_duration_cut_one_window(tmp):
    """PROF_DELAY=0.3 PROF_DURATION=0.3: one file, a window of 0.3 s, holding
    the GPU work launched inside it, as torch's profiler holds a step's
    kernels: every launch made in the window is in the file with its kernel
    (times as in the truth), even one still running when the window ended
    (the agent waits for its record), and no kernel launched outside it."""
    result, truth = record_windows(tmp, 2000, {"PROF_DELAY": "0.3", "PROF_DURATION": "0.3"})
    records = dump(os.path.join(tmp, "run.pb"), tmp)
    window = [r for r in records if r["type"] == "window"]
    check(len(window) == 1 and window[0]["trigger"] == "duration", "window records: %s" % window)
    w = window[0]
    length = w["end"] - w["start"]
    check(0.29e9 <= length <= 0.4e9, "window lasted %d ns, asked 0.3 s" % length)
    check(w.get("gpu_records_missing", 0) == 0, "window record says GPU records are missing: %s" % w)
    kernels = {k["corr"]: k for k in records if k["type"] == "kernel"}
    check(kernels, "no kernel in the window")
    launches = {r["corr"]: r for r in records if r["type"] == "api" and r["name"] == "cudaLaunchKernel"}
    truth_kernels = {t["corr"]: t for t in truth if t["type"] == "kernel"}
    by_end = lambda corrs: ", ".join("corr %d: launch %+d ns, kernel %+d..%+d ns of the window's end" % (
        c, launches[c]["start"] - w["end"] if c in launches else 0,
        truth_kernels[c]["start"] - w["end"], truth_kernels[c]["end"] - w["end"]) for c in sorted(corrs)[:5])
    # Every launch the truth made wholly inside the window is recorded...
    made_inside = {t["corr"] for t in truth if t["type"] == "api" and t["name"] == "cudaLaunchKernel"
                   and w["start"] <= t["start"] and t["end"] <= w["end"]}
    check(made_inside <= set(launches), "launches made inside the window and not recorded: %s" % by_end(made_inside - set(launches)))
    # ... and every recorded launch that began inside it has its kernel.
    began_inside = {c for c, r in launches.items() if r["start"] >= w["start"]}
    check(began_inside <= set(kernels), "%d launches of the window lost their kernel: %s"
          % (len(began_inside - set(kernels)), by_end(began_inside - set(kernels))))
    # A launch still in its call when the window ended is not in the file (it
    # returned with recording off); its kernel may be, when it started inside.
    straddling = {t["corr"] for t in truth if t["type"] == "api" and t["name"] == "cudaLaunchKernel"
                  and t["start"] <= w["end"] < t["end"]}
    check(set(kernels) <= set(launches) | straddling, "kernels launched outside the window: %s"
          % by_end(set(kernels) - set(launches) - straddling))
    for c, k in kernels.items():
        t = truth_kernels[c]
        check((k["start"], k["end"]) == (t["start"], t["end"]), "kernel corr %d at %d..%d, the truth %d..%d"
              % (c, k["start"], k["end"], t["start"], t["end"]))


def process_that_records_nothing_writes_nothing(tmp):
    """Issue 27: a process that records nothing writes no file, in every
    windowed mode: `PROF_DURATION=0.5 sleep 1` wrote a ~400-byte window file,
    and a launcher (`timeout`) around a recording app put its empty window
    over the app's file in PROF_OUTPUT."""
    modes = [{"PROF_DURATION": "0.5"}, {"PROF_DURATION": "0.2", "PROF_DELAY": "0.1"}, {"PROF_DELAY": "0.1"},
             {"PROF_DELAY": "0"}, {"PROF_START": "off"}]
    for mode in modes:
        env = preload(base_env(False))
        env["PROF_OUTPUT"] = os.path.join(tmp, "sleep.pb")
        env.update(mode)
        result = run(["sleep", "0.6"], env=env, cwd=tmp)
        check(result.returncode == 0, "sleep exited %d under %s: %s" % (result.returncode, mode, result.stderr))
        check(not os.listdir(tmp), "sleep 0.6 under %s wrote %s" % (mode, os.listdir(tmp)))
    # The launcher and the app share PROF_OUTPUT: the app's file is whole.
    if forked_child_dies_under_tsan("a launcher (timeout) around a recording app"):
        return
    env = preload(base_env())
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    env["PROF_DURATION"] = "0.5"
    result = run(["timeout", "60", app_path("nvtx_training"), "400"], env=env, cwd=tmp, timeout=110)
    check(result.returncode == 0, "timeout nvtx_training exited %d: %s" % (result.returncode, result.stderr))
    records = dump(os.path.join(tmp, "run.pb"), tmp)
    check(any(r["type"] == "api" for r in records), "the app's window holds no API call")
    check(len([r for r in records if r["type"] == "window"]) == 1, "not one window record in run.pb")


def duration_on_a_short_program_keeps_its_window(tmp):
    """Issue 27: PROF_DURATION longer than the program: the window open when
    the program ends is a window, written (it said "no capture window
    opened; no file written" when the program ended before the writer's
    first pass), with and without PROF_DELAY=0."""
    for mode in ({"PROF_DURATION": "10"}, {"PROF_DURATION": "10", "PROF_DELAY": "0"}):
        for attempt in range(3):
            path = os.path.join(tmp, "run.pb")
            if os.path.exists(path):
                os.unlink(path)
            result, truth = record_windows(tmp, 3, mode)
            check(os.path.exists(path), "%s, run %d: no file; the agent said: %s" % (mode, attempt, result.stderr))
            records = dump(path, tmp)
            window = [r for r in records if r["type"] == "window"]
            check(len(window) == 1 and window[0]["trigger"] == "duration" and window[0].get("partial"),
                  "%s: window records %s" % (mode, window))
            kernels = [r for r in records if r["type"] == "kernel"]
            truth_kernels = [t for t in truth if t["type"] == "kernel"]
            check(len(kernels) == len(truth_kernels), "%s: %d kernels in the file, %d in the truth"
                  % (mode, len(kernels), len(truth_kernels)))


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-cuda-"))
