#!/usr/bin/env python3
"""Runs Holistic Trace Analysis (HTA) on a directory of Chrome traces, one per
rank, and prints what its analyses say as one JSON object on stdout.

Run by run_trace_reader_tests.py under Debian's /usr/bin/python3 (HTA needs
pandas, numpy, networkx, plotly, pydot: python3-* packages that
scripts/bootstrap.sh installs), with HTA on PYTHONPATH. Kept apart from the
test so that the test itself needs only the standard library.
"""
import json
import logging
import math
import sys


def number(value):
    value = float(value)
    return None if math.isnan(value) else value


def main():
    trace_dir = sys.argv[1]
    logging.disable(logging.WARNING)  # HTA warns about every ns-resolution trace
    from hta.trace_analysis import TraceAnalysis

    analysis = TraceAnalysis(trace_dir=trace_dir)
    ranks = sorted(int(r) for r in analysis.t.traces.keys())
    out = {"ranks": ranks}

    # Every kernel by name: no "others" row.
    types, kernels = analysis.get_gpu_kernel_breakdown(visualize=False, duration_ratio=1.0, num_kernels=1000000)
    out["kernel_types"] = [{"kernel_type": r["kernel_type"], "sum": number(r["sum"])} for _, r in types.iterrows()]
    out["kernels"] = [{"rank": int(r["rank"]), "name": r["name"], "kernel_type": r["kernel_type"],
                       "sum": number(r["sum (us)"]), "max": number(r["max (us)"]), "min": number(r["min (us)"])}
                      for _, r in kernels.iterrows()]

    temporal = analysis.get_temporal_breakdown(visualize=False)
    out["temporal"] = [{"rank": int(r["rank"]), "idle": number(r["idle_time(us)"]),
                        "compute": number(r["compute_time(us)"]), "non_compute": number(r["non_compute_time(us)"]),
                        "kernel": number(r["kernel_time(us)"])} for _, r in temporal.iterrows()]

    idle, _ = analysis.get_idle_time_breakdown(ranks=ranks, visualize=False)
    out["idle"] = [{"rank": int(r["rank"]), "stream": int(r["stream"]), "category": r["idle_category"],
                    "time": number(r["idle_time"])} for _, r in idle.iterrows()]

    queue = analysis.get_queue_length_summary(ranks=ranks)
    out["queue_length"] = [] if queue is None else [
        {"rank": int(rank), "stream": int(stream), "count": number(row[("queue_length", "count")]),
         "max": number(row[("queue_length", "max")])}
        for (rank, stream), row in queue.iterrows()]

    launches = analysis.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    out["launch_stats"] = {str(rank): [{k: number(v) for k, v in row.items()} for _, row in df.iterrows()]
                           for rank, df in launches.items()}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
