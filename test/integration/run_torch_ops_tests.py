#!/usr/bin/env python3
"""torch's operators as the analyzer shows them, checked against simcuda's
truth log. test/apps/torch_ops writes the NVTX ranges torch's emit_nvtx
writes (several torch versions' formats) around simcuda kernels, copies,
memsets and syncs; each kernel's name says which operator launched it, so
the truth gives every operator's exact GPU time.

Scenarios (one per invocation):
  report_rows_match_truth FORMAT   report: torch's row names, calls, Self
                                   CUDA / CUDA total per operator, shapes,
                                   no driver rows, the modules tree
  driver_calls_fold_into_runtime_calls
                                   report --driver-calls: rows of their own
                                   under PROF_API=all, folded without it; a
                                   note where the file holds none
  trace_ops_match_truth FORMAT     trace: cpu_op events with Kineto's args,
                                   External id on every GPU op and call,
                                   fwdbwd flows tying backward nodes to
                                   forward ops by seq
  hta_operators_match_truth        HTA's operator-level functions on our
                                   trace: kernels per operator with the
                                   truth's time (skipped without HTA)
  stacks_put_operators_before_the_call
"""
import collections
import json
import os
import subprocess
import sys

import harness
import simcuda_truth as cuda
import run_trace_reader_tests as readers
from harness import Failure, check, main

STEPS = 2
# Distinct durations, so that a kernel counted under the wrong operator shows.
KERNEL_NS = {"addmm_gemm_kernel": 41000, "relu_fwd_kernel": 7000, "mse_loss_kernel": 5000,
             "mse_bwd_kernel": 9000, "mm_gemm_kernel": 33000, "threshold_bwd_kernel": 6000,
             "adamw_kernel": 12000}
# The operator (innermost range) each GPU operation of torch_ops runs under.
KERNEL_OP = {"addmm_gemm_kernel": "aten::addmm", "relu_fwd_kernel": "aten::relu",
             "mse_loss_kernel": "aten::mse_loss", "mse_bwd_kernel": "aten::mse_loss_backward",
             "mm_gemm_kernel": "aten::mm", "threshold_bwd_kernel": "aten::threshold_backward",
             "adamw_kernel": "aten::_fused_adamw_"}
COPY_OP = {"HtoD": "aten::copy_", "DtoH": "aten::_local_scalar_dense"}
# Each operator's enclosing rows, innermost first (for CUDA totals).
ENCLOSING = {
    "aten::addmm": ["aten::linear"],
    "aten::relu": [],
    "aten::mm": ["AddmmBackward0", "autograd::engine::evaluate_function: AddmmBackward0"],
    "aten::mse_loss_backward": ["MseLossBackward0", "autograd::engine::evaluate_function: MseLossBackward0"],
    "aten::threshold_backward": ["ReluBackward0", "autograd::engine::evaluate_function: ReluBackward0"],
    "aten::_fused_adamw_": ["Optimizer.step#AdamW.step"],
    "aten::copy_": ["aten::_to_copy", "aten::to"],
    "aten::_local_scalar_dense": ["aten::item"],
}
BACKWARD_OF = {"AddmmBackward0": "aten::addmm", "MseLossBackward0": "aten::mse_loss", "ReluBackward0": "aten::relu"}
FORMATS = ("2.x", "2.x-noshapes", "1.13", "1.13-noshapes")


def op_of(gpu_op):
    """The operator row a truth GPU operation belongs to."""
    if gpu_op["type"] == "kernel":
        for kernel, op in KERNEL_OP.items():
            if kernel in gpu_op["name"]:
                return op
        raise Failure("unexpected kernel " + gpu_op["name"])
    if gpu_op["type"] == "memset":
        return "aten::fill_"
    return COPY_OP[gpu_op["copy_kind"]]


def record(tmp, fmt, extra_env=None, folder=None):
    cuda.KERNEL_NS.update(KERNEL_NS)
    sub = os.path.join(tmp, folder or fmt)
    os.makedirs(sub, exist_ok=True)
    _, truth, _ = cuda.record_app(sub, "torch_ops", [str(STEPS), fmt], extra_env or {})
    return truth, os.path.join(sub, "run.pb")


def analyze(*args):
    return harness.analyze(args)


def report_rows(capture, *options):
    doc = json.loads(analyze("report", capture, "--format", "json", "--row-limit", "-1", *options))
    return doc["windows"][0]["rows"]


def truth_gpu(truth):
    return [t for t in truth if t["type"] in cuda.GPU_TYPES]


def report_rows_match_truth(tmp, fmt="2.x"):
    truth, capture = record(tmp, fmt)
    rows = report_rows(capture)
    by_name = {}
    for r in rows:
        if not r["is_gpu"]:
            check(r["name"] not in by_name, "two rows named %s" % r["name"])
            by_name[r["name"]] = r
    for r in rows:
        for tail in (", seq =", ", op_id =", ", sizes =", "input_op_ids"):
            check(tail not in r["name"], "row %r keeps torch's tail" % r["name"])
    calls = {"aten::addmm": 2, "aten::linear": 2, "aten::t": 2, "aten::mm": 4, "AddmmBackward0": 2,
             "autograd::engine::evaluate_function: AddmmBackward0": 2, "aten::relu": 1, "ReluBackward0": 1,
             "aten::fill_": 2, "Optimizer.step#AdamW.step": 1, "Optimizer.zero_grad#AdamW.zero_grad": 1,
             "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__": 1, "ProfilerStep*": 1,
             "nn.Module: Net": 1, "nn.Module: Net.encoder.layers.0.fc": 1, "aten::copy_": 1}
    for name, per_step in calls.items():
        check(name in by_name, "no row %s (rows: %s)" % (name, sorted(by_name)))
        check(by_name[name]["calls"] == per_step * STEPS,
              "%s: %d calls, want %d" % (name, by_name[name]["calls"], per_step * STEPS))

    # Self CUDA per operator: exactly its GPU work in the truth.
    self_cuda = collections.Counter()
    for op in truth_gpu(truth):
        self_cuda[op_of(op)] += op["end"] - op["start"]
    for name, ns in self_cuda.items():
        check(by_name[name]["self_cuda_ns"] == ns,
              "%s: Self CUDA %d ns, truth %d ns" % (name, by_name[name]["self_cuda_ns"], ns))
    total = collections.Counter(self_cuda)
    for name, ns in self_cuda.items():
        for outer in ENCLOSING.get(name, []):
            total[outer] += ns
    for name, ns in total.items():
        check(by_name[name]["cuda_total_ns"] == ns,
              "%s: CUDA total %d ns, truth %d ns" % (name, by_name[name]["cuda_total_ns"], ns))
    module_gpu = self_cuda["aten::relu"] + self_cuda["aten::addmm"]
    check(by_name["nn.Module: Net"]["cuda_total_ns"] == module_gpu,
          "nn.Module: Net CUDA total %d, truth %d" % (by_name["nn.Module: Net"]["cuda_total_ns"], module_gpu))
    for launch in ("cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaMemcpy"):
        check(by_name[launch]["self_cuda_ns"] == 0, "%s keeps Self CUDA: torch's table gives it to the op" % launch)
    gpu_total = sum(op["end"] - op["start"] for op in truth_gpu(truth))
    check(sum(r["self_cuda_ns"] for r in rows if not r["is_gpu"]) == gpu_total,
          "CPU rows' Self CUDA sums to %d, truth %d" % (sum(r["self_cuda_ns"] for r in rows if not r["is_gpu"]),
                                                        gpu_total))

    # Driver calls: none have rows (driver_calls_fold_into_runtime_calls).
    check(not [n for n in by_name if n.startswith("cu") and not n.startswith("cuda")],
          "driver calls have rows without --driver-calls: %s" % [n for n in by_name if n.startswith("cu")][:5])

    # Input shapes, as torch's column writes them.
    shaped = [r for r in report_rows(capture, "--group-by-input-shape") if r["name"] == "aten::addmm"]
    shapes = sorted((r["input_shapes"], r["calls"]) for r in shaped)
    if fmt.endswith("noshapes"):
        check(shapes == [("", 2 * STEPS)], "aten::addmm without shapes: %s" % shapes)
    else:
        check(shapes == [("[[10], [64, 128], [128, 10], [], []]", STEPS),
                         ("[[128], [64, 256], [256, 128], [], []]", STEPS)], "aten::addmm by shape: %s" % shapes)

    # The modules tree.
    modules = json.loads(analyze("report", capture, "--view", "modules", "--format", "json"))["windows"][0]["rows"]
    tree = [(m["name"], m["depth"], m["calls"]) for m in modules]
    want = [("Net", 0, STEPS), ("Net.encoder", 1, STEPS), ("Net.encoder.layers.0", 2, STEPS),
            ("Net.encoder.layers.0.fc", 3, STEPS), ("Net.encoder.layers.0.act", 3, STEPS), ("Net.head", 1, STEPS)]
    check(tree == want, "modules tree %s, want %s" % (tree, want))
    cuda_by_module = {m["name"]: m["cuda_total_ns"] for m in modules}
    check(cuda_by_module["Net.encoder.layers.0.act"] == self_cuda["aten::relu"], "act module CUDA total")
    check(cuda_by_module["Net"] == module_gpu, "Net module CUDA total %d, truth %d" % (cuda_by_module["Net"], module_gpu))
    text = analyze("report", capture, "--view", "modules")
    check("    Net.encoder.layers.0.fc" in text, "modules table not indented as a tree:\n" + text)


def driver_calls_fold_into_runtime_calls(tmp):
    """The driver calls made inside a runtime call: recorded under
    PROF_API=all, where --driver-calls gives them rows of their own and the
    runtime calls' self time takes theirs back without it; left out by
    default, where --driver-calls says the file holds none."""
    _, capture = record(tmp, "2.x", {"PROF_API": "all"}, "api-all")
    rows = report_rows(capture)
    by_name = {r["name"]: r for r in rows if not r["is_gpu"]}
    check(not [n for n in by_name if n.startswith("cuLaunch")],
          "driver launches have rows without --driver-calls: %s" % [n for n in by_name if n.startswith("cu")][:5])
    own_rows = report_rows(capture, "--driver-calls")
    own = {r["name"]: r for r in own_rows if not r["is_gpu"]}
    check("cuLaunchKernel" in own, "--driver-calls shows no cuLaunchKernel row")
    check(by_name["cudaLaunchKernel"]["self_cpu_ns"] > own["cudaLaunchKernel"]["self_cpu_ns"],
          "folding gave cudaLaunchKernel no time back")
    # Folding moves self time, never makes or loses any.
    check(sum(r["self_cpu_ns"] for r in rows) == sum(r["self_cpu_ns"] for r in own_rows),
          "self CPU total %d folded, %d with driver rows" %
          (sum(r["self_cpu_ns"] for r in rows), sum(r["self_cpu_ns"] for r in own_rows)))

    _, default_capture = record(tmp, "2.x", folder="api-default")
    result = harness.run([harness.ARGS.analyzer, "report", default_capture, "--driver-calls", "--format", "json",
                          "--row-limit", "-1"], env=harness.base_env(False), timeout=240)
    check(result.returncode == 0, "report --driver-calls failed: %s" % result.stderr)
    names = [r["name"] for r in json.loads(result.stdout)["windows"][0]["rows"]]
    check("cuLaunchKernel" not in names, "a default capture holds nested driver launches")
    check("recorded with PROF_API=default" in result.stderr and "PROF_API=all records them" in result.stderr,
          "no note that the file holds no nested driver calls: %r" % result.stderr)


def trace_doc(tmp, capture, name="trace.json"):
    out = os.path.join(tmp, name)
    analyze("trace", capture, "-o", out)
    with open(out) as f:
        return json.load(f)


def trace_ops_match_truth(tmp, fmt="2.x"):
    truth, capture = record(tmp, fmt)
    doc = trace_doc(tmp, capture)
    events = doc["traceEvents"]
    by_id = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation"):
            by_id[e["args"]["External id"]] = e
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    names = collections.Counter(e["name"] for e in ops)
    check(names["aten::addmm"] == 2 * STEPS and names["AddmmBackward0"] == 2 * STEPS,
          "cpu_op events: %s" % dict(names))
    for name in ("ProfilerStep#0", "Optimizer.step#AdamW.step", "nn.Module: Net"):
        check(any(e["name"] == name and e["cat"] == "user_annotation" for e in by_id.values()),
              "no user_annotation %s" % name)
    for e in ops + [e for e in events if e.get("cat") in ("user_annotation", "gpu_user_annotation")]:
        check(", op_id =" not in e["name"] and ", seq =" not in e["name"] and ", sizes =" not in e["name"],
              "%s %r keeps torch's tail" % (e["cat"], e["name"]))
    addmm = [e for e in ops if e["name"] == "aten::addmm"]
    for e in addmm:
        a = e["args"]
        check("Sequence number" in a and a.get("Fwd thread id") == 0, "aten::addmm args %s" % a)
        check(("Record function id" in a) == fmt.startswith("2."), "Record function id in %s: %s" % (fmt, a))
        if fmt.endswith("noshapes"):
            check("Input Dims" not in a, "Input Dims without shapes: %s" % a)
        else:
            check(a["Input Dims"] in ([[128], [64, 256], [256, 128], [], []], [[10], [64, 128], [128, 10], [], []]),
                  "aten::addmm Input Dims %s" % a.get("Input Dims"))

    # Every GPU operation carries its operator's External id; its time is the truth's.
    truth_by_key = {(t["type"], t["corr"]): t for t in truth_gpu(truth)}
    kinds = {"kernel": "kernel", "gpu_memcpy": "memcpy", "gpu_memset": "memset"}
    seen = 0
    origin = readers.trace_origin_ns(doc, truth)
    for e in events:
        if e.get("ph") != "X" or e.get("cat") not in kinds:
            continue
        t = truth_by_key[(kinds[e["cat"]], e["args"]["correlation"])]
        check("External id" in e["args"], "%s %s has no External id" % (e["cat"], e["name"]))
        op = by_id.get(e["args"]["External id"])
        check(op is not None and op["name"] == op_of(t),
              "%s %s: External id names %s, truth %s" % (e["cat"], e["name"], op and op["name"], op_of(t)))
        check(readers.ns(e["ts"]) + origin == t["start"] and readers.ns(e["dur"]) == t["end"] - t["start"],
              "%s %s: time differs from the truth" % (e["cat"], e["name"]))
        seen += 1
    check(seen == len(truth_by_key), "%d GPU events in the trace, truth %d" % (seen, len(truth_by_key)))
    # Runtime calls inside operators, and syncs, carry the operator's id too.
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "cuda_runtime" and e["name"] in (
                "cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaStreamSynchronize", "cudaMemcpy"):
            check(e["args"].get("External id") in by_id, "%s without an operator's External id" % e["name"])
    # A sync made inside an operator (aten::copy_'s stream sync) carries its
    # id; the program's final cudaDeviceSynchronize is in none.
    in_ops = {e["args"]["correlation"]: e["args"]["External id"] for e in events
              if e.get("ph") == "X" and e.get("cat") == "cuda_runtime" and "External id" in e["args"]}
    syncs = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cuda_sync"]
    check(any(e["args"].get("correlation") in in_ops for e in syncs), "no sync inside an operator")
    for e in syncs:
        want = in_ops.get(e["args"].get("correlation"))
        check(e["args"].get("External id") == want,
              "cuda_sync %s: External id %s, its call's %s" % (e["name"], e["args"].get("External id"), want))

    # fwdbwd: each backward node's first range to the forward op of its seq.
    starts = {f["id"]: f for f in events if f.get("ph") == "s" and f.get("cat") == "fwdbwd"}
    ends = [f for f in events if f.get("ph") == "f" and f.get("cat") == "fwdbwd"]
    check(len(ends) == 4 * STEPS and len(starts) == len(ends), "%d fwdbwd starts, %d ends; want %d" %
          (len(starts), len(ends), 4 * STEPS))
    at = {(e["tid"], e["ts"]): e for e in ops}
    for f in ends:
        s = starts[f["id"]]
        fwd, bwd = at[(s["tid"], s["ts"])], at[(f["tid"], f["ts"])]
        check(fwd["args"]["Sequence number"] == bwd["args"]["Sequence number"],
              "fwdbwd ties seq %s to %s" % (fwd["args"]["Sequence number"], bwd["args"]["Sequence number"]))
        node = bwd["name"].replace("autograd::engine::evaluate_function: ", "")
        check(bwd["name"] != node, "fwdbwd ends on %s, not the first range of the backward node" % bwd["name"])
        check(BACKWARD_OF.get(node) == fwd["name"], "fwdbwd ties %s to %s" % (fwd["name"], node))


def hta_operators_match_truth(tmp):
    truth, capture = record(tmp, "2.x")
    trace_dir = os.path.join(tmp, "traces")
    os.mkdir(trace_dir)
    doc = trace_doc(trace_dir, capture, "run.pt.trace.json")
    view = readers.HtaView(truth, doc)
    path = readers.hta_python_path()
    if path is None:
        raise readers.Skipped("HTA not found")
    env = dict(os.environ, PYTHONPATH=path)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hta_operators.py")
    result = subprocess.run([readers.DEBIAN_PYTHON, script, trace_dir], env=env, capture_output=True, text=True,
                            timeout=300)
    check(result.returncode == 0, "HTA failed on our trace:\n" + result.stderr[-3000:])
    hta = json.loads(result.stdout)
    # Each operator's kernels (its own and its children's) in HTA's whole
    # microseconds, from the truth.
    want = collections.defaultdict(lambda: [0, 0])
    for op in view.ops:
        if op["type"] != "kernel":
            continue
        s, e = view.interval(op)
        for name in [op_of(op)] + ENCLOSING.get(op_of(op), []):
            if name.startswith("Optimizer."):
                continue  # a user_annotation, not a cpu_op
            want[name][0] += 1
            want[name][1] += e - s
    got = {name: [v["kernels"], v["kernel_us"]] for name, v in hta["ops"].items() if v["kernels"] > 0}
    for name, (count, us) in want.items():
        check(name in got, "HTA puts no kernel under %s (it has %s)" % (name, sorted(got)))
        check(got[name][0] == count and got[name][1] == us,
              "HTA %s: %s kernels, %s us; truth %d kernels, %d us (HTA: %s; truth: %s)" %
              (name, got[name][0], got[name][1], count, us, got, dict(want)))
    aten = {(r.get("aten_op_name") or r.get("s_name") or str(r)): r for r in hta["aten_op_kernels"]}
    check(any("aten::addmm" in key for key in aten), "get_aten_op_kernels_and_delay has no aten::addmm: %s" %
          list(aten)[:10])


def tensorboard_operator_view_matches_truth(tmp):
    """TensorBoard's plugin fills its Operator view and its kernel-by-operator
    table from our cpu_op events and the External ids on their GPU work: each
    aten op's calls as the program made them, its device time the truth's
    (the plugin rounds to whole us), each kernel under its operator."""
    truth, capture = record(tmp, "2.x")
    logdir = os.path.join(tmp, "tb")
    os.makedirs(os.path.join(logdir, "run"))
    trace_doc(os.path.join(logdir, "run"), capture, "worker0.pt.trace.json")
    report = readers.run_tb_plugin(logdir)
    (run,) = report["runs"].values()
    check("Operator" in run["views"], "no Operator view: %s" % run["views"])
    (answers,) = [a for a in run["spans"].values() if "/operation/table?Operation" in a]
    rows = {row["name"]: row for row in answers["/operation/table?Operation"]["data"]}
    self_ns, total_ns = collections.Counter(), collections.Counter()
    for op in truth_gpu(truth):
        self_ns[op_of(op)] += op["end"] - op["start"]
        for name in [op_of(op)] + ENCLOSING.get(op_of(op), []):
            total_ns[name] += op["end"] - op["start"]
    calls = {"aten::addmm": 2, "aten::linear": 2, "aten::mm": 4, "aten::relu": 1, "aten::copy_": 1}
    for name, per_step in calls.items():
        check(name in rows, "the Operator view has no %s (it has %s)" % (name, sorted(rows)))
        check(rows[name]["calls"] == per_step * STEPS,
              "Operator view %s: %s calls, want %d" % (name, rows[name]["calls"], per_step * STEPS))
    for name in ("aten::addmm", "aten::mm", "aten::relu", "aten::threshold_backward", "aten::copy_"):
        got_self, got_total = rows[name].get("device_self_duration"), rows[name].get("device_total_duration")
        check(got_self is not None and abs(got_self - self_ns[name] / 1000) <= 1,
              "Operator view %s: device self %s us, truth %.3f us" % (name, got_self, self_ns[name] / 1000))
        check(got_total is not None and abs(got_total - total_ns[name] / 1000) <= 1,
              "Operator view %s: device total %s us, truth %.3f us" % (name, got_total, total_ns[name] / 1000))
    # The Kernel view grouped by kernel and operator: each kernel under the
    # operator that launched it, with its calls.
    table = [a for a in run["spans"].values() if "/kernel/table?KernelNameAndOp" in a][0]
    table = table["/kernel/table?KernelNameAndOp"]["data"]
    columns = [c["name"] for c in table["columns"]]
    launched = collections.Counter()
    for row in table["rows"]:
        values = dict(zip(columns, row))
        kernel = next(k for k in KERNEL_OP if k in values["Name"])
        check(values["Operator"] == KERNEL_OP[kernel], "Kernel view: %s under %s, launched in %s" %
              (kernel, values["Operator"], KERNEL_OP[kernel]))
        launched[kernel] += values["Calls"]
    want = collections.Counter(next(k for k in KERNEL_OP if k in op["name"]) for op in truth_gpu(truth)
                               if op["type"] == "kernel")
    check(launched == want, "Kernel view by operator: %s, truth %s" % (dict(launched), dict(want)))


def stacks_put_operators_before_the_call(tmp):
    _, capture = record(tmp, "2.x")
    lines = analyze("stacks", capture).splitlines()
    gemm = [line for line in lines if line.rsplit(" ", 1)[0].endswith("addmm_gemm_kernel(float*, int)")]
    check(gemm, "no stack ends in addmm_gemm_kernel:\n" + "\n".join(lines[:20]))
    for line in gemm:
        frames = line.rsplit(" ", 1)[0].split(";")
        check("aten::addmm" in frames and "cudaLaunchKernel" in frames, "stack %s" % line)
        op, launch = frames.index("aten::addmm"), frames.index("cudaLaunchKernel")
        check(op < launch, "aten::addmm after the CUDA call: %s" % line)
        step = frames.index("ProfilerStep*")
        check(frames[step - 1].startswith("(anonymous namespace)::step(") or "step(" in frames[step - 1],
              "ProfilerStep* is not where step() opened it: %s" % line)
        stub = [i for i, f in enumerate(frames) if "device_stub" in f or f.startswith("addmm_gemm_kernel(")]
        check(all(i > op for i in stub), "a launch stub frame above the operator: %s" % line)


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-torch-ops-", required=harness.SIMCUDA_OPTIONS + ("--source-dir",)))
