#!/usr/bin/env python3
"""The hooks backend on the simcuda apps of issue 31 (kernel attributes,
cooperative launches, memory pools, peer copies...), whose programs call CUDA
functions the agent's hooks may not wrap (agent/capture/hooks/
hooked_functions.txt). CUPTI off: every call of the truth that the hooks
wrap is recorded once, in order, with its result and around the truth's
interval, and every call of the truth must be wrapped; and the same app
through CUPTI and through the hooks alone records the same calls, its GPU
work timed as the truth has it. One scenario per invocation, with
run_cuda_tests.py's arguments.
"""
import collections
import json
import os
import re
import sys

import simcuda_truth as cuda
from harness import ARGS, check, main

HOOKED_FUNCTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "agent", "capture", "hooks",
                                "hooked_functions.txt")


def wrapped_names():
    """The names (as CUPTI's functionName, which the truth uses) of the calls
    the hooks record: a driver row's exported name; a runtime row's CUPTI key
    (its `as` key when it has one) without the _vNNNN suffix."""
    names = set()
    with open(HOOKED_FUNCTIONS) as f:
        for line in f:
            words = line.split("#")[0].split()
            if not words:
                continue
            if words[0] == "driver":
                names.add(words[1])
            elif words[0] == "runtime":
                key = words[4] if len(words) >= 5 and words[3] == "as" else words[2]
                names.add(re.sub(r"_v\d+$", "", key))
    return names


def hooks_match_truth_where_wrapped(tmp, app, *args):
    """Every call of the truth is wrapped (none is missing from a hooks-only
    file), and recorded once, in order, as the truth has it, and so is the
    memory it allocates and releases (outside graphs and arrays)."""
    env = dict(cuda.APP_ENV.get(app, {}), PROF_API="all", SIMCUDA_CUPTI="off", PROF_GPU_TIMING="none")
    _, truth, records = cuda.record_app(tmp, app, list(args), env)
    wrapped = wrapped_names()
    unwrapped = sorted({t["name"] for t in cuda.without_agent_calls_in_truth(truth)
                        if t["type"] == "api" and t["name"] not in wrapped})
    check(not unwrapped, "%s: calls the hooks do not wrap: %s" % (app, " ".join(unwrapped)))
    cuda.compare_hooked_calls(truth, records)
    cuda.compare_memory(truth, records, "hooks")
    drops = [r for r in records if r["type"] == "drops"]
    check(drops and drops[-1]["ring_full"] == 0, "drops: %s" % drops[-1:])


def hooks_agree_with_cupti(tmp, app, *args):
    """The same app recorded through CUPTI and through the hooks alone
    (SIMCUDA_CUPTI=off, GPU work timed with events): the same API calls by
    name and count; GPU work outside graphs as the truth has it (graph
    launches are not event-timed, docs/how-capture-works.md); the memory
    the truth allocates and releases (the hooks: outside graphs and arrays),
    and so the memory columns of `profanalyze report`."""
    calls, memory = {}, {}
    for backend, extra in (("cupti", {}), ("hooks", {"SIMCUDA_CUPTI": "off"})):
        sub = os.path.join(tmp, backend)
        os.mkdir(sub)
        env = dict(cuda.APP_ENV.get(app, {}), PROF_API="all", **extra)
        _, truth, records = cuda.record_app(sub, app, list(args), env)
        calls[backend] = collections.Counter(r["name"] for r in records if r["type"] == "api")
        if backend == "cupti":
            cuda.compare_with_truth(truth, records)
        else:
            cuda.compare_event_timed(truth, records)
        cuda.compare_memory(truth, records, backend)
        memory[backend] = memory_columns(sub)
    missing, extra = calls["cupti"] - calls["hooks"], calls["hooks"] - calls["cupti"]
    check(not missing and not extra, "%s: calls only through CUPTI %s, only through the hooks %s" %
          (app, dict(missing), dict(extra)))
    check(memory["cupti"] == memory["hooks"], "%s: memory columns of the report through CUPTI %s, the hooks %s" %
          (app, memory["cupti"], memory["hooks"]))


# Rows whose memory the hooks cannot see (hooks/memory_events.h): graph
# memory nodes (cudaGraphLaunch) and arrays.
NOT_SEEN_BY_HOOKS = re.compile(r"Graph|Array")


def memory_columns(cwd):
    """`profanalyze report`'s memory columns per row (CUDA Mem, CPU Mem), where not zero."""
    result = cuda.run([ARGS.analyzer, "report", "--format", "json", "--row-limit", "-1", "run.pb"],
                      env=cuda.base_env(False), cwd=cwd)
    check(result.returncode == 0, result.stderr)
    columns = {}
    for window in json.loads(result.stdout)["windows"]:
        for row in window["rows"]:
            if NOT_SEEN_BY_HOOKS.search(row["name"]):
                continue
            both = (row.get("self_cuda_mem_bytes", 0), row.get("self_cpu_mem_bytes", 0))
            if any(both):
                columns[row["name"]] = both
    return columns


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-simcuda-api-"))
