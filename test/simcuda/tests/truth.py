"""Reads a simcuda ground-truth log and checks the invariants every run must hold.

Imported by check_app.py and the CUPTI test; stdlib only.
"""
import json
import math
from collections import defaultdict

OPS = ("kernel", "memcpy", "memset")


class Truth:
    def __init__(self, path):
        with open(path) as f:
            self.lines = [json.loads(line) for line in f if line.strip()]
        self.apis = [l for l in self.lines if l["type"] == "api"]
        self.ops = [l for l in self.lines if l["type"] in OPS]
        self.syncs = [l for l in self.lines if l["type"] == "sync"]
        self.memory = [l for l in self.lines if l["type"] in ("alloc", "free")]

    def kernels(self, name_part=""):
        return [o for o in self.ops if o["type"] == "kernel" and name_part in o["name"]]

    def of_type(self, kind):
        return [o for o in self.ops if o["type"] == kind]

    def api(self, name):
        return [a for a in self.apis if a["name"] == name]


class Failures(list):
    def expect(self, condition, message):
        if not condition:
            self.append(message)
        return condition


def expected_duration(op, env):
    """The duration simcuda must give `op` under the simulation settings `env`."""
    overhead = int(env.get("SIMCUDA_COPY_OVERHEAD_NS", 1000))
    if op["type"] == "memset":
        return overhead + math.ceil(op["bytes"] / float(env.get("SIMCUDA_MEMSET_GBPS", 1000)))
    if op["type"] == "memcpy":
        # The host end of a copy to or from host memory (arrays are device memory).
        kinds = {"HtoD": op["src_kind"], "DtoH": op["dst_kind"], "HtoA": op["src_kind"], "AtoH": op["dst_kind"]}
        if op["copy_kind"] in ("DtoD", "DtoA", "AtoD", "AtoA"):
            gbps = float(env.get("SIMCUDA_DTOD_GBPS", 800))
        elif op["copy_kind"] == "PtoP":
            gbps = float(env.get("SIMCUDA_PEER_GBPS", 100))
        elif kinds.get(op["copy_kind"]) == "pinned":
            gbps = float(env.get("SIMCUDA_PINNED_GBPS", 24))
        else:
            gbps = float(env.get("SIMCUDA_PAGEABLE_GBPS", 6))
        return overhead + math.ceil(op["bytes"] / gbps)
    return None  # kernels: checked by the caller against its own table


def check_invariants(truth, env, failures):
    latency = int(env.get("SIMCUDA_LAUNCH_LATENCY_NS", 2000))
    corr_ids = {a["corr"] for a in truth.apis}
    per_stream = defaultdict(list)
    for op in truth.ops:
        failures.expect(op["start"] >= op["queued"] + latency,
                        "%s %s starts before enqueue + launch latency" % (op["type"], op["name"]))
        want = expected_duration(op, env)
        if want is not None:
            failures.expect(op["end"] - op["start"] == want,
                            "%s of %d bytes lasted %d ns, expected %d" %
                            (op["copy_kind"] if op["type"] == "memcpy" else "memset",
                             op["bytes"], op["end"] - op["start"], want))
        failures.expect(op["corr"] in corr_ids, "op %s has correlation %d of no API call" % (op["name"], op["corr"]))
        per_stream[op["stream"]].append(op)
    # Stream order: on one stream, operations run one after the other in
    # enqueue order. A graph launch is one of them: its nodes may overlap each
    # other (independent branches), never the work before or after it.
    for stream, ops in per_stream.items():
        items = {}
        for op in ops:
            key = ("graph launch", op["corr"]) if op["graph"] else ("op", id(op))
            item = items.setdefault(key, {"name": op["name"] if not op["graph"] else "graph launch %d" % op["corr"],
                                          "queued": op["queued"], "start": op["start"], "end": op["end"]})
            item["start"], item["end"] = min(item["start"], op["start"]), max(item["end"], op["end"])
        ordered = sorted(items.values(), key=lambda i: i["queued"])
        for before, after in zip(ordered, ordered[1:]):
            failures.expect(after["start"] >= before["end"],
                            "stream %d: %s starts before %s ends" % (stream, after["name"], before["name"]))
    # A synchronisation never returns before the work it waits for has ended.
    for sync in truth.syncs:
        if sync["sync_type"] == "stream":
            waited = [o for o in per_stream[sync["stream"]] if o["queued"] <= sync["start"]]
        elif sync["sync_type"] == "context":
            waited = [o for o in truth.ops if o["context"] == sync["context"] and o["queued"] <= sync["start"]]
        else:
            continue
        if waited:
            last_end = max(o["end"] for o in waited)
            failures.expect(sync["end"] >= last_end,
                            "%s sync ended at %d before its work ended at %d" % (sync["sync_type"], sync["end"], last_end))
    # Blocking copies return after the copy ended.
    ends_by_corr = defaultdict(int)
    for op in truth.ops:
        if op["type"] == "memcpy" and not op["async"]:
            ends_by_corr[op["corr"]] = max(ends_by_corr[op["corr"]], op["end"])
    for api in truth.apis:
        if api["corr"] in ends_by_corr and api["depth"] == 0:
            failures.expect(api["end"] >= ends_by_corr[api["corr"]],
                            "%s returned before its blocking copy ended" % api["name"])
    # Nesting: a driver call made by a runtime call shares its correlation id, runs on
    # its thread and lies within it.
    outer = {(a["tid"], a["corr"]): a for a in truth.apis if a["depth"] == 0}
    for api in truth.apis:
        if api["depth"] > 0:
            parent = outer.get((api["tid"], api["corr"]))
            if failures.expect(parent is not None, "nested %s has no enclosing call" % api["name"]):
                failures.expect(parent["start"] <= api["start"] and api["end"] <= parent["end"],
                                "%s is not within %s" % (api["name"], parent["name"]))
    # Every allocation is released at most once.
    live = set()
    for event in truth.memory:
        if event["type"] == "alloc":
            live.add(event["address"])
        else:
            failures.expect(event["address"] in live, "free of unknown address %d" % event["address"])
            live.discard(event["address"])
