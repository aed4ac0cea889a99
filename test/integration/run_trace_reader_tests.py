#!/usr/bin/env python3
"""Our Chrome trace as the tools that read Kineto traces see it, each run for
real on traces of simcuda runs: Holistic Trace Analysis (HTA) and TensorBoard's
PyTorch profiler plugin must give the truth log's GPU times (the plugin's
overview one row per step, driven headless by tb_plugin_report.py);
speedscope must build every lane with the trace's own frame totals, and the
Catapult viewer must put every slice under its parent and keep every flow
(both in headless Chromium, trace_viewers.py); every category, args key and
top-level key our trace shares with real Kineto traces must have their type
and meaning; and every event must end within its parent when read as
doubles, as viewers read it.

The pinned HTA, TensorBoard plugin and reference traces live outside the
repository, in ../shared (next to the checkout, as in CI; PROF_SHARED_DIR
overrides); speedscope and the viewer's polyfill come from npm
(scripts/install_trace_readers.sh). A scenario that needs one of them and
does not find it says so and exits 77 (ctest: skipped). HTA runs under Debian's /usr/bin/python3
(pandas, numpy, networkx, plotly, pydot, psutil, yaml from scripts/bootstrap.sh);
this script needs only the standard library.

One scenario per invocation; the recording helpers are simcuda_truth.py's.
"""
import collections
import glob
import gzip
import json
import os
import re
import subprocess
import sys

import harness
import simcuda_truth as cuda
from harness import ARGS, Skipped, check, main

DEBIAN_PYTHON = "/usr/bin/python3"
GPU_TYPES = cuda.GPU_TYPES


def shared_dir():
    if os.environ.get("PROF_SHARED_DIR"):
        return os.environ["PROF_SHARED_DIR"]
    return os.path.normpath(os.path.join(ARGS.source_dir, "..", "shared"))


# --- recording and tracing ---------------------------------------------------

def record(tmp, app, args=(), extra_env=None, name="run"):
    """Runs app under the agent on simcuda; returns (truth, capture path)."""
    sub = os.path.join(tmp, name)
    os.makedirs(sub, exist_ok=True)
    _, truth, _ = cuda.record_app(sub, app, list(args), extra_env)
    return truth, os.path.join(sub, "run.pb")


def trace(capture, output, *options):
    result = cuda.run([ARGS.analyzer, "trace", capture, "-o", output, *options],
                      env=cuda.base_env(False), cwd=os.path.dirname(output))
    check(result.returncode == 0, "trace failed: " + result.stderr)
    doc = load_json(output)
    # What trace says it wrote is what the file holds (it counted neither
    # metadata nor flow events: "671 events" for a file of 901).
    said = [line for line in result.stdout.splitlines() if line.startswith(output + ": ")]
    check(said == ["%s: %d events" % (output, len(doc["traceEvents"]))],
          "trace said %s of a file of %d events" % (said, len(doc["traceEvents"])))
    return doc


def load_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def events(doc, ph=None, cat=None):
    return [e for e in doc["traceEvents"] if (ph is None or e.get("ph") == ph) and (cat is None or e.get("cat") == cat)]


def ns(us):
    """A trace time (microseconds with nanosecond decimals) back in ns."""
    return round(us * 1000)


GPU_CATEGORIES = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}


def trace_origin_ns(doc, truth):
    """The truth's clock at the trace's ts 0: each GPU operation's truth
    start minus its ts, the same for every one or the trace moved them."""
    starts = collections.defaultdict(list)
    for op in truth:
        if op["type"] in GPU_TYPES:
            starts[(op["type"], op["corr"], op["device"], op["stream"])].append(op["start"])
    offsets = set()
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in GPU_CATEGORIES:
            a = e["args"]
            candidates = starts.get((GPU_CATEGORIES[e["cat"]], a["correlation"], a["device"], a["stream"]), [])
            check(candidates, "%s %s has no operation in the truth" % (e["cat"], e["name"]))
            # A graph launch runs several operations under one id: the nearest.
            offsets.add(min((s - ns(e["ts"]) for s in candidates), key=lambda d: abs(d - min(offsets, default=d))))
    check(len(offsets) == 1, "GPU work is not shifted by one offset against the truth: %s" % sorted(offsets)[:5])
    return offsets.pop()


# --- HTA ---------------------------------------------------------------------

def hta_python_path():
    """PYTHONPATH for HTA: the pinned copy, or "" for an installed hta; None when neither."""
    pinned = os.path.join(shared_dir(), "third_party", "hta")
    if os.path.isdir(os.path.join(pinned, "hta")):
        return pinned
    probe = subprocess.run([DEBIAN_PYTHON, "-c", "import hta"], capture_output=True)
    return "" if probe.returncode == 0 else None


def run_hta(trace_dir):
    path = hta_python_path()
    if path is None:
        raise Skipped("HTA not found: neither %s nor an installed `hta` package" %
                      os.path.join(shared_dir(), "third_party", "hta"))
    env = dict(os.environ)
    env["PYTHONPATH"] = path
    env.pop("HTA_DISABLE_NS_ROUNDING", None)  # as users run it
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hta_report.py")
    result = subprocess.run([DEBIAN_PYTHON, script, trace_dir], env=env, capture_output=True, text=True,
                            timeout=300)
    check(result.returncode == 0, "HTA failed on our trace (Debian's python3-pandas, -numpy, -networkx, "
          "-plotly, -pydot, -psutil, -yaml installed? scripts/bootstrap.sh does):\n" + result.stderr[-3000:])
    return json.loads(result.stdout)


def ceil_div(a, b):
    return -((-a) // b)


class HtaView:
    """What HTA must see in a trace of one simcuda run, from the truth log and
    HTA's documented rules: ns-resolution times rounded inwards to whole
    microseconds (start up, end down); with two or more ProfilerStep ranges,
    only GPU work whose launching call started before the last step did. HTA
    takes the last step's start from every event it counts as a CPU
    operation (no stream or no correlation), the step's GPU span included."""

    def __init__(self, truth, doc):
        self.origin = trace_origin_ns(doc, truth)
        steps = [e for e in events(doc, "X") if e["name"].startswith("ProfilerStep#") and
                 not ("stream" in e.get("args", {}) and "correlation" in e.get("args", {}))]
        calls = {}
        for a in truth:
            if a["type"] == "api" and a["depth"] == 0:
                calls[a["corr"]] = a
        self.calls = calls
        # The launching calls' times as the trace has them (HTA filters on
        # those, and tells a host wait by them): of a runtime call and the
        # driver call in it, the outer one's.
        call_us = {}
        for e in doc["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"):
                corr, start_us = e["args"]["correlation"], ceil_div(ns(e["ts"]), 1000)
                call_us[corr] = min(call_us.get(corr, start_us), start_us)
        self.call_us = call_us
        last_step_us = max(ceil_div(ns(e["ts"]), 1000) for e in steps) if len({e["name"] for e in steps}) >= 2 else None
        ops = [op for op in truth if op["type"] in GPU_TYPES]
        if last_step_us is not None:
            ops = [op for op in ops if op["corr"] in call_us and call_us[op["corr"]] < last_step_us]
        self.ops = ops

    def us_up(self, t):
        return ceil_div(t - self.origin, 1000)

    def us_down(self, t):
        return (t - self.origin) // 1000

    def interval(self, op):
        return self.us_up(op["start"]), self.us_down(op["end"])

    @staticmethod
    def union(intervals):
        merged = []
        for s, e in sorted(intervals):
            if merged and s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        return merged

    def kernel_sums(self):
        sums = collections.Counter()
        for op in self.ops:
            s, e = self.interval(op)
            sums[kernel_key(op)] += e - s
        return sums

    def temporal(self, sync_intervals):
        """idle, compute, non-compute and kernel time: HTA's temporal breakdown."""
        everything = [self.interval(op) for op in self.ops] + sync_intervals
        merged = self.union(everything)
        span = merged[-1][1] - merged[0][0]
        busy = sum(e - s for s, e in merged)
        compute = sum(e - s for s, e in self.union(self.interval(op) for op in self.ops if op["type"] == "kernel"))
        return {"idle": span - busy, "compute": compute, "non_compute": span - compute - (span - busy),
                "kernel": span}

    def idle(self, consecutive_kernel_delay=30):
        """Per stream: the gaps between its operations, by HTA's categories."""
        result = collections.defaultdict(collections.Counter)
        per_stream = collections.defaultdict(list)
        for op in self.ops:
            per_stream[op["stream"]].append(op)
        for stream, ops in per_stream.items():
            ops.sort(key=lambda op: self.interval(op))
            for prev, op in zip(ops, ops[1:]):
                gap = self.interval(op)[0] - self.interval(prev)[1]
                # As recorded, not the truth's: the agent's clock read and
                # simcuda's are apart by the callback's or wrapper's work,
                # which a gap of a microsecond or so can fall on either side of.
                launched = self.call_us[op["corr"]]
                if launched > self.interval(prev)[1]:
                    result[stream]["host_wait"] += gap
                elif gap < consecutive_kernel_delay:
                    result[stream]["kernel_wait"] += gap
                else:
                    result[stream]["other"] += gap
        return result


def kernel_key(op):
    if op["type"] == "kernel":
        for name in cuda.KERNEL_NS:
            if name in op["name"]:
                return name
        return op["name"]
    return "Memcpy " + op["copy_kind"] if op["type"] == "memcpy" else "Memset"


def hta_kernel_key(name):
    for kernel in cuda.KERNEL_NS:
        if name.startswith(kernel + "("):
            return kernel
    for kind in ("HtoD", "DtoH", "DtoD", "HtoH"):
        if name.startswith("Memcpy " + kind):
            return "Memcpy " + kind
    return "Memset" if name.startswith("Memset") else name


def hta_matches_truth(tmp, app="nvtx_training", *args):
    truth, capture = record(tmp, app, args)
    trace_dir = os.path.join(tmp, "traces")
    os.mkdir(trace_dir)
    doc = trace(capture, os.path.join(trace_dir, "run.pt.trace.json"))
    view = HtaView(truth, doc)
    hta = run_hta(trace_dir)
    check(hta["ranks"] == [0], "HTA ranks: %s" % hta["ranks"])

    # Kernel breakdown: each kernel (and copy kind) once, with the truth's time.
    got = collections.Counter()
    for row in hta["kernels"]:
        got[hta_kernel_key(row["name"])] += row["sum"]
    want = view.kernel_sums()
    check(dict(got) == dict(want), "HTA kernel breakdown (us) %s, truth %s" % (dict(got), dict(want)))

    # Temporal breakdown. HTA counts synchronisations Kineto places on a
    # stream (stream sync, stream wait event) as GPU time, so they are part
    # of what it must see.
    syncs = [e for e in events(doc, "X", "cuda_sync") if e["args"]["stream"] >= 0 and
             e["args"]["correlation"] in {op["corr"] for op in view.ops} | set(view.calls)]
    sync_intervals = [(ceil_div(ns(e["ts"]), 1000), (ns(e["ts"]) + ns(e["dur"])) // 1000) for e in syncs
                      if ns(e["ts"]) + view.origin < max(op["end"] for op in view.ops)]
    temporal = hta["temporal"][0]
    want_t = view.temporal(sync_intervals)
    for key, value in want_t.items():
        check(temporal[key] == value, "HTA temporal breakdown %s: %s us, truth %s us (all: %s, truth %s)" %
              (key, temporal[key], value, temporal, want_t))

    # Idle time per stream by category: no negative time, the truth's gaps.
    got_idle = collections.defaultdict(collections.Counter)
    for row in hta["idle"]:
        check(row["time"] >= 0, "HTA idle time breakdown has negative %s on stream %d: %s" %
              (row["category"], row["stream"], row["time"]))
        got_idle[row["stream"]][row["category"]] += row["time"]
    for stream, categories in view.idle().items():
        for category, value in categories.items():
            check(got_idle[stream][category] == value, "HTA idle %s on stream %d: %s us, truth %s us" %
                  (category, stream, got_idle[stream][category], value))
        check(sum(got_idle[stream].values()) == sum(categories.values()),
              "HTA idle time on stream %d: %s, truth %s" % (stream, dict(got_idle[stream]), dict(categories)))



# What HTA takes for launches (by name).
HTA_LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync")


def hta_launch_stats_populated(tmp):
    """Launch statistics pair each kernel launch and async copy with its GPU
    work; queue lengths are measured on every stream they ran on."""
    for app, args in (("nvtx_training", []), ("copies", [])):
        truth, capture = record(tmp, app, args, name=app)
        trace_dir = os.path.join(tmp, app + "-traces")
        os.mkdir(trace_dir)
        doc = trace(capture, os.path.join(trace_dir, "run.pt.trace.json"))
        view = HtaView(truth, doc)
        hta = run_hta(trace_dir)
        names = {a["corr"]: a["name"] for a in truth if a["type"] == "api" and a["depth"] == 0}
        launched = {op["corr"]: op for op in view.ops if names.get(op["corr"]) in HTA_LAUNCHES}
        check(launched, "%s made no launches or async copies" % app)
        got = {int(r["correlation"]): r for r in hta["launch_stats"].get("0", [])}
        check(set(got) == set(launched), "%s: HTA launch statistics for correlations %s, truth %s" %
              (app, sorted(got), sorted(launched)))
        for corr, op in launched.items():
            s, e = view.interval(op)
            check(got[corr]["gpu_duration"] == e - s, "%s launch %d: GPU duration %s, truth %s" %
                  (app, corr, got[corr]["gpu_duration"], e - s))
        streams = {op["stream"] for op in launched.values()}
        queues = {row["stream"]: row for row in hta["queue_length"]}
        check(streams <= set(queues) and all(queues[s]["count"] > 0 for s in streams),
              "%s: HTA queue length summary lacks streams %s: %s" % (app, streams, hta["queue_length"]))


def hta_loads_two_ranks(tmp):
    trace_dir = os.path.join(tmp, "traces")
    os.mkdir(trace_dir)
    totals = {}
    for rank in (0, 1):
        truth, capture = record(tmp, "tiny_kernels", ["20"], {"RANK": str(rank), "WORLD_SIZE": "2"},
                                name="rank%d" % rank)
        doc = trace(capture, os.path.join(trace_dir, "rank%d.pt.trace.json" % rank))
        check(doc["distributedInfo"]["rank"] == rank and doc["distributedInfo"]["world_size"] == 2,
              "distributedInfo: %s" % doc["distributedInfo"])
        totals[rank] = sum(HtaView(truth, doc).kernel_sums().values())
    hta = run_hta(trace_dir)
    check(hta["ranks"] == [0, 1], "HTA loaded ranks %s from two captures with RANK=0 and RANK=1" % hta["ranks"])
    for rank in (0, 1):
        got = sum(r["sum"] for r in hta["kernels"] if r["rank"] == rank)
        check(got == totals[rank], "rank %d: HTA kernel time %s us, truth %s" % (rank, got, totals[rank]))


# --- structure against real Kineto traces -------------------------------------

def json_type(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return type(value).__name__


def type_fits(ours, theirs):
    # Kineto prints a double that happens to be whole without decimals.
    return ours <= theirs or ("float" in theirs and ours <= theirs | {"int"})


def shape(doc):
    """(ph, cat) -> {args key: {types}}, and the same for metadata by name."""
    keys = collections.defaultdict(lambda: collections.defaultdict(set))
    for e in doc["traceEvents"]:
        kind = (e.get("ph"), e.get("name") if e.get("ph") == "M" else e.get("cat"))
        keys[kind]["<event>"]  # present
        for k, v in (e.get("args") or {}).items():
            keys[kind][k].add(json_type(v))
    return keys


def reference_traces():
    directory = os.path.join(shared_dir(), "reference-traces")
    paths = sorted(glob.glob(os.path.join(directory, "*.json*")))
    if not paths:
        raise Skipped("no reference Kineto traces in " + directory)
    return [load_json(p) for p in paths]


def trace_matches_kineto_reference(tmp):
    references = reference_traces()
    docs = []
    truths = []
    for app, args in (("nvtx_training", []), ("two_streams", []), ("copies", []), ("graph_replay", []),
                      ("malloc_churn", ["5"])):
        truth, capture = record(tmp, app, args, {"PROF_API": "all"}, name=app)
        docs.append(trace(capture, os.path.join(tmp, app + ".pt.trace.json")))
        truths.append(truth)

    # Top-level keys: the same types; deviceProperties with every key Kineto writes.
    for ref in references:
        for key in set(ref) & set(docs[0]):
            check(json_type(ref[key]) == json_type(docs[0][key]),
                  "top-level %s: %s, Kineto %s" % (key, json_type(docs[0][key]), json_type(ref[key])))
        for prop, value in ref["deviceProperties"][0].items():
            ours = docs[0]["deviceProperties"][0]
            check(prop in ours, "deviceProperties lacks %s" % prop)
            check(json_type(ours[prop]) == json_type(value),
                  "deviceProperties %s: %s, Kineto %s" % (prop, json_type(ours[prop]), json_type(value)))
        check(set(ref["distributedInfo"]) <= set(docs[0]["distributedInfo"]),
              "distributedInfo %s lacks Kineto's %s" % (docs[0]["distributedInfo"], ref["distributedInfo"]))

    # Shared categories and args keys: the same types.
    theirs = collections.defaultdict(lambda: collections.defaultdict(set))
    for ref in references:
        for kind, keys in shape(ref).items():
            for k, types in keys.items():
                theirs[kind][k] |= types
    ours = collections.defaultdict(lambda: collections.defaultdict(set))
    for doc in docs:
        for kind, keys in shape(doc).items():
            for k, types in keys.items():
                ours[kind][k] |= types
    shared = set(theirs) & set(ours)
    for kind in (("X", "kernel"), ("X", "gpu_memcpy"), ("X", "gpu_memset"), ("X", "cuda_runtime"),
                 ("X", "cuda_sync"), ("X", "user_annotation"), ("s", "ac2g"), ("f", "ac2g")):
        check(kind in ours, "our traces have no %s %s events" % kind)
    for kind in shared:
        for key in set(theirs[kind]) & set(ours[kind]):
            check(type_fits(ours[kind][key], theirs[kind][key]), "%s %s args %r: %s, Kineto %s" %
                  (kind[0], kind[1], key, sorted(ours[kind][key]), sorted(theirs[kind][key])))
    # Keys Kineto always writes on these categories, which readers look up.
    for kind, keys in ((("X", "kernel"), ("device", "context", "stream", "correlation", "queued",
                                          "registers per thread", "shared memory", "blocks per SM",
                                          "warps per SM", "grid", "block", "est. achieved occupancy %")),
                       (("X", "gpu_memcpy"), ("device", "context", "stream", "correlation", "bytes",
                                              "memory bandwidth (GB/s)")),
                       (("X", "gpu_memset"), ("device", "context", "stream", "correlation", "bytes",
                                              "memory bandwidth (GB/s)")),
                       (("X", "cuda_runtime"), ("cbid", "correlation")),
                       (("X", "cuda_sync"), ("cuda_sync_kind", "stream", "correlation", "device", "context"))):
        missing = set(keys) - set(ours[kind])
        check(not missing, "%s %s events lack %s" % (kind[0], kind[1], sorted(missing)))

    for doc, truth in zip(docs, truths):
        check_meaning(doc, truth)


def check_meaning(doc, truth):
    """The values mean what Kineto's do, checked against the truth log."""
    calls = {(a["name"], a["corr"]): a for a in truth if a["type"] == "api"}
    ops = {(op["corr"], op["start"]): op for op in truth if op["type"] in GPU_TYPES}
    origin = trace_origin_ns(doc, truth) if events(doc, "X", "kernel") else None
    check(isinstance(doc["distributedInfo"].get("rank"), int), "no rank in distributedInfo")

    for e in events(doc, "X", "cuda_runtime"):
        a = calls.get((e["name"], e["args"]["correlation"]))
        check(a is not None and a["domain"] == "runtime", "cuda_runtime %s corr %d is no runtime call of the truth" %
              (e["name"], e["args"]["correlation"]))
        check(e["args"]["cbid"] == a["cbid"], "%s: cbid %d, CUPTI's %d" % (e["name"], e["args"]["cbid"], a["cbid"]))
    # Readers join GPU work to the CPU side on correlation: one CPU event per id.
    cpu_corr = collections.Counter(e["args"]["correlation"] for e in doc["traceEvents"]
                                   if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver"))
    twice = [c for c, n in cpu_corr.items() if n > 1]
    check(not twice, "correlation ids on more than one CPU event (readers count their GPU work again): %s" % twice[:5])
    for e in events(doc, "X", "cuda_driver"):
        a = calls.get((e["name"], e["args"]["correlation"]))
        check(a is not None and a["domain"] == "driver" and e["args"]["cbid"] == a["cbid"],
              "cuda_driver %s is no driver call of the truth with that cbid" % e["name"])

    if origin is not None:
        for e in doc["traceEvents"]:
            if e.get("ph") != "X" or e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
                continue
            args = e["args"]
            op = ops.get((args["correlation"], ns(e["ts"]) + origin))
            check(op is not None, "%s %s at %s is no operation of the truth" % (e["cat"], e["name"], e["ts"]))
            check(args["device"] == op["device"] and args["stream"] == op["stream"] and
                  args["context"] == op["context"], "%s: device/stream/context differ from the truth" % e["name"])
            check(e["pid"] == op["device"] and e["tid"] == op["stream"], "%s not on its device's stream row" % e["name"])
            if op["graph"]:
                check(args.get("graph id") == op["graph"] and
                      (e["cat"] != "kernel" or args.get("graph node id") == op["graph_node"]),
                      "%s from graph %d node %d: args %s" % (e["name"], op["graph"], op["graph_node"], args))
            if e["cat"] == "kernel":
                check(args["grid"] == op["grid"] and args["block"] == op["block"], "grid/block differ")
                check(0 <= args["est. achieved occupancy %"] <= 100, "occupancy %s" % args)
            else:
                check(args["bytes"] == op["bytes"], "bytes differ")
                dur = ns(e["dur"])
                if dur:
                    check(abs(args["memory bandwidth (GB/s)"] - op["bytes"] / dur) < 1e-3 * max(1, op["bytes"] / dur),
                          "bandwidth %s of %d bytes in %d ns" % (args["memory bandwidth (GB/s)"], op["bytes"], dur))

    syncs = [t for t in truth if t["type"] == "sync"]
    kinds = {"context": "Context Sync", "stream": "Stream Sync", "event": "Event Sync",
             "stream_wait_event": "Stream Wait Event"}
    got = collections.Counter((e["args"]["correlation"], e["name"]) for e in events(doc, "X", "cuda_sync"))
    want = collections.Counter((s["corr"], kinds[s["sync_type"]]) for s in syncs)
    check(got == want, "cuda_sync events %s, truth %s" % (sorted(got.items())[:6], sorted(want.items())[:6]))
    for e in events(doc, "X", "cuda_sync"):
        check(e["args"]["cuda_sync_kind"] == e["name"], "cuda_sync_kind differs from the name")
        if e["name"] in ("Context Sync", "Event Sync"):
            check(e["args"]["stream"] == -1, "%s with stream %s (Kineto: -1)" % (e["name"], e["args"]["stream"]))

    starts = collections.Counter(e["id"] for e in events(doc, "s", "ac2g"))
    check(all(n == 1 for n in starts.values()), "ac2g flows started more than once: %s" %
          [i for i, n in starts.items() if n > 1][:5])
    check({e["id"] for e in events(doc, "f", "ac2g")} <= set(starts), "ac2g flow ends without a start")

    annotations = {e["args"]["External id"]: e["name"] for e in events(doc, "X", "user_annotation")
                   if "External id" in e["args"]}
    for e in events(doc, "X", "gpu_user_annotation"):
        check(set(e["args"]) == {"External id"}, "gpu_user_annotation args %s (Kineto: External id only)" % e["args"])
        check(annotations.get(e["args"]["External id"]) == e["name"],
              "gpu_user_annotation %s does not name its range's External id" % e["name"])


# --- nesting as doubles --------------------------------------------------------

def children_end_within_parents(doc):
    """Per row: every "X" event that lies inside another in exact
    nanoseconds (the written decimals) must also end no later than it when
    ts + dur is added in doubles, as viewers add them."""
    rows = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e.get("ph") == "X":
            start = ns(e["ts"])
            rows[(e["pid"], e["tid"])].append((start, start + ns(e["dur"]), e["ts"] + e["dur"], e))
    problems = []
    for row, evs in rows.items():
        evs.sort(key=lambda x: (x[0], -x[1]))
        open_events = []
        for start, end, reader_end, e in evs:
            open_events = [o for o in open_events if o[1] > start or (o[1] == start and end == start)]
            for o in open_events:
                if o[0] <= start and end <= o[1] and reader_end > o[2]:
                    problems.append("%s (ends %r) inside %s (ends %r) on %s" % (e["name"], reader_end, o[3]["name"],
                                                                              o[2], row))
            open_events.append((start, end, reader_end, e))
    return problems


def trace_nests_as_doubles(tmp):
    for app, args in (("nvtx_training", ["20"]), ("graph_replay", []), ("two_streams", [])):
        _, capture = record(tmp, app, args, {"PROF_API": "all"}, name=app)
        doc = trace(capture, os.path.join(tmp, app + ".json"))
        problems = children_end_within_parents(doc)
        check(not problems, "%s: %d events end after their parent: %s" % (app, len(problems), problems[:3]))
        check_gpu_annotations(app, doc)


def check_gpu_annotations(app, doc):
    """Kineto's GPU annotations: one per operation, for its innermost range
    (never a ProfilerStep#), padded 1 ns before and 2 ns after where the
    stream's neighbouring operations leave room, never overlapping them or
    each other."""
    rows = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"):
            start = ns(e["ts"])
            rows[(e["pid"], e["tid"])].append((start, start + ns(e["dur"]), e["cat"], e["name"]))
    count = 0
    for row, evs in rows.items():
        ops = sorted((s, e) for s, e, cat, _ in evs if cat != "gpu_user_annotation")
        spans = sorted((s, e, name) for s, e, cat, name in evs if cat == "gpu_user_annotation")
        count += len(spans)
        for (s, e, name), (s2, _, _) in zip(spans, spans[1:]):
            check(e <= s2, "%s: gpu_user_annotations overlap on %s at %d" % (app, row, s2))
        for s, e, name in spans:
            check(not name.startswith("ProfilerStep#"), "%s: gpu_user_annotation %s" % (app, name))
            held = [(os_, oe) for os_, oe in ops if s <= os_ and oe <= e]
            check(len(held) == 1, "%s: gpu_user_annotation %s [%d, %d] holds %d operations" % (app, name, s, e, len(held)))
            os_, oe = held[0]
            before = max([pe for ps, pe in ops if pe <= os_ and (ps, pe) != (os_, oe)], default=None)
            after = min([ps for ps, pe in ops if ps >= oe and (ps, pe) != (os_, oe)], default=None)
            want_start = max(os_ - 1, before) if before is not None else os_ - 1
            check(want_start <= s <= os_, "%s: %s starts %d ns before its operation" % (app, name, os_ - s))
            want_end = min(oe + 2, after) if after is not None else oe + 2
            check(oe <= e <= want_end, "%s: %s ends %d ns after its operation (next at %s)" % (app, name, e - oe, after))
    return count


def window_files_named_for_tensorboard(tmp):
    _, capture = record(tmp, "nvtx_training", ["12"])
    out = os.path.join(tmp, "tb")
    os.mkdir(out)
    result = cuda.run([ARGS.analyzer, "trace", capture, "-o", os.path.join(out, "run.json.gz"), "--step",
                       "nvtx:^ProfilerStep#", "--wait", "1", "--warmup", "1", "--active", "2"],
                      env=cuda.base_env(False), cwd=tmp)
    check(result.returncode == 0, result.stderr)
    files = sorted(os.listdir(out))
    # Zero-padded: TensorBoard's plugin sorts its spans as strings.
    check(files == ["run.03.pt.trace.json.gz", "run.07.pt.trace.json.gz", "run.11.pt.trace.json.gz"],
          "window files %s (TensorBoard's plugin lists NAME[.SPAN].pt.trace.json[.gz], in step order)" % files)
    for f in files:
        doc = load_json(os.path.join(out, f))
        steps = sorted(e["name"] for e in events(doc, "X", "user_annotation") if e["name"].startswith("ProfilerStep#"))
        check(len(steps) == 2, "%s holds steps %s" % (f, steps))


# --- TensorBoard's PyTorch profiler plugin ------------------------------------

def run_tb_plugin(logdir):
    """The plugin's answers to every route its frontend calls (tb_plugin_report.py)."""
    pinned = os.path.join(shared_dir(), "third_party", "tb_plugin")
    if not os.path.isdir(os.path.join(pinned, "torch_tb_profiler")):
        raise Skipped("TensorBoard's plugin not found at %s" % pinned)
    probe = subprocess.run([DEBIAN_PYTHON, "-c", "import pandas, numpy, werkzeug, absl"], capture_output=True)
    if probe.returncode != 0:
        raise Skipped("the plugin needs Debian's python3-pandas, -numpy, -werkzeug, -absl (scripts/bootstrap.sh)")
    env = dict(os.environ, PYTHONPATH=pinned, TORCH_PROFILER_LOG_LEVEL="ERROR")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tb_plugin_report.py")
    result = subprocess.run([DEBIAN_PYTHON, script, logdir], env=env, capture_output=True, text=True, timeout=240)
    check(result.returncode == 0, "the plugin's driver failed:\n" + result.stdout[-2000:] + result.stderr[-3000:])
    report = json.loads(result.stdout)
    failed = [c for c in report["calls"] if c["status"] != 200]
    check(not failed, "routes not answering 200: %s" % [(c["route"], c["args"], c["status"], c["error"])
                                                        for c in failed][:3])
    check("IndexError" not in result.stderr and "Traceback" not in result.stderr,
          "the plugin failed while loading:\n" + result.stderr[-3000:])
    # A trace the plugin fails on loads as a run with no views.
    for run, answers in report["runs"].items():
        check("Overview" in answers["views"], "run %s loads with views %s:\n%s" % (run, answers["views"],
                                                                                result.stderr[-3000:]))
    return report


def merge(intervals):
    merged = []
    for s, e in sorted(intervals):
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return [tuple(m) for m in merged]


def intersect(a, b):
    out = []
    for s1, e1 in a:
        for s2, e2 in b:
            s, e = max(s1, s2), min(e1, e2)
            if s < e:
                out.append((s, e))
    return merge(out)


def subtract(a, b):
    out = []
    for s, e in a:
        pieces = [(s, e)]
        for bs, be in b:
            pieces = [p for ps, pe in pieces for p in ((ps, min(pe, bs)), (max(ps, be), pe)) if p[0] < p[1]]
        out.extend(pieces)
    return merge(out)


def total(intervals):
    return sum(e - s for s, e in intervals)


def tb_expected_steps(doc, truth):
    """The plugin's overview rows, by its own rules (StepParser,
    OverallParser), from the trace's ProfilerStep# CPU ranges and the truth's
    runtime calls and GPU work (ns on the trace's clock): [(name, step ns,
    kernel ns, memcpy ns)]. A step runs from the later of its CPU start and
    the previous step's end to the later of its CPU end and the end of the GPU
    work launched by the runtime calls inside it; kernel time is the kernels'
    union within it, memcpy time the copies' union outside kernels. The host
    side (steps, runtime calls) is the trace's, the GPU side the truth's."""
    origin = trace_origin_ns(doc, truth)
    steps = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["name"]) for e in events(doc, "X", "user_annotation")
                   if e["name"].startswith("ProfilerStep#"))
    # The runtime calls as the plugin sees them: the trace's (the agent's
    # own clock readings of a call differ from simcuda's by a few hundred ns).
    calls = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e["args"]["correlation"]) for e in events(doc, "X", "cuda_runtime")]
    ops = [op for op in truth if op["type"] in GPU_TYPES]
    by_corr = collections.defaultdict(list)
    for op in ops:
        by_corr[op["corr"]].append((op["start"] - origin, op["end"] - origin))
    device = []
    matched = set()
    for start, end, _ in steps:
        inside = [corr for call_start, call_end, corr in calls if start <= call_start and call_end <= end]
        work = [w for corr in inside for w in by_corr.get(corr, [])]
        matched |= set(w for w in work)
        device.append((min(s for s, _ in work), max(e for _, e in work)) if work else None)
    prev_end = steps[0][0]
    if device[0] is not None:
        for op in ops:
            w = (op["start"] - origin, op["end"] - origin)
            if w not in matched and w[1] < device[0][0]:
                prev_end = max(prev_end, w[1])
    ranges = []
    for (start, end, name), dev in zip(steps, device):
        s = max(prev_end, start)
        e = max(end, dev[1]) if dev else max(end, s)
        ranges.append((s, e, name))
        prev_end = e
    kernels = merge((op["start"] - origin, op["end"] - origin) for op in ops if op["type"] == "kernel")
    slots = subtract(merge((s, e) for s, e, _ in ranges), kernels)
    copies = intersect(slots, merge((op["start"] - origin, op["end"] - origin) for op in ops if op["type"] == "memcpy"))
    return [(name[len("ProfilerStep#"):], e - s, total(intersect([(s, e)], kernels)), total(intersect([(s, e)], copies)))
            for s, e, name in ranges]


def tb_overview_rows(report, run_name=None):
    """[(step name, step us, kernel us, memcpy us)] of the plugin's overview of one run."""
    run = report["runs"][run_name] if run_name else next(iter(report["runs"].values()))
    rows = []
    for answers in run["spans"].values():
        overview = answers.get("/overview")
        if overview:
            columns = [c.get("name") for c in overview["steps"]["columns"]]
            for row in overview["steps"]["rows"]:
                values = dict(zip(columns, row))
                parts = [values.get(k) or 0 for k in ("Kernel", "Memcpy", "Memset", "Runtime", "DataLoader",
                                                       "CPU Exec", "Other")]
                rows.append((row[0], sum(parts), values.get("Kernel", 0), values.get("Memcpy", 0)))
    return rows


def close_us(got_us, want_ns):
    return abs(got_us * 1000 - want_ns) < 0.5


def check_overview(got, want, what):
    check([g[0] for g in got] == [w[0] for w in want], "%s: overview step rows %s, the program's steps %s" %
          (what, [g[0] for g in got], [w[0] for w in want]))
    for g, w in zip(got, want):
        check(all(close_us(a, b) for a, b in zip(g[1:], w[1:])),
              "%s: step %s: step time, kernel, memcpy %s us, truth %s us" % (what, g[0], g[1:],
                                                                           tuple(x / 1000 for x in w[1:])))


def tensorboard_overview_matches_truth(tmp):
    truth, capture = record(tmp, "nvtx_training", ["5"])
    logdir = os.path.join(tmp, "tb")
    os.makedirs(os.path.join(logdir, "run"))
    doc = trace(capture, os.path.join(logdir, "run", "worker0.pt.trace.json"))
    report = run_tb_plugin(logdir)
    want = tb_expected_steps(doc, truth)
    check(len(want) == 5, "nvtx_training 5 marks %d steps" % len(want))
    check_overview(tb_overview_rows(report), want, "nvtx_training")

    # The kernel view: each kernel's calls and time as the truth has them.
    (run,) = report["runs"].values()
    check("Kernel" in run["views"], "no kernel view: %s" % run["views"])
    (answers,) = [a for a in run["spans"].values() if "/kernel/table?Kernel" in a]
    table = answers["/kernel/table?Kernel"]["data"]
    columns = [c["name"] for c in table["columns"]]
    got = {}
    for row in table["rows"]:
        values = dict(zip(columns, row))
        got[hta_kernel_key(values["Name"])] = (values["Calls"], values["Total Duration (us)"])
    want_k = collections.defaultdict(lambda: [0, 0])
    for op in truth:
        if op["type"] == "kernel":
            want_k[kernel_key(op)][0] += 1
            want_k[kernel_key(op)][1] += op["end"] - op["start"]
    check(set(got) == set(want_k), "kernel view kernels %s, truth %s" % (sorted(got), sorted(want_k)))
    # The table shows whole microseconds (round()); the pie the exact sums.
    pie = {hta_kernel_key(row[0]): row[1] for row in answers["/kernel?Kernel"]["total"]["rows"]}
    for name, (calls, duration) in want_k.items():
        check(close_us(pie.get(name, -1), duration), "kernel view pie %s: %s us, truth %s us" %
              (name, pie.get(name), duration / 1000))
        check(got[name][0] == calls and abs(got[name][1] - duration / 1000) <= 0.5,
              "kernel view %s: %s calls, %s us; truth %d calls, %s us" % (name, got[name][0], got[name][1], calls,
                                                                         duration / 1000))


def tensorboard_steps_from_step_rule(tmp):
    """A program that marks no steps: --step finds them and the trace carries
    them as ProfilerStep#N, one overview row each; without --step, one step
    over the whole run, never a negative or empty one. One plugin, three runs."""
    truth, capture = record(tmp, "tiny_kernels", ["40"])
    logdir = os.path.join(tmp, "tb")
    docs = {}
    for run, options in (("api", ["--step", "api:cudaLaunchKernel"]), ("auto", ["--step", "auto"]), ("none", [])):
        os.makedirs(os.path.join(logdir, run))
        docs[run] = trace(capture, os.path.join(logdir, run, "worker0.pt.trace.json"), *options)
    report = run_tb_plugin(logdir)
    for run in ("api", "auto"):
        steps = [e for e in events(docs[run], "X", "user_annotation") if e["name"].startswith("ProfilerStep#")]
        check(len(steps) >= 10, "--step %s: %d ProfilerStep# annotations" % (run, len(steps)))
        want = tb_expected_steps(docs[run], truth)
        got = tb_overview_rows(report, run)
        # The plugin drops a last step it suspects was cut short.
        check(len(want) - 1 <= len(got) <= len(want), "--step %s: %d overview rows for %d steps" %
              (run, len(got), len(want)))
        check_overview(got, want[:len(got)], "--step " + run)

    got = tb_overview_rows(report, "none")
    check(len(got) == 1, "without steps: %d overview rows" % len(got))
    kernels = sum(op["end"] - op["start"] for op in truth if op["type"] == "kernel")
    check(got[0][1] > 0 and close_us(got[0][2], kernels),
          "without steps: step time %s us, kernel %s us (truth's kernels %s us)" % (got[0][1], got[0][2],
                                                                                    kernels / 1000))
    for answers in report["runs"]["none"]["spans"].values():
        if answers.get("/overview"):
            text = json.dumps(answers["/overview"])
            check("-0.0 %" not in text and "-18446744073709" not in text, "overview: %s" % text[:500])


def tensorboard_memory_view_loads(tmp):
    """Pinned host memory ([memory] events of device -1) loads with every view."""
    truth, capture = record(tmp, "async_copy", [])
    logdir = os.path.join(tmp, "tb")
    os.makedirs(os.path.join(logdir, "run"))
    doc = trace(capture, os.path.join(logdir, "run", "worker0.pt.trace.json"))
    report = run_tb_plugin(logdir)
    host = [e for e in doc["traceEvents"] if e.get("name") == "[memory]" and e["args"]["Device Type"] == 0]
    check(host, "async_copy's pinned allocation is no [memory] event")
    check(all(e["args"]["Device Id"] == -1 for e in host), "host [memory] events on device %s (Kineto: -1)" %
          sorted({e["args"]["Device Id"] for e in host}))
    (run,) = report["runs"].values()
    check({"Overview", "Trace", "Memory"} <= set(run["views"]), "views %s" % run["views"])
    (answers,) = [a for a in run["spans"].values() if "/memory_events" in a]
    rows = answers["/memory_events"]["rows"]  # per device: one row per allocation
    want = collections.Counter("CPU" if e["args"]["Device Type"] == 0 else "GPU%d" % e["args"]["Device Id"]
                               for e in doc["traceEvents"] if e.get("name") == "[memory]" and e["args"]["Bytes"] > 0)
    got = collections.Counter({device: len(r) for device, r in rows.items()})
    check(got == want, "memory view: allocations per device %s, the trace's %s" % (dict(got), dict(want)))


def tensorboard_one_rank_per_file(tmp):
    """Two ranks, one trace file each in one run folder: the plugin lists one
    worker per rank, each with its own rank's kernel time. One trace of both
    captures warns that they belong in a file each."""
    logdir = os.path.join(tmp, "tb")
    os.makedirs(os.path.join(logdir, "run"))
    truths, captures = {}, {}
    for rank in (0, 1):
        truths[rank], captures[rank] = record(tmp, "tiny_kernels", ["20"], {"RANK": str(rank), "WORLD_SIZE": "2"},
                                              name="rank%d" % rank)
        trace(captures[rank], os.path.join(logdir, "run", "worker%d.pt.trace.json" % rank))
    report = run_tb_plugin(logdir)
    spans = report["runs"]["run"]["spans"]
    workers = sorted(key.split("/")[0] for key, answers in spans.items() if answers.get("/overview"))
    check(workers == ["worker0", "worker1"], "the plugin's workers: %s" % workers)
    for rank in (0, 1):
        (overview,) = [a["/overview"] for key, a in spans.items() if key.startswith("worker%d/" % rank) and
                       a.get("/overview")]
        rows = tb_overview_rows({"runs": {"r": {"spans": {"s": {"/overview": overview}}}}})
        kernels = sum(op["end"] - op["start"] for op in truths[rank] if op["type"] == "kernel")
        check(close_us(sum(r[2] for r in rows), kernels), "worker%d: kernel time %s us, its truth %s us" %
              (rank, sum(r[2] for r in rows), kernels / 1000))
    both = cuda.run([ARGS.analyzer, "trace", captures[0], captures[1], "-o", os.path.join(tmp, "both.json")],
                    env=cuda.base_env(False), cwd=tmp)
    check(both.returncode == 0 and "one rank per file" in both.stderr,
          "a trace of two ranks does not say to write one per file: %r" % both.stderr)


# --- speedscope ----------------------------------------------------------------

def need_viewers(what):
    import devtools_pipe
    import trace_viewers
    if devtools_pipe.find_chromium() is None:
        raise Skipped("no chromium for %s (scripts/bootstrap.sh installs it)" % what)
    if trace_viewers.speedscope_page() is None or trace_viewers.polyfill_path() is None:
        raise Skipped("%s not installed in %s: run scripts/install_trace_readers.sh" % (what, trace_viewers.readers_dir()))
    return trace_viewers


LANE = re.compile(r"pid (-?\d+)\)?.*tid (-?\d+)")


def lane_totals(doc):
    """(pid, tid) -> {name: total ns} of the trace's own "X" intervals, each
    as a reader computes its end (ts + dur in doubles), in whole ns."""
    lanes = collections.defaultdict(collections.Counter)
    for e in events(doc, "X"):
        lanes[(e["pid"], e["tid"])][e["name"]] += round((e["ts"] + e["dur"]) * 1000) - round(e["ts"] * 1000)
    return lanes


def speedscope_matches_trace(tmp):
    viewers = need_viewers("speedscope")
    docs = {}
    for app, args, env in (("nvtx_training", ["5"], {}), ("graph_replay", [], {}), ("two_streams", [], {})):
        _, capture = record(tmp, app, args, env, name=app)
        path = os.path.join(tmp, app + ".json")
        docs[app] = (path, trace(capture, path))
    for rank in (0, 1):
        _, capture = record(tmp, "tiny_kernels", ["20"], {"RANK": str(rank), "WORLD_SIZE": "2"}, name="rank%d" % rank)
        path = os.path.join(tmp, "rank%d.json" % rank)
        docs["rank %d" % rank] = (path, trace(capture, path))
    with viewers.Chromium() as browser:
        for what, (path, doc) in docs.items():
            lanes = browser.speedscope_lanes(path)
            want = lane_totals(doc)
            got = {}
            for name, intervals in lanes.items():
                m = LANE.search(name)
                check(m is not None, "%s: speedscope lane %r names no pid and tid" % (what, name))
                totals = collections.Counter()
                for frame, start, end in intervals:
                    totals[frame] += round(end * 1000) - round(start * 1000)
                got[(int(m.group(1)), int(m.group(2)))] = totals
            check(set(got) == set(want), "%s: speedscope lanes %s, the trace's %s" % (what, sorted(got), sorted(want)))
            gpu_lanes = {(e["pid"], e["tid"]) for e in events(doc, "X", "kernel")}
            check(gpu_lanes <= set(got), "%s: GPU lanes missing in speedscope" % what)
            for lane in want:
                wrong = {n: (got[lane][n], t) for n, t in want[lane].items() if got[lane][n] != t}
                check(not wrong, "%s: lane %s: speedscope's frame totals (ns) differ from the trace's "
                      "(speedscope, trace): %s" % (what, lane, dict(list(wrong.items())[:5])))


# --- the Catapult trace viewer ---------------------------------------------------

def catapult_nests_and_keeps_flows(tmp):
    viewers = need_viewers("the Catapult viewer")
    viewer = os.path.join(shared_dir(), "third_party", "tb_plugin", "torch_tb_profiler", "static",
                          "trace_viewer_full.html")
    if not os.path.isfile(viewer):
        raise Skipped("no Catapult viewer at " + viewer)
    docs = {}
    # nvtx_threads: nested ranges on four threads (it exits 3 on purpose).
    sub = os.path.join(tmp, "nvtx_threads")
    os.makedirs(sub)
    env = cuda.preload(dict(cuda.base_env(), PROF_OUTPUT=os.path.join(sub, "run.pb")))
    result = cuda.run([cuda.app_path("nvtx_threads")], env=env, cwd=sub)
    check(result.returncode == 3, "nvtx_threads exited %d: %s" % (result.returncode, result.stderr))
    docs["nvtx_threads"] = trace(os.path.join(sub, "run.pb"), os.path.join(tmp, "nvtx_threads.json"))
    # event_timing (test/gpu): kernels on an idle stream and queued behind a
    # long one, timed by the hooks' CUDA events as CUPTI is refused.
    _, capture = record(tmp, "event_timing", ["3"], {"SIMCUDA_CUPTI": "off"}, name="event_timing")
    docs["event_timing"] = trace(capture, os.path.join(tmp, "event_timing.json"))
    with viewers.Chromium() as browser:
        for what, doc in docs.items():
            model = browser.catapult_model(viewer, json.dumps(doc))
            slices, flows = check_catapult_model(what, doc, model)
            print("%s: %d slices, %d flows, as the trace has them" % (what, slices, flows))


def expected_parents(doc):
    """Per "X" event and thread-scoped instant ("i", s "t": the viewer makes
    it a slice of no duration; the [memory] events are such), by lane, name,
    start ns and end ns: the innermost other event of its lane that holds it
    in exact ns, or None."""
    lanes = collections.defaultdict(list)
    for e in events(doc, "X"):
        start = ns(e["ts"])
        lanes[(e["pid"], e["tid"])].append((start, start + ns(e["dur"]), e["name"]))
    for e in events(doc, "i"):
        if e.get("s") == "t":
            lanes[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]), e["name"]))
    parents = {}
    for lane, evs in lanes.items():
        # Longest first at equal starts, then file order: the order readers nest ties in.
        evs.sort(key=lambda x: (x[0], -x[1]))
        stack = []
        for start, end, name in evs:
            while stack and not (stack[-1][0] <= start and end <= stack[-1][1]):
                stack.pop()
            parents[(lane, name, start, end)] = stack[-1] if stack else None
            stack.append((start, end, name))
    return parents


def check_catapult_model(what, doc, model):
    parents = expected_parents(doc)
    slices = model["slices"]
    # Catapult's times are ms from the trace's earliest event.
    shift = min(ns(e["ts"]) for e in doc["traceEvents"] if e.get("ph") in ("X", "s", "f", "b", "e", "i", "C"))
    check(len(slices) == len(parents), "%s: %d slices in the viewer, %d X and thread instant events in the trace" %
          (what, len(slices), len(parents)))
    wrong = []
    for s in slices:
        key = ((s["pid"], s["tid"]), s["name"], round(s["start_ms"] * 1e6) + shift, round(s["end_ms"] * 1e6) + shift)
        check(key in parents, "%s: slice %s is no event of the trace" % (what, key))
        want = parents[key]
        parent = slices[s["parent"]] if s["parent"] is not None else None
        got = (round(parent["start_ms"] * 1e6) + shift, round(parent["end_ms"] * 1e6) + shift, parent["name"]) \
            if parent else None
        if got != want:
            wrong.append((s["name"], key[2], "under", got, "not", want))
    check(not wrong, "%s: %d of %d slices under a wrong parent in the Catapult viewer: %s" %
          (what, len(wrong), len(slices), wrong[:3]))
    starts = {e["id"] for e in events(doc, "s", "ac2g")}
    flows = [e for e in events(doc, "f", "ac2g") if e["id"] in starts]
    check(flows or not events(doc, "X", "kernel"), "%s: GPU work and no launch flows" % what)
    bound = [f for f in model["flows"] if f["from"] is not None and f["to"] is not None]
    check(len(bound) == len(flows), "%s: %d of %d flows kept by the Catapult viewer (warnings: %s)" %
          (what, len(bound), len(flows), model["warnings"][:3]))
    return len(slices), len(bound)


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-readers-", required=harness.SIMCUDA_OPTIONS + ("--source-dir",)))
