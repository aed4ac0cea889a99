#!/usr/bin/env python3
"""The hooks backend on the simcuda apps of issue 31 (kernel attributes,
cooperative launches, memory pools, peer copies...), whose programs call CUDA
functions the agent's hooks may not wrap (agent/capture/hooks/
hooked_functions.txt). CUPTI off: every call of the truth that the hooks
wrap is recorded once, in order, with its result and around the truth's
interval; the calls of the truth they do not wrap are listed on stdout (for
the hooks' owners) and must be absent from the file. One scenario per
invocation, with run_cuda_tests.py's arguments.
"""
import os
import re
import sys

import run_cuda_tests as cuda
from harness import check, main

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
    env = dict(cuda.APP_ENV.get(app, {}), PROF_API="all", SIMCUDA_CUPTI="off", PROF_GPU_TIMING="none")
    _, truth, records = cuda.record_app(tmp, app, list(args), env)
    wrapped = wrapped_names()
    unwrapped = sorted({t["name"] for t in truth if t["type"] == "api" and t["name"] not in wrapped})
    print("%s: calls the hooks do not wrap: %s" % (app, " ".join(unwrapped) or "none"))
    recorded = {r["name"] for r in records if r["type"] == "api"}
    check(not recorded & set(unwrapped), "recorded without a hook: %s" % sorted(recorded & set(unwrapped)))
    kept = [t for t in truth if t["type"] != "api" or t["name"] in wrapped]
    cuda.compare_hooked_calls(kept, records)
    drops = [r for r in records if r["type"] == "drops"]
    check(drops and drops[-1]["ring_full"] == 0, "drops: %s" % drops[-1:])


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-simcuda-api-"))
