#!/usr/bin/env python3
"""Runs Holistic Trace Analysis's operator-level functions on a directory
holding one Chrome trace and prints, as one JSON object: per cpu_op name,
the kernels HTA's call graph puts under its events (count and summed
duration, us), and get_aten_op_kernels_and_delay's rows (aten op, kernel
path, count). Run by run_torch_ops_tests.py under Debian's python3 with HTA
on PYTHONPATH, as hta_report.py is.
"""
import collections
import json
import logging
import sys


def main():
    trace_dir = sys.argv[1]
    logging.disable(logging.WARNING)
    from hta.common.trace_call_graph import CallGraph
    from hta.trace_analysis import TraceAnalysis

    analysis = TraceAnalysis(trace_dir=trace_dir)
    trace = analysis.t
    CallGraph(trace, ranks=[0])  # fills num_kernels and kernel_dur_sum into the rank's frame
    df = trace.get_trace(0)
    trace.symbol_table.decode_df(df, create_new_columns=True)
    ops = collections.defaultdict(lambda: {"events": 0, "kernels": 0, "kernel_us": 0})
    cpu_op = df["s_cat"].eq("cpu_op")
    for _, row in df[cpu_op].iterrows():
        entry = ops[row["s_name"]]
        entry["events"] += 1
        if row.get("num_kernels", 0) > 0:
            entry["kernels"] += int(row["num_kernels"])
            entry["kernel_us"] += int(row["kernel_dur_sum"])
    delay = analysis.get_aten_op_kernels_and_delay(ranks=[0])
    rows = []
    for _, row in delay.get(0, delay.get("0")).iterrows():
        rows.append({k: (v if isinstance(v, (str, int, float)) else str(v)) for k, v in row.items()})
    json.dump({"ops": ops, "aten_op_kernels": rows}, sys.stdout, default=str)


if __name__ == "__main__":
    main()
