#!/usr/bin/env python3
"""Tests of test/gpu/torch_compare.py, the comparer of scripts/gpu-check.sh's
torch.profiler-vs-libprof run, without a GPU (issue 26).

Scenarios (one per invocation, test/integration/harness.py's runner):
  equal_tables_pass           hand-made tables that agree: exit 0, the
                              markdown table holds every check and operator
  each_mismatch_fails         one difference at a time (a count, a name, 3%
                              of CUDA time, a kernel attributed to another
                              operator, a step, the peak...): exit 1 naming it
  torch_filtered_ops_are_left_out  the utility ops torch's table drops
                              (profiler::_record_function_*, aten::is_leaf...)
  rows_that_are_not_operators_are_left_out  runtime calls, CUPTI overhead,
                              Python tracer rows, [memory]: on one side only
  tensor_list_shapes_read_as_kinetos  emit_nvtx's shapes of a TensorList
                              argument (each tensor's) against Kineto's []
  bad_input_exits_2           a missing file, bad JSON, two windows
  cpu_dry_run                 the training program on Debian's CPU torch 1.13,
                              under torch.profiler and under the agent, through
                              torch_check.sh's analyzer commands to the
                              comparer: the steps agree, and it fails naming
                              the operators (a CPU torch gets no emit_nvtx)
                              and the missing tensor memory
  reads_profanalyze_report    profanalyze's own report JSON of
                              test/apps/torch_ops (torch's exact NVTX strings
                              on simcuda): the comparer reads its rows, kinds
                              and windows as report writes them
"""
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
sys.path.insert(0, HERE)

import harness  # noqa: E402
import torch_compare  # noqa: E402
from harness import check, main  # noqa: E402

COMPARER = os.path.join(HERE, "torch_compare.py")
STEPS_RUN, ACTIVE = 6, 4

# One operator table, as both sides should see it: name -> (count,
# CUDA total us, self CUDA us, input shapes).
OPERATORS = {
    "aten::linear": (8, 400.0, 0.0, "[[64, 256], [512, 256], [512]]"),
    "aten::addmm": (8, 400.0, 400.0, "[[512], [64, 256], [256, 512], [], []]"),
    "aten::convolution": (8, 300.0, 0.0, "[[64, 3, 32, 32], [16, 3, 3, 3], [16], [], [], [], [], [], []]"),
    "aten::cudnn_convolution": (8, 300.0, 300.0, "[[64, 3, 32, 32], [16, 3, 3, 3], [], [], [], [], [], []]"),
    "aten::fill_": (4, 6.0, 6.0, "[[64], []]"),
    "aten::empty": (40, 0.0, 0.0, "[[], [], [], [], [], []]"),
    "AddmmBackward0": (8, 500.0, 0.0, ""),
    "autograd::engine::evaluate_function: AddmmBackward0": (8, 500.0, 0.0, ""),
    "aten::mm": (16, 500.0, 500.0, "[[64, 512], [512, 256]]"),
    "Optimizer.step#AdamW.step": (4, 120.0, 0.0, ""),
    "aten::_fused_adamw_": (4, 120.0, 120.0, "[[], [], [], [], [], [], [], [], [], [], [], [], [], [], []]"),
    "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__": (4, 0.0, 0.0, ""),
}
# GPU work: name -> (count, time us). Its time sums the operators' self CUDA.
GPU = {"sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32": (24, 900.0),
       "void cudnn::cnn::conv2d_grouped_direct_kernel<float>(...)": (8, 300.0),
       "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(...)": (4, 6.0),
       "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<...>(...)": (4, 120.0)}
PEAK = 123456768


def torch_side(operators=None, gpu=None, steps=ACTIVE, peak=PEAK, window_peak=PEAK, extra_rows=()):
    """What torch_side_by_side.py --profiler torch writes: torch_ops.json and
    program_torch.json, the record_function ops with the steps' calls."""
    operators = dict(OPERATORS if operators is None else operators)
    rows = []
    for name, (count, total, self_time, shapes) in operators.items():
        rows.append({"name": name, "device": "cpu", "count": count, "self_cpu_us": 1.0, "cpu_total_us": 2.0,
                     "self_cuda_us": self_time, "cuda_total_us": total, "self_cuda_mem": 0, "cuda_mem": 0,
                     "input_shapes": shapes})
    for name, (count, total) in (GPU if gpu is None else gpu).items():
        rows.append({"name": name, "device": "cuda", "count": count, "self_cpu_us": 0.0, "cpu_total_us": 0.0,
                     "self_cuda_us": total, "cuda_total_us": total, "self_cuda_mem": 0, "cuda_mem": 0,
                     "input_shapes": ""})
    rows.append({"name": "ProfilerStep*", "device": "cpu", "count": steps, "self_cpu_us": 9.0, "cpu_total_us": 9.0,
                 "self_cuda_us": 0.0, "cuda_total_us": 1326.0, "self_cuda_mem": 0, "cuda_mem": 0, "input_shapes": ""})
    rows += list(extra_rows)
    ops = {"torch": "2.11.0", "device": "cuda", "schedule": {"wait": 1, "warmup": 1, "active": ACTIVE},
           "steps": steps, "profiler_peak_allocated": window_peak, "rows": rows, "shape_rows": copy.deepcopy(rows)}
    program = {"torch": "2.11.0", "device": "NVIDIA H200", "steps": STEPS_RUN, "max_memory_allocated": peak}
    return ops, program


def report(rows, windows=1):
    one = {"window": 0, "title": "window 0 (steps 2-5)", "whole_run": False, "partial": False,
           "steps": list(range(2, 2 + ACTIVE)), "rows": rows}
    return {"view": "table", "windows": [copy.deepcopy(one) for _ in range(windows)],
            "drops": {"agent_buffers": 0, "cupti": 0, "truncated_payloads": 0}, "unterminated_ranges": 0}


def report_row(name, calls, total_us, self_us, is_gpu=0, shapes=""):
    return {"name": name, "self_cpu_pct": 0, "self_cpu_ns": 1000, "cpu_total_pct": 0, "cpu_total_ns": 2000,
            "cpu_avg_ns": 100, "self_cuda_ns": int(round(self_us * 1000)), "self_cuda_pct": 0,
            "cuda_total_ns": int(round(total_us * 1000)), "cuda_avg_ns": 0, "cuda_mem_bytes": 0,
            "self_cuda_mem_bytes": 0, "calls": calls, "is_gpu": is_gpu, "top_level": 0, "input_shapes": shapes}


def libprof_side(operators=None, gpu=None, steps=ACTIVE, whole_steps=STEPS_RUN + 1, peak=PEAK, truth=PEAK,
                 window_peak=PEAK, extra_rows=(), ran=STEPS_RUN):
    """What gpu-check.sh gives the comparer of the libprof run: report JSON
    (window, whole run, with shapes), memory views and the program's account,
    with rows torch.profiler has none of (runtime calls, modules)."""
    operators = OPERATORS if operators is None else operators
    rows = [report_row(name, count, total, self_time, shapes=shapes)
            for name, (count, total, self_time, shapes) in operators.items()]
    rows += [report_row(name, count, total, total, is_gpu=1) for name, (count, total) in
             (GPU if gpu is None else gpu).items()]
    rows += [report_row("ProfilerStep*", steps, 1326.0, 1326.0), report_row("cudaLaunchKernel", 40, 0, 0),
             report_row("cudaStreamIsCapturing", 3, 0, 0), report_row("nn.Module: MLP", steps, 400.0, 0),
             report_row("nn.Module: MLP.fc1", steps, 400.0, 0)]
    rows += list(extra_rows)
    whole_rows = copy.deepcopy(rows)
    for row in whole_rows:
        if row["name"] == "ProfilerStep*":
            row["calls"] = whole_steps

    def memory(value):
        if value is None:
            return {"view": "memory", "windows": [{"window": None, "rows": []}]}
        return {"view": "memory", "windows": [{"window": None, "rows": [
            {"pid": 7, "device": 0, "peak_ns": 5, "peak_allocated": value, "reserved_at_peak": value,
             "max_reserved": value, "held_by": "aten::mm", "line": "x.py:3", "bytes": 1, "blocks": 1},
            {"pid": 7, "device": 0, "peak_ns": 5, "peak_allocated": value, "reserved_at_peak": value,
             "max_reserved": value, "held_by": "aten::addmm", "line": "x.py:4", "bytes": 1, "blocks": 1}]}]}
    return {"report": report(rows), "whole": report(whole_rows), "shapes": report(copy.deepcopy(rows)),
            "memory": memory(peak), "memory_window": memory(window_peak),
            "program": {"torch": "2.11.0", "device": "NVIDIA H200", "steps": ran, "max_memory_allocated": truth}}


def compare(torch_parts, libprof):
    ops, program = torch_parts
    return torch_compare.compare({"ops": ops, "program": program}, libprof)


def write_inputs(folder, torch_parts, libprof):
    """The files gpu-check.sh would give the comparer; its command line."""
    ops, program = torch_parts
    files = {"torch": ops, "torch-program": program, "libprof-report": libprof["report"],
             "libprof-whole": libprof["whole"], "libprof-shapes": libprof["shapes"], "libprof-memory": libprof["memory"],
             "libprof-memory-window": libprof["memory_window"], "libprof-program": libprof["program"]}
    args = [sys.executable, COMPARER, "--markdown", os.path.join(folder, "table.md")]
    for option, content in files.items():
        path = os.path.join(folder, option + ".json")
        with open(path, "w") as f:
            json.dump(content, f)
        args += ["--" + option, path]
    return args


def equal_tables_pass(tmp):
    result = harness.run(write_inputs(tmp, torch_side(), libprof_side()))
    check(result.returncode == 0, "equal tables: exit %d: %s" % (result.returncode, result.stderr))
    check("all 11 checks equal" in result.stderr, "no count of checks said: %r" % result.stderr)
    with open(os.path.join(tmp, "table.md")) as f:
        table = f.read()
    for name in OPERATORS:
        check("| `%s` |" % name in table, "the table has no row for %s:\n%s" % (name, table))
    check("**no**" not in table, "an equal table marks a difference:\n" + table)
    # Noise: a large operator 1.9% off, a small one 0.9 us a call (15% here) off.
    noisy = changed(changed(OPERATORS, "aten::mm", total=509.5), "aten::fill_", total=9.6)
    result = compare(torch_side(), libprof_side(noisy, gpu=dict(GPU, **{
        "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32": (24, 909.5),
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >(...)": (4, 9.6)})))
    check(not result.failures, "run-to-run noise failed: %s" % result.failures)
    check("| steps in the window | 4 | 4 | yes |" in table, "no steps row:\n" + table)
    # Operators under 1% of the GPU time are compared for zero/non-zero only, and said so.
    check("| `aten::fill_` | 4 | 4 | 6.0 | 6.0 | +0.00% | yes (under 1% of GPU time: within 2% or 1 us a call) |"
          in table,
          "aten::fill_'s row:\n" + table)


def changed(operators, name, **fields):
    count, total, self_time, shapes = operators[name]
    values = dict(count=count, total=total, self_time=self_time, shapes=shapes)
    values.update(fields)
    out = dict(operators)
    out[name] = (values["count"], values["total"], values["self_time"], values["shapes"])
    return out


def gpu_scaled(factor):
    """Every kernel factor times as long: the window's GPU total moves with it."""
    return {name: (count, total * factor) for name, (count, total) in GPU.items()}


def with_drops(libprof, **drops):
    for report_doc in (libprof["report"], libprof["whole"], libprof["shapes"]):
        report_doc["drops"].update(drops)
    return libprof


def each_mismatch_fails(tmp):
    without_fill = {k: v for k, v in OPERATORS.items() if k != "aten::fill_"}
    cases = [
        ("a count", torch_side(), libprof_side(changed(OPERATORS, "aten::addmm", count=7)),
         "operator counts (operators in both): torch.profiler"),
        ("an operator libprof lacks", torch_side(), libprof_side(without_fill), "only in torch: ['aten::fill_']"),
        ("an operator torch lacks", torch_side(without_fill), libprof_side(), "only in libprof: ['aten::fill_']"),
        ("an operator string cut by the agent", torch_side(),
         with_drops(libprof_side(dict(without_fill, **{"aten::fill_, op_id = 7, sizes = [[6": OPERATORS["aten::fill_"]})),
                    truncated_payloads=8),
         "only in libprof: ['aten::fill_, op_id = 7, sizes = [[6']; libprof cut 8 NVTX strings"),
        ("records lost", torch_side(), with_drops(libprof_side(changed(OPERATORS, "aten::mm", count=15)), cupti=3),
         "libprof's capture lost records"),
        ("3% more CUDA time on a large operator", torch_side(),
         libprof_side(changed(OPERATORS, "aten::mm", total=515.0)), "aten::mm (500.000 us vs 515.000 us)"),
        ("3% less CUDA time on a large operator", torch_side(),
         libprof_side(changed(OPERATORS, "aten::linear", total=388.0)), "aten::linear (400.000 us vs 388.000 us)"),
        ("a small operator's kernel under another operator", torch_side(),
         libprof_side(changed(OPERATORS, "aten::empty", total=6.0)), "aten::empty (0.000 us vs 6.000 us, under 1%"),
        ("a small operator with no GPU time in libprof", torch_side(),
         libprof_side(changed(OPERATORS, "aten::fill_", total=0.0)), "aten::fill_ (6.000 us vs 0.000 us, under 1%"),
        ("a small operator with a kernel more a call", torch_side(),
         libprof_side(changed(OPERATORS, "aten::fill_", total=10.1)), "aten::fill_ (6.000 us vs 10.100 us, under 1%"),
        ("all GPU time 3% longer", torch_side(), libprof_side(gpu=gpu_scaled(1.03)), "GPU time in the window (us)"),
        ("an input shape", torch_side(),
         libprof_side(changed(OPERATORS, "aten::mm", shapes="[[64, 512], [512, 128]]")), "aten::mm [[64, 512], [512, 128]]"),
        ("a kernel count", torch_side(), libprof_side(gpu=dict(GPU, **{"void cudnn::cnn::conv2d_grouped_direct_kernel"
                                                                        "<float>(...)": (9, 300.0)})),
         "conv2d_grouped_direct_kernel<float>(...) (8 vs 9)"),
        ("a step in the window", torch_side(), libprof_side(steps=ACTIVE + 1), "steps in the window"),
        ("the whole run's trailing step", torch_side(), libprof_side(whole_steps=STEPS_RUN),
         "libprof's steps over the whole run"),
        ("steps the programs ran", torch_side(), libprof_side(ran=STEPS_RUN - 1), "steps the program ran"),
        ("the peak", torch_side(), libprof_side(peak=PEAK + 512), "peak allocated, whole run"),
        ("the other run's max_memory_allocated", torch_side(peak=PEAK + 512), libprof_side(), "peak allocated, whole run"),
        ("no tensor memory recorded", torch_side(), libprof_side(peak=None), "peak allocated, whole run"),
        ("the window's peak", torch_side(window_peak=PEAK - 4096), libprof_side(), "peak allocated in the window"),
        ("no GPU work at all", torch_side(gpu={}), libprof_side(gpu={}), "GPU time in the window"),
    ]
    for i, (what, torch_parts, libprof, said) in enumerate(cases):
        folder = os.path.join(tmp, str(i))
        os.makedirs(folder)
        result = harness.run(write_inputs(folder, torch_parts, libprof))
        check(result.returncode == 1, "%s: exit %d, want 1: %s" % (what, result.returncode, result.stderr))
        check(said in result.stderr, "%s: stderr does not say %r:\n%s" % (what, said, result.stderr))
        check("torch_compare: MISMATCH" in result.stderr, "%s: no MISMATCH line" % what)
        with open(os.path.join(folder, "table.md")) as f:
            check("**no**" in f.read(), "%s: the table marks no difference" % what)


def torch_filtered_ops_are_left_out(tmp):
    """torch's key_averages() drops its utility ops (profiler_util's
    _filter_name); libprof's report keeps them: not compared."""
    utility = [report_row(name, count, 0, 0) for name, count in (
        ("profiler::_record_function_enter_new", 12), ("profiler::_record_function_exit", 12),
        ("profiler::_record_function_exit._RecordFunction", 3), ("aten::is_leaf", 40), ("aten::output_nr", 9),
        ("aten::_version", 30))]
    result = compare(torch_side(), libprof_side(extra_rows=utility))
    check(not result.failures, "torch's filtered ops were compared: %s" % result.failures)
    # A name that merely starts like one is an operator.
    result = compare(torch_side(), libprof_side(extra_rows=[report_row("aten::is_leafy", 2, 0, 0)]))
    check(any("only in libprof: ['aten::is_leafy']" in f for f in result.failures),
          "aten::is_leafy was left out: %s" % result.failures)


def rows_that_are_not_operators_are_left_out(tmp):
    torch_only = [{"name": name, "device": "cpu", "count": 3, "self_cpu_us": 1.0, "cpu_total_us": 1.0,
                   "self_cuda_us": 0.0, "cuda_total_us": 0.0, "self_cuda_mem": 0, "cuda_mem": 0, "input_shapes": ""}
                  for name in ("cudaLaunchKernel", "cudaDeviceSynchronize", "Activity Buffer Request", "[memory]",
                               "nn.Module: MLP_0", "test/gpu/torch_side_by_side.py(77): train",
                               "<built-in method item of Tensor object at 0x7f>")]
    # torch >= 2.4: record_function scopes' GPU spans, beside their CPU rows of the same names.
    torch_only += [{"name": name, "device": "cuda", "count": 4, "self_cpu_us": 0.0, "cpu_total_us": 0.0,
                    "self_cuda_us": 1326.0, "cuda_total_us": 1326.0, "self_cuda_mem": 0, "cuda_mem": 0,
                    "input_shapes": "", "user_annotation": True}
                   for name in ("ProfilerStep*", "Optimizer.step#AdamW.step")]
    result = compare(torch_side(extra_rows=torch_only), libprof_side(extra_rows=[report_row("[memory]", 9, 0, 0)]))
    check(not result.failures, "rows that are not operators were compared: %s" % result.failures)
    # A GPU row that is no annotation is GPU work, compared.
    result = compare(torch_side(extra_rows=[dict(torch_only[-1], user_annotation=False)]), libprof_side())
    check(any("Optimizer.step#AdamW.step (4 vs 0)" in f for f in result.failures),
          "a GPU row of torch's alone passed: %s" % result.failures)
    # The same names as operators would be compared: an unknown row fails.
    unknown = [dict(torch_only[0], name="SomethingNew")]
    result = compare(torch_side(extra_rows=unknown), libprof_side())
    check(any("only in torch: ['SomethingNew']" in f for f in result.failures),
          "a row of unknown kind in torch's table alone passed: %s" % result.failures)
    for name, kind in (("cudaLaunchKernel", "runtime"), ("cuLaunchKernel", "runtime"), ("ProfilerStep#3", "step"),
                       ("ProfilerStep*", "step"), ("aten::cudnn_convolution", "operator"),
                       ("cudnn::conv", "operator"), ("AccumulateGrad", "operator"),
                       ("Optimizer.step#AdamW.step", "operator"), ("nn.Module: Net.fc", "python")):
        check(torch_compare.classify(name, False) == kind,
              "%s classed %s, want %s" % (name, torch_compare.classify(name, False), kind))


def tensor_list_shapes_read_as_kinetos(tmp):
    """emit_nvtx writes each tensor of a TensorList argument; Kineto one []."""
    def with_op(text, count=4):
        return dict(OPERATORS, **{"aten::_foreach_add_": (count, 0.0, 0.0, text)})
    flattened = "[[512, 256], [512], [512, 256], [512], []]"
    result = compare(torch_side(with_op("[[], [], []]")), libprof_side(with_op(flattened)))
    check(not result.failures, "a TensorList's shapes read as Kineto's: %s" % result.failures)
    # Two of libprof's groups that flatten to one of torch's: counted together.
    stack = {"aten::stack": (8, 0.0, 0.0, "[[], []]")}
    libprof = libprof_side(dict(OPERATORS, **{"aten::stack": (4, 0.0, 0.0, "[[3, 32, 32], [3, 32, 32], []]")}))
    rows = libprof["shapes"]["windows"][0]["rows"]
    rows.append(report_row("aten::stack", 4, 0, 0, shapes="[[256], [256], []]"))
    for doc in (libprof["report"], libprof["whole"]):
        for row in doc["windows"][0]["rows"]:
            if row["name"] == "aten::stack":
                row["calls"] = 8
    result = compare(torch_side(dict(OPERATORS, **stack)), libprof)
    check(not result.failures, "two stacks' groups as torch's one: %s" % result.failures)
    for torch_text, libprof_text in (("[[64, 3], []]", "[[64, 4], [1]]"), ("[[], [64]]", "[[1], [2], [63]]"),
                                     ("[[], []]", "[[1]]")):
        result = compare(torch_side(with_op(torch_text)), libprof_side(with_op(libprof_text)))
        check(any(f.startswith("operators by input shapes") for f in result.failures),
              "%s read as torch's %s: %s" % (libprof_text, torch_text, result.failures))


def bad_input_exits_2(tmp):
    args = write_inputs(tmp, torch_side(), libprof_side())
    missing = list(args)
    missing[missing.index("--libprof-report") + 1] = os.path.join(tmp, "absent.json")
    result = harness.run(missing)
    check(result.returncode == 2 and "libprof's report" in result.stderr and "absent.json" in result.stderr,
          "a missing file: exit %d: %s" % (result.returncode, result.stderr))
    with open(os.path.join(tmp, "torch.json"), "w") as f:
        f.write("{not json")
    result = harness.run(args)
    check(result.returncode == 2 and "torch's key_averages" in result.stderr,
          "bad JSON: exit %d: %s" % (result.returncode, result.stderr))
    libprof = libprof_side()
    libprof["report"] = report([], windows=2)
    result = harness.run(write_inputs(tmp, torch_side(), libprof))
    check(result.returncode == 2 and "2 windows, not one" in result.stderr,
          "two windows: exit %d: %s" % (result.returncode, result.stderr))
    write_inputs(tmp, torch_side(), libprof_side())
    with open(os.path.join(tmp, "torch.json"), "w") as f:
        json.dump({"rows": []}, f)
    result = harness.run(args)
    check(result.returncode == 2 and "lacks" in result.stderr and "Traceback" not in result.stderr,
          "a file of the wrong shape: exit %d: %s" % (result.returncode, result.stderr))


SYSTEM_PYTHON = "/usr/bin/python3"
PROGRAM = os.path.join(HERE, "torch_side_by_side.py")


def cpu_dry_run(tmp):
    if harness.run([SYSTEM_PYTHON, "-c", "import torch"]).returncode != 0:
        raise harness.Skipped("no torch for %s" % SYSTEM_PYTHON)
    loop = ["--device", "cpu", "--steps", "6", "--wait", "1", "--warmup", "1"]
    env = harness.base_env(False)
    env.pop("PYTHONPATH", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    result = harness.run([SYSTEM_PYTHON, PROGRAM, "--out", tmp, "--profiler", "torch"] + loop, env=env, timeout=300)
    check(result.returncode == 0, "torch.profiler run: exit %d: %s" % (result.returncode, result.stderr[-2000:]))
    mine = os.path.join(tmp, "libprof")
    os.makedirs(mine)
    capture = os.path.join(tmp, "run.pb")
    result = harness.run([SYSTEM_PYTHON, PROGRAM, "--out", mine] + loop,
                         env=harness.agent_env({"PROF_OUTPUT": capture}, base=env), cwd=mine, timeout=300)
    check(result.returncode == 0, "libprof run: exit %d: %s" % (result.returncode, result.stderr[-2000:]))
    check("done none steps 6" in result.stdout, "the program's output under the agent: %r" % result.stdout)
    window = ["--wait", "1", "--warmup", "1", "--active", "4", "--repeat", "1"]
    files = {}
    for name, args in (("report", window), ("whole", []), ("shapes", ["--group-by-input-shape"] + window),
                       ("memory", ["--view", "memory"]), ("memory-window", ["--view", "memory"] + window)):
        files[name] = os.path.join(tmp, name + ".json")
        with open(files[name], "w") as f:
            f.write(harness.analyze(["report", capture, "--format", "json", "--row-limit", "-1"] + args))
    table = os.path.join(tmp, "table.md")
    result = harness.run([sys.executable, COMPARER, "--markdown", table,
                          "--torch", os.path.join(tmp, "torch_ops.json"),
                          "--torch-program", os.path.join(tmp, "program_torch.json"),
                          "--libprof-report", files["report"], "--libprof-whole", files["whole"],
                          "--libprof-shapes", files["shapes"], "--libprof-memory", files["memory"],
                          "--libprof-memory-window", files["memory-window"],
                          "--libprof-program", os.path.join(mine, "program_none.json")])
    check(result.returncode == 1, "the comparer on a CPU run: exit %d, want 1: %s" % (result.returncode, result.stderr))
    with open(table) as f:
        text = f.read()
    # What works on a CPU torch agrees: the steps (torch 1.13: the bootstrap
    # wraps each optimizer class's step) and the programs' runs.
    for line in ("| steps in the window | 4 | 4 | yes |", "| steps the program ran | 6 | 6 | yes |",
                 "| libprof's steps over the whole run | 7 | 7 | yes |"):
        check(line in text, "no %r in the table:\n%s" % (line, text))
    # What a CPU torch cannot give fails, named.
    for said in ("only in torch: [", "'AddmmBackward0'", "peak allocated, whole run (B): torch.profiler None"):
        check(said in result.stderr, "the comparer does not say %r:\n%s" % (said, result.stderr))


def reads_profanalyze_report(tmp):
    import simcuda_truth as cuda
    steps = 4
    _, _, _ = cuda.record_app(tmp, "torch_ops", [str(steps), "2.x"])
    capture = os.path.join(tmp, "run.pb")
    text = harness.analyze(["report", capture, "--format", "json", "--row-limit", "-1", "--wait", "1", "--warmup",
                            "1", "--active", "2", "--repeat", "1"])
    window = torch_compare.one_window(json.loads(text), "report")
    check(window["steps"] == [2, 3], "window steps %s" % window["steps"])
    table = torch_compare.Table(torch_compare.libprof_rows(window["rows"]))
    check(table.steps() == 2, "ProfilerStep* calls in the window: %d" % table.steps())
    operators = table.of_kind("operator")
    check(operators.get("aten::addmm") is not None and operators["aten::addmm"].count == 4,
          "aten::addmm: %s" % (operators.get("aten::addmm") and operators["aten::addmm"].count))
    check(operators["aten::addmm"].cuda_total_ns > 0, "aten::addmm has no CUDA total")
    for name in ("Optimizer.step#AdamW.step", "AddmmBackward0", "enumerate(DataLoader)#_SingleProcessDataLoaderIter"
                 ".__next__"):
        check(name in operators, "%s is not an operator row: %s" % (name, sorted(operators)))
    check(not any(n.startswith("nn.Module") or n.startswith("cuda") for n in operators),
          "module or runtime rows taken for operators: %s" % sorted(operators))
    gpu = table.of_kind("gpu")
    check(any("addmm_gemm_kernel" in n for n in gpu), "no kernel row: %s" % sorted(table.rows))
    check(table.gpu_total_ns() == sum(r.self_cuda_ns for r in operators.values()),
          "GPU rows %d ns, operators' self CUDA %d ns" % (table.gpu_total_ns(),
                                                          sum(r.self_cuda_ns for r in operators.values())))
    shapes = json.loads(harness.analyze(["report", capture, "--format", "json", "--row-limit", "-1",
                                         "--group-by-input-shape", "--wait", "1", "--warmup", "1", "--active", "2",
                                         "--repeat", "1"]))
    shaped = [r for r in torch_compare.libprof_rows(torch_compare.one_window(shapes, "shapes")["rows"])
              if r.name == "aten::addmm"]
    check(shaped and all(r.shapes.startswith("[[") for r in shaped),
          "aten::addmm's input shapes: %s" % [r.shapes for r in shaped])
    # The memory view of a capture without tensor memory: no peak, which the comparer fails on.
    memory = json.loads(harness.analyze(["report", capture, "--view", "memory", "--format", "json"]))
    check(torch_compare.memory_peak(memory) is None, "a peak without tensor memory: %s" % memory)


if __name__ == "__main__":
    sys.exit(main(globals(), "torch_compare_", required=(), optional=harness.SIMCUDA_OPTIONS))
