"""simcuda's truth log against a capture, for every runner that records a
simcuda app under the agent: the kernel durations the apps are run with,
recording an app with its truth log, and the comparisons (every GPU
operation and API call of the truth once, at its time; the hooks' calls;
event-timed GPU work). Programs are run through harness.
"""
import collections
import json
import os
import re

import harness
from harness import ARGS, Failure, app_path, check, dump, preload, run  # noqa: F401 (the runners' helpers, as cuda.*)


# Distinct durations per kernel, so that a mix-up shows (as simcuda's own tests).
KERNEL_NS = {
    "tiny_kernel": 3000, "produce_kernel": 300000, "consume_kernel": 200000,
    "graph_step_a": 40000, "graph_step_b": 60000, "forward_kernel": 150000,
    "backward_kernel": 250000, "optimizer_kernel": 50000, "symbolized_kernel": 7000,
    "driver_scale_kernel": 11000, "driver_reduce_kernel": 13000, "worker_kernel": 5000,
    "queued_kernel": 200000, "before_host_kernel": 20000, "after_host_kernel": 21000,
    "touch_kernel": 30000, "main_kernel": 4000, "long_kernel": 300000000, "use_symbols_kernel": 9000, "graph_node_kernel": 17000,
    "capture_fork_kernel": 19000, "driver_extra_kernel": 23000,
    "attributed_kernel": 27000, "cooperative_kernel": 29000, "cluster_kernel": 31000,
    "pool_kernel": 33000, "graph_api_kernel": 35000, "child_kernel": 37000,
    "sample_kernel": 39000, "surface_kernel": 41000, "module_scale_kernel": 43000, "module_fill_kernel": 45000,
    "order_kernel": 47000, "if_body_kernel": 49000, "else_body_kernel": 51000, "while_body_kernel": 53000,
    "branch_a_kernel": 55000, "branch_b_kernel": 57000, "join_kernel": 59000, "setters_kernel": 61000,
    "removed_kernel": 63000,
}
GPU_TYPES = ("kernel", "memcpy", "memset")
# Simulation settings an app needs (as in test/simcuda/tests/check_app.py).
APP_ENV = {"peer_copies": {"SIMCUDA_DEVICES": "2"}, "driver_extras": {"SIMCUDA_DEVICES": "2"},
           "peer_default_copies": {"SIMCUDA_DEVICES": "2"},
           "graph_nodes": {"SIMCUDA_GRAPH_CONDITIONS": "while_body_kernel=1:1:0"}}
LAUNCH_LATENCY_NS = 2000  # simcuda's default SIMCUDA_LAUNCH_LATENCY_NS
# Event timing (agent/capture/hooks/event_timing.cpp): how early the anchor's
# host time may be (kAnchorSlackNs), and float milliseconds' rounding.
ANCHOR_SLACK_NS = 50_000
EVENT_ROUNDING_NS = 1_000


def base_env(simcuda=True):
    """harness.base_env, with this runner's kernel durations on simcuda."""
    env = harness.base_env(simcuda)
    if simcuda:
        env["SIMCUDA_KERNEL_NS"] = ",".join("%s=%d" % kv for kv in KERNEL_NS.items())
    return env


def read_truth(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def record_app(tmp, app, args, extra_env=None, use_preload=True):
    env = base_env()
    env["SIMCUDA_TRUTH"] = os.path.join(tmp, "truth.jsonl")
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    if use_preload:
        preload(env)
    env.update(extra_env or {})
    result = run([app_path(app)] + args, env=env, cwd=tmp)
    check(result.returncode == 0, "%s exited %d: %s" % (app, result.returncode, result.stderr))
    return result, read_truth(env["SIMCUDA_TRUTH"]), dump(env["PROF_OUTPUT"], tmp)


def calls_in_flight_at_cuda_start(truth_apis):
    """The agent starts CUDA capture inside the first cuInit (CUDA_INJECTION64_PATH):
    that cuInit and the calls enclosing it began before the agent subscribed."""
    first_init = min((a for a in truth_apis if a["name"] == "cuInit"), key=lambda a: a["start"], default=None)
    if first_init is None:
        return set()
    return {(a["name"], a["corr"]) for a in truth_apis
            if a["tid"] == first_init["tid"] and a["start"] <= first_init["start"] and a["end"] >= first_init["end"]}


def recorded_late_by(truth_call, recorded):
    """(start, end): how much later the agent read its clock than simcuda did,
    both >= 0 on one clock. simcuda reads just before CUPTI's enter and exit
    callbacks, the agent inside them; a hook's wrapper reads around the real
    call, so its start comes before simcuda's."""
    late_start = recorded["start"] - truth_call["start"]
    late_end = recorded["end"] - truth_call["end"]
    return (-late_start if recorded["backend"] == "hooks" else late_start), late_end


def compare_with_truth(truth, records, hooks=True):
    """Every GPU operation and API call of the truth exactly once, same place and time.
    hooks: the agent was preloaded, so its hooks record the calls that start CUDA
    (in flight when CUPTI subscribed); without, those are missing."""
    ops = [t for t in truth if t["type"] in GPU_TYPES]

    # Nodes of one graph launch may start together (independent branches):
    # a kernel is also told by its name, other work by its size.
    def what(o):
        return o["name"] if o["type"] == "kernel" else o["bytes"]
    gpu = collections.defaultdict(list)
    for r in records:
        if r["type"] in GPU_TYPES:
            gpu[(r["type"], r["corr"], r["start"], what(r))].append(r)
    check(sum(len(v) for v in gpu.values()) == len(ops),
          "%d GPU records in the file, %d operations in the truth" % (sum(len(v) for v in gpu.values()), len(ops)))
    for op in ops:
        found = gpu.get((op["type"], op["corr"], op["start"], what(op)), [])
        check(len(found) == 1, "%s %s (corr %d, start %d) found %d times" %
              (op["type"], op.get("name", ""), op["corr"], op["start"], len(found)))
        r = found[0]
        check(r["end"] == op["end"], "%s corr %d: end %d, truth %d" % (op["type"], op["corr"], r["end"], op["end"]))
        check(r["device"] == op["device"] and r["stream"] == op["stream"],
              "%s corr %d: device/stream %d/%d, truth %d/%d" %
              (op["type"], op["corr"], r["device"], r["stream"], op["device"], op["stream"]))
        # Graph work carries its graph's id, conditional bodies theirs (CUPTI's graphId).
        check(r.get("graph", 0) == op["graph"], "%s corr %d: graph %d, truth %d" %
              (op["type"], op["corr"], r.get("graph", 0), op["graph"]))
        if op["type"] == "kernel":
            check(r["name"] == op["name"], "kernel name %s, truth %s" % (r["name"], op["name"]))
        else:
            check(r["bytes"] == op["bytes"], "%s corr %d: %d bytes, truth %d" % (op["type"], op["corr"], r["bytes"], op["bytes"]))

    truth_apis = [t for t in truth if t["type"] == "api"]
    skipped = set() if hooks else calls_in_flight_at_cuda_start(truth_apis)
    if hooks:
        # The first cudaMalloc/cudaFree(0) and its cuInit: in the file once, by the hooks.
        starting = calls_in_flight_at_cuda_start(truth_apis)
        by_hooks = {(r["name"], r["corr"]) for r in records if r["type"] == "api" and r["backend"] == "hooks"}
        check(starting and starting <= by_hooks,
              "calls that start CUDA not recorded by the hooks: %s" % sorted(starting - by_hooks))
    # The hooks give no correlation id (0) to a call that began before CUPTI
    # and whose exit CUPTI did not see either (it ended before CUPTI
    # subscribed): such a call is matched by thread, name and time instead.
    for r in records:
        if r["type"] == "api" and r["corr"] == 0 and r["backend"] == "hooks":
            enclosed = [t for t in truth_apis if t["name"] == r["name"] and t["tid"] == r["tid"]
                        and r["start"] <= t["start"] and t["end"] <= r["end"]]
            check(len(enclosed) == 1, "%s without correlation id matches %d truth calls" % (r["name"], len(enclosed)))
            r["corr"] = enclosed[0]["corr"]
    file_apis = collections.Counter((r["name"], r["corr"]) for r in records if r["type"] == "api")
    want = collections.Counter((a["name"], a["corr"]) for a in truth_apis if (a["name"], a["corr"]) not in skipped)
    missing = want - file_apis
    extra = file_apis - want
    check(not missing, "API calls of the truth missing from the file: %s" % list(missing.items())[:10])
    check(not extra, "API calls in the file not in the truth (or twice): %s" % list(extra.items())[:10])

    # Linked: each GPU operation's correlation id belongs to a recorded launching call.
    api_corrs = {r["corr"] for r in records if r["type"] == "api"}
    unlinked = [op for op in ops if op["corr"] not in api_corrs]
    check(not unlinked, "%d GPU operations have no recorded API call, e.g. %s" % (len(unlinked), unlinked[:1]))

    # API call times equal the truth's up to the callback overhead: simcuda
    # reads its clock just before CUPTI's enter and exit callbacks, the agent
    # inside them (the bound is loose so that a loaded CI machine does not fail it).
    # A runtime call may nest several calls of one name (cudaFuncGetAttributes:
    # a cuFuncGetAttribute per attribute), all with its id: matched in order.
    truth_by_key = collections.defaultdict(list)
    for a in sorted(truth_apis, key=lambda a: a["start"]):
        truth_by_key[(a["name"], a["corr"])].append(a)
    for r in sorted((r for r in records if r["type"] == "api"), key=lambda r: r["start"]):
        t = truth_by_key[(r["name"], r["corr"])].pop(0)
        late_start, late_end = recorded_late_by(t, r)
        check(0 <= late_start < 50_000_000 and 0 <= late_end < 50_000_000,
              "%s corr %d: recorded [%d, %d], truth [%d, %d]" % (r["name"], r["corr"], r["start"], r["end"], t["start"], t["end"]))
    return skipped


MEMORY_TYPES = ("alloc", "free")


def outermost_names(truth):
    """The outermost API call's name of each correlation id of the truth."""
    return {a["corr"]: a["name"] for a in truth if a["type"] == "api" and a["depth"] == 0}


def hooks_see_memory(event, outermost):
    """Whether the hooks alone record a truth memory event: not graph memory
    (allocated and freed by a launch, inside the driver) nor an array's
    (created through a handle, not a pointer), as hooks/memory_events.h says."""
    return event["memory_kind"] != "array" and "GraphLaunch" not in outermost.get(event["corr"], "")


def compare_memory(truth, records, backend):
    """The file's memory records against the truth's allocations and releases.
    cupti: every one once, exactly (CUPTI's MEMORY2 records). hooks: every one
    the hooks can see (hooks_see_memory), same operation, address, size, kind
    and device, at a time inside the driver call that made it, as recorded."""
    outermost = outermost_names(truth)
    want = [t for t in truth if t["type"] in MEMORY_TYPES]
    if backend == "hooks":
        want = [t for t in want if hooks_see_memory(t, outermost)]
    got = [r for r in records if r["type"] == "memory"]
    check(len(got) == len(want), "%s: %d memory records in the file, %d allocations and releases in the truth: "
          "file %s, truth %s" % (backend, len(got), len(want), got[:3], want[:3]))

    def key(operation, address, size, kind, device):
        return (operation, address, size, kind.lower(), device)
    unmatched = collections.defaultdict(list)
    for r in sorted(got, key=lambda r: r["time"]):
        unmatched[key("alloc" if r["operation"] == "allocation" else "free", r["address"], r["bytes"],
                      r["memory_kind"], r["device"])].append(r)
    calls = collections.defaultdict(list)
    for r in records:
        if r["type"] == "api":
            calls[r["corr"]].append(r)
    for t in sorted(want, key=lambda t: t["time"]):
        found = unmatched[key(t["type"], t["address"], t["bytes"], t["memory_kind"], t["device"])]
        check(found, "%s: %s of %d bytes at %#x (%s, corr %d) not in the file" %
              (backend, t["type"], t["bytes"], t["address"], t["memory_kind"], t["corr"]))
        r = found.pop(0)
        if backend == "cupti":
            check(r["corr"] == t["corr"] and r["time"] == t["time"] and r["stream"] == t["stream"],
                  "%s at %#x: corr/time/stream %d/%d/%d, truth %d/%d/%d" % (t["type"], t["address"], r["corr"],
                  r["time"], r["stream"], t["corr"], t["time"], t["stream"]))
            continue
        # The truth's driver call that made it; the file's call of that name
        # with the record's correlation id must enclose the record.
        made_by = [a for a in truth if a["type"] == "api" and a["corr"] == t["corr"] and a["domain"] == "driver"
                   and a["start"] <= t["time"] <= a["end"]]
        check(made_by, "%s at %#x: no driver call of the truth around it" % (t["type"], t["address"]))
        # Without PROF_API=all a driver call made inside a runtime call that
        # describes work (cuMemAlloc_v2 in cudaMalloc) is not recorded: the
        # runtime call stands for it.
        named = [a for a in calls[r["corr"]] if a["name"] == made_by[-1]["name"]]
        around = [a for a in named or calls[r["corr"]] if a["start"] <= r["time"] <= a["end"]]
        check(around, "%s at %#x (%s): time %d outside the recorded calls of its correlation id %d: %s" %
              (t["type"], t["address"], made_by[-1]["name"], r["time"], r["corr"], calls[r["corr"]]))


NAME_GETTERS = {"cuFuncGetName", "cuKernelGetName"}
# The hooks' own question to the driver around an allocation or release they
# record without CUPTI (agent/capture/hooks/memory_events.cpp).
# Before a stream-ordered one while a capture is open, whether its stream is
# capturing.
POINTER_QUERY = "cuPointerGetAttributes"
CAPTURE_QUERY = re.compile(r"^cuStreamIsCapturing(_ptsz)?$")
ALLOCATING = re.compile(r"^cuMem(Alloc|HostAlloc)")
RELEASING = re.compile(r"^cuMemFree")
STREAM_ORDERED = re.compile(r"^cuMem(AllocAsync|AllocFromPoolAsync|FreeAsync)")


def without_agent_calls(calls):
    """`calls` of one thread in start order, less the agent's own: name
    lookups right after a driver launch, the pointer query right after an
    allocation or right before a release."""
    kept = []
    launch_end = None  # of the last driver launch, until another call starts
    allocation_end = None  # likewise, of the last allocation
    for i, call in enumerate(calls):
        if call["name"] in NAME_GETTERS and launch_end is not None and call["start"] >= launch_end:
            continue
        following = calls[i + 1] if i + 1 < len(calls) else None
        if call["name"] == POINTER_QUERY and (
                (allocation_end is not None and call["start"] >= allocation_end) or
                (following is not None and RELEASING.match(following["name"]) and call["end"] <= following["start"])):
            continue
        if CAPTURE_QUERY.match(call["name"]) and following is not None and call["end"] <= following["start"] and (
                STREAM_ORDERED.match(following["name"]) or following["name"] == POINTER_QUERY):
            continue
        launch_end = call["end"] if call["name"].startswith("cuLaunch") else None
        allocation_end = call["end"] if ALLOCATING.match(call["name"]) else None
        kept.append(call)
    return kept


def without_agent_calls_in_truth(truth):
    """The truth less the agent's own calls (without_agent_calls), per thread."""
    threads = collections.defaultdict(list)
    for t in sorted((t for t in truth if t["type"] == "api"), key=lambda t: t["start"]):
        threads[t["tid"]].append(t)
    kept = {id(c) for calls in threads.values() for c in without_agent_calls(calls)}
    return [t for t in truth if t["type"] != "api" or id(t) in kept]


def compare_hooked_calls(truth, records):
    """Hooks without CUPTI: every API call of the truth exactly once, by the
    hooks, in the same order on the same thread, and the recorded interval
    around the truth's (the wrapper's clock reads enclose the real call).
    Correlation ids are the agent's own, so calls are matched by order."""
    def per_thread(calls):
        threads = collections.defaultdict(list)
        for call in sorted(calls, key=lambda c: c["start"]):
            threads[call["tid"]].append(call)
        return threads
    truth_calls = {tid: without_agent_calls(calls)
                   for tid, calls in per_thread(t for t in truth if t["type"] == "api").items()}
    file_calls = per_thread(r for r in records if r["type"] == "api")
    check(truth_calls, "no API calls in the truth")
    check(sorted(truth_calls) == sorted(file_calls),
          "threads: truth %s, file %s" % (sorted(truth_calls), sorted(file_calls)))
    for tid, want in truth_calls.items():
        got = file_calls[tid]
        names_want, names_got = [c["name"] for c in want], [c["name"] for c in got]
        if names_want != names_got:
            first = next(i for i in range(min(len(names_want), len(names_got)) + 1)
                         if i >= len(names_want) or i >= len(names_got) or names_want[i] != names_got[i])
            raise Failure("thread %d: %d calls in the truth, %d in the file; first difference at %d: truth %s, file %s"
                          % (tid, len(want), len(got), first, names_want[first:first + 3], names_got[first:first + 3]))
        for t, r in zip(want, got):
            check(r["backend"] == "hooks", "%s recorded by %s" % (r["name"], r["backend"]))
            check(r["ret"] == t["result"], "%s returned %d, truth %d" % (r["name"], r["ret"], t["result"]))
            # Loose bound: simcuda writes its truth line (under a lock shared by
            # the app's threads) between the call's end and the wrapper's clock
            # read; with 8 threads on a loaded 2-core machine that took 270 ms.
            check(r["start"] <= t["start"] and t["end"] <= r["end"] and r["end"] - r["start"] < t["end"] - t["start"] + 2_000_000_000,
                  "%s: recorded [%d, %d], truth [%d, %d]" % (r["name"], r["start"], r["end"], t["start"], t["end"]))
    # Launches carry the kernel and configuration, as from CUPTI.
    truth_launches = [t for t in truth if t["type"] == "api" and t["depth"] == 0 and t.get("symbol")
                      and "Launch" in t["name"]]
    file_launches = [r for r in records if r["type"] == "api" and "kernel" in r]
    check(sorted(t["symbol"] for t in truth_launches) == sorted(r["kernel"] for r in file_launches),
          "launched kernels differ: truth %d, file %d" % (len(truth_launches), len(file_launches)))


def compare_event_timed(truth, records):
    """event_timed_gpu_work's comparison of a hooks-only run with its truth."""
    for kind in GPU_TYPES:
        want = sorted((t for t in truth if t["type"] == kind and t["graph"] == 0), key=lambda t: t["start"])
        got = sorted((r for r in records if r["type"] == kind), key=lambda r: r["start"])
        check(len(want) == len(got), "%s: %d in the truth, %d in the file" % (kind, len(want), len(got)))
        check(all(r["event_timed"] == 1 for r in got), "%s records not marked event-timed" % kind)
        if kind != "kernel":
            check([t["bytes"] for t in want] == [r["bytes"] for r in got], "%s sizes differ" % kind)
            continue
        check([t["name"] for t in want] == [r["name"] for r in got], "kernel names differ from the truth")
        # The agent's event records around each launch, as the truth has
        # them: the start event's just before the launch's driver call, the
        # end event's just after it, on its thread.
        apis = sorted((a for a in truth if a["type"] == "api"), key=lambda a: a["start"])
        records_by_thread = collections.defaultdict(list)
        for a in apis:
            if a["name"].startswith("cuEventRecord"):
                records_by_thread[a["tid"]].append(a)
        launch_of = {a["corr"]: a for a in apis if a["name"].startswith("cuLaunch")}
        for t, r in zip(want, got):
            truth_ns, ns = t["end"] - t["start"], r["end"] - r["start"]
            launch = launch_of.get(t["corr"])
            check(launch is not None, "%s (corr %d): no launch call in the truth" % (t["name"], t["corr"]))
            thread_records = records_by_thread[launch["tid"]]
            before = [e for e in thread_records if e["end"] <= launch["start"]]
            after = [e for e in thread_records if e["start"] >= launch["end"]]
            check(before and after, "%s (corr %d): no event records around its launch in the truth" %
                  (t["name"], t["corr"]))
            start_record, end_record = before[-1], after[0]
            # A kernel queued behind earlier work starts when that ends, which
            # is when its start event completes: within 1%. On an idle stream
            # the start event completes as it is recorded, and the end event
            # when the kernel ends or as it is recorded, whichever is later:
            # however long a loaded machine or a sanitizer makes the calls
            # between, the truth's own times of those records bound it.
            queued = t["start"] > t["queued"] + LAUNCH_LATENCY_NS
            latest_end = max(t["end"], end_record["end"])
            if truth_ns >= 10_000 and queued:
                # Its end event completes as it ends, or, when the host was
                # held up past that (load, a sanitizer), as the end event is
                # recorded: the truth's time of that record bounds it.
                check(truth_ns - truth_ns / 100 <= ns <= latest_end - t["start"] + truth_ns / 100,
                      "%s (queued): %d ns by events, truth %d, to its end event's record %d ns" %
                      (t["name"], ns, truth_ns, latest_end - t["start"]))
            else:
                check(truth_ns <= ns <= latest_end - start_record["start"] + EVENT_ROUNDING_NS,
                      "%s (idle stream): %d ns by events, truth %d, from its start event's record to its end "
                      "event's %d ns" % (t["name"], ns, truth_ns, latest_end - start_record["start"]))
            # Placed through the anchor event, whose host time is read before
            # it is recorded: early by up to the anchor's slack, never late.
            check(t["end"] - ANCHOR_SLACK_NS - EVENT_ROUNDING_NS <= r["end"] <= latest_end + EVENT_ROUNDING_NS,
                  "%s ends at %d, truth %d, its end event recorded by %d" %
                  (t["name"], r["end"], t["end"], end_record["end"]))
    launch_corrs = {r["corr"] for r in records if r["type"] == "api" and "kernel" in r}
    check(all(r["corr"] in launch_corrs for r in records if r["type"] == "kernel"),
          "event-timed kernels without their launch call")
