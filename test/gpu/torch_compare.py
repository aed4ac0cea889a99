#!/usr/bin/env python3
"""torch.profiler against libprof on the same training loop (issue 26's
"Must show"; scripts/gpu-check.sh runs it, docs/pytorch.md says what is
compared and why).

  torch_compare.py --torch DIR/torch_ops.json --torch-program DIR/program_torch.json
                   --libprof-report REPORT.json --libprof-whole WHOLE.json
                   --libprof-shapes SHAPES.json --libprof-memory MEMORY.json
                   [--libprof-memory-window MEMORY_WINDOW.json]
                   --libprof-program DIR/program_none.json [--markdown OUT.md]

torch's side is what test/gpu/torch_side_by_side.py --profiler torch
writes (key_averages() over the schedule's active steps); libprof's is
`profanalyze report --format json --row-limit -1` of the unmodified run over
the same steps (--wait/--warmup/--active/--repeat 1), the whole run, with
--group-by-input-shape, and `report --view memory --format json`.

Equal means (each a check that fails the run):
  steps       torch's ProfilerStep* count, the schedule's active steps and
              libprof's ProfilerStep* count in its window are one number;
              libprof's whole run has one step more than the program ran
              (its last ProfilerStep runs from the last optimizer.step() to
              exit) and both programs ran the same number of steps
  operators   the same operator names, each with the same count
  input shapes  per operator and input shapes, the same count, once
              emit_nvtx's shapes of a TensorList argument (each tensor's)
              are read as Kineto's one [] (flattens_to)
  GPU work    the same kernel, copy and memset names, each with the same count
  CUDA total  per operator holding at least 1% of the window's GPU time:
              within 2% of torch's; every other operator: zero in both or in
              neither, and within 2% or 1 us per call (two runs' kernels
              differ by run-to-run noise, which on a 2-us operator is more
              than 2%, and never by a whole kernel per call); and the
              window's total GPU time within 2%
  memory      libprof's peak of tensor memory over the whole run equals
              torch.cuda.max_memory_allocated() in both runs; over the
              window, it equals the peak of torch.profiler's [memory] events

Rows that are not operators are left out of the operator checks, on both
sides, by name: CUDA runtime and driver calls (Kineto records a subset of
them), ProfilerStep* (the steps check), [memory] rows, nn.Module and Python
function rows (torch.profiler's with_modules/with_stack Python tracer), and
CUPTI's overhead rows torch.profiler adds (PROFILER_OWN below), and the
utility ops torch's key_averages() filters out (TORCH_FILTERED); and from the
GPU work, torch's GPU spans of record_function scopes (its
gpu_user_annotation rows). Any other
row in one table and not in the other fails the run, named.

Exit status: 0 equal, 1 a check failed (each failure on stderr), 2 input
missing or unreadable.
"""
import argparse
import json
import re
import sys

RUNTIME = re.compile(r"^cu(da)?[A-Z]")
STEP = re.compile(r"^ProfilerStep[#*]")
# Ops torch's key_averages() never shows (torch/autograd/profiler_util.py,
# _filter_name: "utility ops"), which libprof's report keeps: the
# record_function scopes' own enter/exit ops, three autograd helpers.
TORCH_FILTERED = ("profiler::_record_function_enter", "profiler::_record_function_enter_new",
                  "profiler::_record_function_exit", "aten::is_leaf", "aten::output_nr", "aten::_version",
                  "[OutOfMemory]")
PYTHON_ROW = re.compile(r"^nn\.Module: |\.py\(\d+\): |^<built-in ")
# Rows torch.profiler writes of its own work, which no unprofiled program
# has: Kineto's names of CUPTI's overhead records (CUpti_ActivityOverheadKind).
PROFILER_OWN = {"Unknown", "Driver Compiler", "Buffer Flush", "Instrumentation", "Resource",
                "Runtime Triggered Module Loading", "Lazy Function Loading", "Command Buffer Full",
                "Activity Buffer Request", "UVM Activity Init"}

CUDA_TOTAL_TOLERANCE = 0.02
SIGNIFICANT_SHARE = 0.01
# Below SIGNIFICANT_SHARE: a kernel counted under the wrong operator moves at
# least one kernel's time per call (the shortest kernels take 1-2 us), run-
# to-run noise a fraction of that.
SMALL_OPERATOR_NS_PER_CALL = 1000


class BadInput(Exception):
    pass


def classify(name, is_gpu, user_annotation=False):
    """What a table row is: gpu, gpu_annotation, step, runtime, memory,
    filtered, python, profiler or operator."""
    if is_gpu:
        # torch >= 2.4's span of a record_function over the GPU work launched
        # in it (Kineto's gpu_user_annotation): not GPU work of its own.
        return "gpu_annotation" if user_annotation else "gpu"
    if STEP.match(name):
        return "step"
    if RUNTIME.match(name):
        return "runtime"
    if name == "[memory]":
        return "memory"
    if any(name == op or name.startswith(op + ".") for op in TORCH_FILTERED):  # name.overload
        return "filtered"
    if PYTHON_ROW.search(name):
        return "python"
    if name in PROFILER_OWN:
        return "profiler"
    return "operator"


class Row:
    def __init__(self, name, kind, count, cuda_total_ns, self_cuda_ns, shapes=""):
        self.name, self.kind, self.count = name, kind, count
        self.cuda_total_ns, self.self_cuda_ns, self.shapes = cuda_total_ns, self_cuda_ns, shapes


class Table:
    """One side's rows by kind and name. A name has one row per kind: torch's
    CPU row of a record_function and its GPU span are two kinds."""

    def __init__(self, rows):
        self.rows = {}
        for row in rows:
            key = (row.kind, row.name)
            if key in self.rows:  # rows key_averages keeps apart (node, legacy): one row here
                kept = self.rows[key]
                kept.count += row.count
                kept.cuda_total_ns += row.cuda_total_ns
                kept.self_cuda_ns += row.self_cuda_ns
            else:
                self.rows[key] = row

    def of_kind(self, kind):
        return {name: row for (row_kind, name), row in self.rows.items() if row_kind == kind}

    def steps(self):
        return sum(row.count for row in self.of_kind("step").values())

    def gpu_total_ns(self):
        return sum(row.self_cuda_ns for row in self.of_kind("gpu").values())


def torch_rows(rows):
    return [Row(r["name"], classify(r["name"], r["device"] == "cuda", bool(r.get("user_annotation"))), int(r["count"]),
                float(r["cuda_total_us"]) * 1000, float(r["self_cuda_us"]) * 1000, r.get("input_shapes", ""))
            for r in rows]


def libprof_rows(rows):
    return [Row(r["name"], classify(r["name"], bool(r.get("is_gpu"))), int(r["calls"]),
                float(r.get("cuda_total_ns") or 0), float(r.get("self_cuda_ns") or 0), r.get("input_shapes") or "")
            for r in rows]


def one_window(report, what):
    windows = report.get("windows", [])
    if len(windows) != 1:
        raise BadInput("%s has %d windows, not one (give report --repeat 1 and a schedule that fits the run)"
                       % (what, len(windows)))
    return windows[0]


def memory_peak(memory_report):
    """The highest peak of allocated tensor memory over the devices, or None
    when the capture has no tensor memory."""
    peaks = [row["peak_allocated"] for window in memory_report.get("windows", []) for row in window.get("rows", [])
             if row.get("device", -1) >= 0]
    return max(peaks) if peaks else None


def some(names, shown=20):
    """A list of names for a message: the first `shown`, and how many more."""
    if not names:
        return "none"
    return str(names[:shown]) + (" and %d more" % (len(names) - shown) if len(names) > shown else "")


def parse_shapes(text):
    """torch's Input Shapes text ("[[64, 256], [], [3]]") as lists; None
    when it is not one (a cut string)."""
    try:
        shapes = json.loads(text) if text else []
    except ValueError:
        return None
    return shapes if isinstance(shapes, list) and all(isinstance(s, list) for s in shapes) else None


def flattens_to(torch_shapes, nvtx_shapes):
    """Whether emit_nvtx's shapes can be Kineto's of the same call. emit_nvtx
    writes each tensor of a TensorList argument in its place
    (nvtx_observer.cpp: inputSizes(fn, /*flatten_list_enabled=*/true)), where
    Kineto writes one [] (profiler_kineto.cpp, parseArgData: a list leaves
    its shapesForKinetoEvent entry empty): each [] of torch's stands for one
    or more of emit_nvtx's entries, any other entry for one equal entry."""
    ends = {0}  # the emit_nvtx entries consumed so far, over every way of matching
    for shape in torch_shapes:
        if shape:
            ends = {end + 1 for end in ends if end < len(nvtx_shapes) and nvtx_shapes[end] == shape}
        else:
            ends = set(range(min(ends) + 1, len(nvtx_shapes) + 1)) if ends else set()
        if not ends:
            return False
    return len(nvtx_shapes) in ends


def in_torch_shape_text(libprof_counts, torch_counts):
    """libprof's (name, shapes) counts, each group whose text torch does not
    have moved to the one text of torch's for that operator it flattens from
    (flattens_to); a group that fits none, or several, stays as it is."""
    torch_texts = {}
    for name, text in torch_counts:
        torch_texts.setdefault(name, []).append(text)
    out = {}
    for (name, text), count in libprof_counts.items():
        key = (name, text)
        if key not in torch_counts:
            mine = parse_shapes(text)
            fits = [t for t in torch_texts.get(name, []) if mine is not None and parse_shapes(t) is not None
                    and flattens_to(parse_shapes(t), mine)]
            if len(fits) == 1:
                key = (name, fits[0])
        out[key] = out.get(key, 0) + count
    return out


class Comparison:
    """Every check's outcome, and the failures, in the order checked."""

    def __init__(self):
        self.checks = []  # (what, torch's, libprof's, passed)
        self.failures = []
        self.operators = []  # per operator row of the markdown table

    def check(self, what, torch_value, libprof_value, passed, why=""):
        self.checks.append((what, torch_value, libprof_value, passed))
        if not passed:
            self.failures.append("%s: torch.profiler %s, libprof %s%s" % (what, torch_value, libprof_value,
                                                                         " (" + why + ")" if why else ""))


def compare(torch_side, libprof):
    """torch_side: torch_ops.json and program_torch.json's contents
    ({"ops": ..., "program": ...}); libprof: {"report", "whole", "shapes",
    "memory", "memory_window" (or None), "program"}. Returns a Comparison."""
    result = Comparison()
    ops = torch_side["ops"]
    torch_table = Table(torch_rows(ops["rows"]))
    window = one_window(libprof["report"], "libprof's report")
    libprof_table = Table(libprof_rows(window["rows"]))
    whole = Table(libprof_rows(one_window(libprof["whole"], "libprof's whole-run report")["rows"]))

    # Steps.
    active = ops["schedule"]["active"]
    torch_steps = ops["steps"]
    result.check("steps in the window", torch_steps, libprof_table.steps(),
                 torch_steps == libprof_table.steps() == active, "the schedule's active steps: %d" % active)
    ran_torch, ran_libprof = torch_side["program"]["steps"], libprof["program"]["steps"]
    result.check("steps the program ran", ran_torch, ran_libprof, ran_torch == ran_libprof)
    result.check("libprof's steps over the whole run", ran_libprof + 1, whole.steps(), whole.steps() == ran_libprof + 1,
                 "the program's steps and the last one, from its last optimizer.step() to exit")

    # Operators: names and counts.
    torch_ops, libprof_ops = torch_table.of_kind("operator"), libprof_table.of_kind("operator")
    only_torch = sorted(set(torch_ops) - set(libprof_ops))
    only_libprof = sorted(set(libprof_ops) - set(torch_ops))
    drops = libprof["whole"].get("drops", {})
    lost = ("; libprof's capture lost records (%s): counts cannot agree" % drops
            if drops.get("agent_buffers") or drops.get("cupti") else "")
    cut = ("; libprof cut %d NVTX strings at its payload limit, and a cut operator string keeps its whole text as "
           "its name" % drops["truncated_payloads"] if drops.get("truncated_payloads") else "")
    result.check("operator names", len(torch_ops), len(libprof_ops), not only_torch and not only_libprof,
                 "only in torch: %s; only in libprof: %s%s%s" % (some(only_torch), some(only_libprof), cut, lost))
    window_gpu_ns = torch_table.gpu_total_ns()
    count_mismatches, time_mismatches = [], []
    for name in sorted(torch_ops, key=lambda n: (-torch_ops[n].cuda_total_ns, n)):
        t = torch_ops[name]
        mine = libprof_ops.get(name)
        counts_equal = mine is not None and t.count == mine.count
        if mine is not None and not counts_equal:
            count_mismatches.append("%s (%d vs %d)" % (name, t.count, mine.count))
        significant = window_gpu_ns > 0 and t.cuda_total_ns >= SIGNIFICANT_SHARE * window_gpu_ns
        time_ok = None
        if mine is not None:
            if significant:
                time_ok = abs(mine.cuda_total_ns - t.cuda_total_ns) <= CUDA_TOTAL_TOLERANCE * t.cuda_total_ns
            else:
                diff = abs(mine.cuda_total_ns - t.cuda_total_ns)
                time_ok = ((mine.cuda_total_ns == 0) == (t.cuda_total_ns == 0) and
                           (diff <= CUDA_TOTAL_TOLERANCE * t.cuda_total_ns or
                            diff <= SMALL_OPERATOR_NS_PER_CALL * t.count))
            if not time_ok:
                time_mismatches.append("%s (%.3f us vs %.3f us%s)" % (name, t.cuda_total_ns / 1000,
                                                                     mine.cuda_total_ns / 1000,
                                                                     "" if significant else
                                                                     ", under 1%: zero in one only, or over 1 us "
                                                                     "a call"))
        result.operators.append((name, t, mine, significant, counts_equal, time_ok))
    common = [name for name in torch_ops if name in libprof_ops]
    result.check("operator counts (operators in both)", sum(torch_ops[n].count for n in common),
                 sum(libprof_ops[n].count for n in common), not count_mismatches,
                 "differ: " + ", ".join(count_mismatches) + lost if count_mismatches else "")
    significant_count = sum(1 for _, _, mine, significant, _, _ in result.operators if mine and significant)
    result.check("CUDA total per operator", "%d operators, %d over 1%% of the GPU time" % (len(common), significant_count),
                 "%d agree" % (len(common) - len(time_mismatches)), not time_mismatches,
                 "beyond 2%% of torch's (operators over 1%% of the GPU time; under 1%%: zero in one only, or "
                 "beyond both 2%% and 1 us a call): "
                 + ", ".join(time_mismatches) if time_mismatches else "")
    libprof_gpu_ns = libprof_table.gpu_total_ns()
    result.check("GPU time in the window (us)", round(window_gpu_ns / 1000, 3), round(libprof_gpu_ns / 1000, 3),
                 abs(libprof_gpu_ns - window_gpu_ns) <= CUDA_TOTAL_TOLERANCE * window_gpu_ns and window_gpu_ns > 0,
                 "within 2%, and not zero")

    # Input shapes: per operator and shapes, the same count.
    def shape_counts(rows):
        counts = {}
        for row in rows:
            if row.kind == "operator":
                counts[(row.name, row.shapes)] = counts.get((row.name, row.shapes), 0) + row.count
        return counts
    torch_shapes = shape_counts(torch_rows(ops["shape_rows"]))
    libprof_shapes = in_torch_shape_text(
        shape_counts(libprof_rows(one_window(libprof["shapes"], "libprof's shapes report")["rows"])), torch_shapes)
    differ = sorted(key for key in set(torch_shapes) | set(libprof_shapes)
                    if torch_shapes.get(key) != libprof_shapes.get(key))
    result.check("operators by input shapes", len(torch_shapes), len(libprof_shapes), not differ,
                 "differ: " + ", ".join("%s %s (%s vs %s)" % (n, s or "[]", torch_shapes.get((n, s)),
                                                              libprof_shapes.get((n, s))) for n, s in differ[:10])
                 + (" and %d more" % (len(differ) - 10) if len(differ) > 10 else ""))

    # GPU work: names and counts.
    torch_gpu, libprof_gpu = torch_table.of_kind("gpu"), libprof_table.of_kind("gpu")
    gpu_differ = sorted(name for name in set(torch_gpu) | set(libprof_gpu)
                        if (torch_gpu[name].count if name in torch_gpu else None) !=
                        (libprof_gpu[name].count if name in libprof_gpu else None))
    result.check("GPU work (kernels, copies, memsets)", sum(r.count for r in torch_gpu.values()),
                 sum(r.count for r in libprof_gpu.values()), not gpu_differ and bool(torch_gpu),
                 "differ: " + ", ".join("%s (%s vs %s)" % (n, torch_gpu[n].count if n in torch_gpu else 0,
                                                           libprof_gpu[n].count if n in libprof_gpu else 0)
                                        for n in gpu_differ[:10]) if gpu_differ else "none recorded")

    # Memory.
    peak = memory_peak(libprof["memory"])
    truth_torch = torch_side["program"].get("max_memory_allocated")
    truth_libprof = libprof["program"].get("max_memory_allocated")
    result.check("peak allocated, whole run (B)", truth_torch, "%s (max_memory_allocated: %s)" % (peak, truth_libprof),
                 peak is not None and peak == truth_torch == truth_libprof,
                 "libprof's tensor-memory peak against torch.cuda.max_memory_allocated() of each run")
    if libprof.get("memory_window") is not None:
        window_peak = memory_peak(libprof["memory_window"])
        profiler_peak = ops.get("profiler_peak_allocated")
        result.check("peak allocated in the window (B)", profiler_peak, window_peak,
                     window_peak is not None and window_peak == profiler_peak,
                     "torch.profiler's [memory] events' highest Total Allocated")
    return result


def microseconds(ns):
    return "%.1f" % (ns / 1000)


def markdown(result, torch_side, libprof):
    """The side-by-side table, as README's "Checked on a real GPU" takes it."""
    ops, program = torch_side["ops"], torch_side["program"]
    schedule = ops["schedule"]
    first = schedule["wait"] + schedule["warmup"]
    lines = [
        "On %s, torch %s: the same training loop (an MLP and a conv net, AdamW, a DataLoader, %d steps) under "
        "torch.profiler (record_shapes, profile_memory, with_modules) and under libprof with no code change, "
        "steps %d-%d (schedule wait=%d, warmup=%d, active=%d; `report --wait %d --warmup %d --active %d`)."
        % (program.get("device"), ops.get("torch"), program.get("steps", 0), first, first + schedule["active"] - 1,
           schedule["wait"], schedule["warmup"], schedule["active"], schedule["wait"], schedule["warmup"],
           schedule["active"]),
        "",
        "| Check | torch.profiler | libprof | Equal |",
        "|---|---|---|---|",
    ]
    for what, torch_value, libprof_value, passed in result.checks:
        lines.append("| %s | %s | %s | %s |" % (what, torch_value, libprof_value, "yes" if passed else "**no**"))
    lines += [
        "",
        "| Operator | Calls (torch) | Calls (libprof) | CUDA total torch (us) | CUDA total libprof (us) | Diff | Equal |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, t, mine, significant, counts_equal, time_ok in result.operators:
        if mine is None:
            lines.append("| `%s` | %d | none | %s | | | **no** |" % (name, t.count, microseconds(t.cuda_total_ns)))
            continue
        diff = ("%+.2f%%" % (100.0 * (mine.cuda_total_ns - t.cuda_total_ns) / t.cuda_total_ns)
                if t.cuda_total_ns else "")
        equal = "yes" if counts_equal and time_ok else "**no**"
        if counts_equal and time_ok and not significant and t.cuda_total_ns:
            equal = "yes (under 1% of GPU time: within 2% or 1 us a call)"
        lines.append("| `%s` | %d | %d | %s | %s | %s | %s |" % (name, t.count, mine.count,
                                                              microseconds(t.cuda_total_ns),
                                                              microseconds(mine.cuda_total_ns), diff, equal))
    lines += ["", "Not operators, on either side (docs/pytorch.md): runtime calls, CUPTI overhead, `[memory]`, module and "
              "Python rows, and the utility ops torch's table filters out (`profiler::_record_function_*`, "
              "`aten::is_leaf`, `aten::output_nr`, `aten::_version`)."]
    return "\n".join(lines) + "\n"


def read_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as error:
        raise BadInput("%s (%s): %s" % (what, path, error))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torch", required=True)
    parser.add_argument("--torch-program", required=True)
    parser.add_argument("--libprof-report", required=True)
    parser.add_argument("--libprof-whole", required=True)
    parser.add_argument("--libprof-shapes", required=True)
    parser.add_argument("--libprof-memory", required=True)
    parser.add_argument("--libprof-memory-window")
    parser.add_argument("--libprof-program", required=True)
    parser.add_argument("--markdown")
    args = parser.parse_args(argv)
    try:
        torch_side = {"ops": read_json(args.torch, "torch's key_averages"),
                      "program": read_json(args.torch_program, "the torch run's account")}
        libprof = {"report": read_json(args.libprof_report, "libprof's report"),
                   "whole": read_json(args.libprof_whole, "libprof's whole-run report"),
                   "shapes": read_json(args.libprof_shapes, "libprof's shapes report"),
                   "memory": read_json(args.libprof_memory, "libprof's memory view"),
                   "memory_window": (read_json(args.libprof_memory_window, "libprof's memory view of the window")
                                     if args.libprof_memory_window else None),
                   "program": read_json(args.libprof_program, "the libprof run's account")}
        result = compare(torch_side, libprof)
        table = markdown(result, torch_side, libprof)
    except BadInput as error:
        print("torch_compare: %s" % error, file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError) as error:
        print("torch_compare: an input lacks what it should hold: %s: %s" % (type(error).__name__, error),
              file=sys.stderr)
        return 2
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table)
    else:
        sys.stdout.write(table)
    for failure in result.failures:
        print("torch_compare: MISMATCH %s" % failure, file=sys.stderr)
    if result.failures:
        print("torch_compare: %d of %d checks failed" % (len(result.failures), len(result.checks)), file=sys.stderr)
        return 1
    print("torch_compare: all %d checks equal" % len(result.checks), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
