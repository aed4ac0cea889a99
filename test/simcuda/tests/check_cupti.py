#!/usr/bin/env python3
"""Runs cupti_tool against simcuda and compares what CUPTI delivered with the
ground-truth log: every operation, API call, allocation and synchronisation, with
the same correlation ids and times; callback nesting; buffer delivery; drops; and
the SIMCUDA_CUPTI=off behaviour.

usage: check_cupti.py LIB_DIR TOOL
"""
import json
import os
import subprocess
import sys
import tempfile

from truth import Failures, Truth

COPY_KINDS = {"HtoD": 1, "DtoH": 2, "DtoD": 8, "HtoH": 9}
SYNC_TYPES = {"event": 1, "stream_wait_event": 2, "stream": 3, "context": 4}
# cupti_result.h
MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39


def run_tool(lib_dir, tool, mode, tmp, extra_env=None):
    out = os.path.join(tmp, mode + ".jsonl")
    truth = os.path.join(tmp, mode + "-truth.jsonl")
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir, SIMCUDA_TRUTH=truth, SIMCUDA_KERNEL_NS="cupti_probe=20000")
    env.update(extra_env or {})
    if env.get("SIMCUDA_TEST_PRELOAD"):  # sanitizer runtime for a sanitized simcuda
        env["LD_PRELOAD"] = env["SIMCUDA_TEST_PRELOAD"]
    run = subprocess.run([tool, out, mode], env=env, capture_output=True, text=True, timeout=60)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        return None, None, "%s mode exited with %d" % (mode, run.returncode)
    with open(out) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    return lines, Truth(truth), None


def check_normal(lines, truth, f):
    by_type = {}
    for line in lines:
        by_type.setdefault(line["type"], []).append(line)
    summary = by_type["summary"][0]
    second = by_type["second_subscribe"][0]
    f.expect(second["result"] == MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "second cuptiSubscribe: %d" % second["result"])
    f.expect(second["result_v2"] == MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, "second cuptiSubscribe_v2")
    f.expect(second["old_name"].startswith("CUPTI for"), "cuptiSubscribe_v2 did not name the present subscriber")
    f.expect(summary["version"] == 130001, "cuptiGetVersion gave %d" % summary["version"])
    f.expect(summary["dropped"] == 0, "records dropped: %d" % summary["dropped"])
    f.expect(summary["buffers_off_main_thread"] >= 1, "no buffer was delivered from a CUPTI thread")

    # Activity records against the truth, keyed by what identifies them.
    kernels = {(k["corr"], k["start"]): k for k in by_type.get("kernel", [])}
    for op in truth.kernels():
        rec = kernels.get((op["corr"], op["start"]))
        if f.expect(rec is not None, "kernel corr %d missing" % op["corr"]):
            f.expect(rec["end"] == op["end"] and rec["stream"] == op["stream"] and rec["name"] == op["name"]
                     and rec["grid"] == op["grid"] and rec["block"] == op["block"], "kernel record differs: %s" % rec)
    f.expect(len(by_type.get("kernel", [])) == len(truth.kernels()) == 41, "expected 41 kernel records")
    copies = {(c["corr"], c["start"]): c for c in by_type.get("memcpy", [])}
    for op in truth.of_type("memcpy"):
        rec = copies.get((op["corr"], op["start"]))
        if f.expect(rec is not None, "memcpy corr %d missing" % op["corr"]):
            f.expect(rec["end"] == op["end"] and rec["bytes"] == op["bytes"] and
                     rec["copy_kind"] == COPY_KINDS[op["copy_kind"]], "memcpy record differs: %s" % rec)
    memsets = {(m["corr"], m["start"]) for m in by_type.get("memset", [])}
    for op in truth.of_type("memset"):
        f.expect((op["corr"], op["start"]) in memsets, "memset corr %d missing" % op["corr"])
    apis = {(a["domain"], a["cbid"], a["corr"], a["start"]): a for a in by_type.get("api", [])}
    for call in truth.apis:
        rec = apis.get((call["domain"], call["cbid"], call["corr"], call["start"]))
        if f.expect(rec is not None, "API record for %s corr %d missing" % (call["name"], call["corr"])):
            f.expect(rec["end"] == call["end"] and rec["result"] == call["result"], "API record differs: %s" % rec)
    f.expect(len(apis) == len(truth.apis), "%d API records for %d calls" % (len(apis), len(truth.apis)))
    memory = {(m["type"], m["address"], m["time"]) for m in by_type.get("alloc", []) + by_type.get("free", [])}
    for event in truth.memory:
        f.expect((event["type"], event["address"], event["time"]) in memory, "memory record missing: %s" % event)
    syncs = {(s["sync_type"], s["start"], s["end"]) for s in by_type.get("sync", [])}
    for sync in truth.syncs:
        f.expect((SYNC_TYPES[sync["sync_type"]], sync["start"], sync["end"]) in syncs, "sync record missing: %s" % sync)
    external = by_type.get("external", [])
    f.expect(len(external) == 1 and external[0]["external_id"] == 4242, "external correlation: %s" % external)
    if external:
        tagged = [k for k in by_type.get("kernel", []) if k["corr"] == external[0]["corr"]]
        f.expect(len(tagged) == 1 and tagged[0]["grid"] == [1, 1, 1], "external id not on the tagged launch")
    f.expect(by_type.get("popped", [{}])[0].get("id") == 4242, "pop returned the wrong id")
    f.expect(len(by_type.get("device", [])) == 1, "expected one device record")
    # GRAPH_TRACE: one record per graph launch, spanning its nodes' work.
    traces = {t["corr"]: t for t in by_type.get("graph_trace", [])}
    launches = truth.api("cudaGraphLaunch")
    f.expect(len(launches) == 2 and len(traces) == 2, "%d graph traces for %d launches" % (len(traces), len(launches)))
    for launch in launches:
        work = [o for o in truth.ops if o["corr"] == launch["corr"]]
        trace = traces.get(launch["corr"])
        if f.expect(trace is not None and work, "no graph trace for launch corr %d" % launch["corr"]):
            f.expect(trace["start"] == min(o["start"] for o in work) and trace["end"] == max(o["end"] for o in work)
                     and trace["graph"] == work[0]["graph"], "graph trace differs: %s" % trace)

    # Callbacks: paired, nested with shared correlation ids, with params and results.
    callbacks = by_type.get("callback", [])
    enters = [c for c in callbacks if c["site"] == "enter"]
    exits = [c for c in callbacks if c["site"] == "exit"]
    f.expect(len(enters) == len(exits) == len(truth.apis), "callbacks: %d enter, %d exit, %d calls" %
             (len(enters), len(exits), len(truth.apis)))
    f.expect(all(c["data_kept"] for c in exits), "correlationData not kept from enter to exit")
    f.expect(all(c["params"] for c in callbacks if c["name"] not in ("cuCtxSynchronize", "cudaDeviceSynchronize",
                                                                      "cudaGetLastError")),
             "a callback has no functionParams")
    nested = [c for c in enters if c["domain"] == "driver" and c["parent_cbid"] >= 0]
    f.expect(len(nested) > 0, "no driver call nested in a runtime call")
    f.expect(all(c["corr"] == c["parent_corr"] for c in nested), "a nested driver call has its own correlation id")
    # <<<>>> launches are reported as cudaLaunchKernel, callback id 211 (as on an H100, driver 580).
    launches = [c for c in enters if c["name"] == "cudaLaunchKernel"]
    f.expect(len(launches) == 41 and all("cupti_probe_kernel" in c["symbol"] for c in launches),
             "cudaLaunchKernel callbacks lack the kernel's symbolName")
    f.expect(all(c["cbid"] == 211 for c in launches), "<<<>>> launches not reported with callback id 211")
    f.expect(all(c["parent_cbid"] >= 0 for c in enters if c["name"] in ("cuLaunchKernel", "cuKernelGetName")),
             "cuLaunchKernel or cuKernelGetName not nested in cudaLaunchKernel")
    results = {(c["name"], c["corr"]): c["result"] for c in exits}
    for call in truth.apis:
        f.expect(results.get((call["name"], call["corr"])) == call["result"], "exit result of %s" % call["name"])
    resources = {r["cbid"] for r in by_type.get("resource", [])}
    f.expect({1, 3, 5} <= resources, "resource callbacks (context, stream, init) missing: %s" % resources)

    # GPU work is delivered in completion order within each buffer. API and
    # sync records are only known when the call returns, after their end
    # time, so a GPU record that completed in between may precede them: they
    # are not part of this order (a slow run, e.g. under ASan, shows it).
    last = 0
    for line in lines:
        if line["type"] == "buffer_end":
            last = 0
        elif line["type"] in ("kernel", "memcpy", "memset") and line["end"]:
            f.expect(line["end"] >= last, "records out of completion order")
            last = line["end"]


def main():
    lib_dir, tool = sys.argv[1], sys.argv[2]
    f = Failures()
    with tempfile.TemporaryDirectory() as tmp:
        lines, truth, error = run_tool(lib_dir, tool, "normal", tmp)
        if f.expect(error is None, str(error)):
            check_normal(lines, truth, f)
        lines, _, error = run_tool(lib_dir, tool, "no-buffers", tmp)
        if f.expect(error is None, str(error)):
            summary = [l for l in lines if l["type"] == "summary"][0]
            f.expect(summary["dropped"] > 0 and summary["buffers"] == 0, "no-buffers: %s" % summary)
        lines, _, error = run_tool(lib_dir, tool, "cupti-off", tmp, {"SIMCUDA_CUPTI": "off"})
        f.expect(error is None, str(error))
    for failure in f[:40]:
        print("FAIL:", failure)
    print("cupti: %d failures" % len(f))
    return 1 if f else 0


if __name__ == "__main__":
    sys.exit(main())
