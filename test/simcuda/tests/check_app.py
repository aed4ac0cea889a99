#!/usr/bin/env python3
"""Runs one test app against simcuda with a ground-truth log and checks the log.

usage: check_app.py LIB_DIR APPS_DIR APP [ARGS...]
Exits non-zero with a list of failures. Each app's expectations are in EXPECTATIONS.
"""
import bisect
import collections
import os
import subprocess
import sys
import tempfile

from truth import Failures, Truth, check_invariants

# Kernel durations the apps run with: distinct per kernel so that a mix-up shows.
KERNEL_NS = {
    "tiny_kernel": 3000,
    "produce_kernel": 300000,
    "consume_kernel": 200000,
    "graph_step_a": 40000,
    "graph_step_b": 60000,
    "forward_kernel": 150000,
    "backward_kernel": 250000,
    "optimizer_kernel": 50000,
    "symbolized_kernel": 7000,
    "driver_scale_kernel": 11000,
    "driver_reduce_kernel": 13000,
    "worker_kernel": 5000,
    "queued_kernel": 200000,
    "before_host_kernel": 20000,
    "after_host_kernel": 21000,
    "touch_kernel": 30000,
    "use_symbols_kernel": 9000,
    "graph_node_kernel": 17000,
    "capture_fork_kernel": 19000,
    "driver_extra_kernel": 23000,
    "attributed_kernel": 27000,
    "cooperative_kernel": 29000,
    "cluster_kernel": 31000,
    "pool_kernel": 33000,
    "graph_api_kernel": 35000,
    "child_kernel": 37000,
    "sample_kernel": 39000,
    "surface_kernel": 41000,
    "module_scale_kernel": 43000,
    "module_fill_kernel": 45000,
    "order_kernel": 47000,
    "if_body_kernel": 49000,
    "else_body_kernel": 51000,
    "while_body_kernel": 53000,
    "branch_a_kernel": 55000,
    "branch_b_kernel": 57000,
    "join_kernel": 59000,
    "setters_kernel": 61000,
    "removed_kernel": 63000,
}
# Per-app simulation settings: async_copy's copy lasts long enough (67 ms) that a
# loaded machine's scheduling delays cannot pass for the host doing the copy.
APP_ENV = {"async_copy": {"SIMCUDA_PINNED_GBPS": "2"}, "peer_copies": {"SIMCUDA_DEVICES": "2"},
           "driver_extras": {"SIMCUDA_DEVICES": "2"}, "peer_default_copies": {"SIMCUDA_DEVICES": "2"},
           # What graph_nodes' WHILE body kernel sets its handle to (device code never runs).
           "graph_nodes": {"SIMCUDA_GRAPH_CONDITIONS": "while_body_kernel=1:1:0"}}
QUEUE_DEPTH = 1024  # simcuda's default, as a real GPU's stream queue (README)


def expect_tiny_kernels(truth, args, f):
    n = int(args[0]) if args else 1000
    kernels = truth.kernels("tiny_kernel")
    f.expect(len(kernels) == n, "expected %d tiny kernels, got %d" % (n, len(kernels)))
    f.expect({k["stream"] for k in kernels} == {7}, "tiny kernels not on the legacy stream 7")
    f.expect(all(k["name"] == "_Z11tiny_kernelPii" for k in kernels), "kernel name is not the mangled name")
    # <<<>>> is reported as cudaLaunchKernel (callback id 211), nesting the runtime's
    # per-launch cuKernelGetName and the launch itself (as on an H100, driver 580).
    launches = truth.api("cudaLaunchKernel")
    f.expect(len(launches) == n and all(l["cbid"] == 211 for l in launches),
             "expected %d cudaLaunchKernel calls with callback id 211" % n)
    for nested in ("cuKernelGetName", "cuLaunchKernel"):
        driver = {a["corr"] for a in truth.api(nested) if a["depth"] == 1}
        f.expect(all(l["corr"] in driver for l in launches), "a cudaLaunchKernel does not nest %s" % nested)
    f.expect(len(truth.api("cuModuleLoadData")) == 1, "the module is not loaded exactly once (lazily)")


def expect_two_streams(truth, args, f):
    produce, consume = truth.kernels("produce_kernel"), truth.kernels("consume_kernel")
    f.expect(len(produce) == 3 and len(consume) == 2, "expected 3 produce and 2 consume kernels")
    f.expect(len({k["stream"] for k in produce + consume}) == 2, "expected two streams")
    f.expect(min(c["start"] for c in consume) >= max(p["end"] for p in produce),
             "a consumer started before the producer's event")


def expect_copies(truth, args, f):
    kinds = [(c["copy_kind"], c["src_kind"] if c["copy_kind"] == "HtoD" else c["dst_kind"], c["bytes"])
             for c in truth.of_type("memcpy")]
    big = 4 << 20
    for want in [("HtoD", "pageable", big), ("DtoH", "pageable", big), ("HtoD", "pinned", big),
                 ("DtoH", "pinned", big), ("HtoD", "pageable", 64 * 32), ("DtoH", "pageable", 64 * 32)]:
        f.expect(want in kinds, "missing copy %s" % (want,))
    f.expect(any(c["copy_kind"] == "DtoD" for c in truth.of_type("memcpy")), "missing DtoD copy")
    f.expect(sorted(m["bytes"] for m in truth.of_type("memset")) == [4096, big], "memsets wrong")
    pinned = [c for c in truth.of_type("memcpy") if c["copy_kind"] == "HtoD" and c["src_kind"] == "pinned"][0]
    pageable = [c for c in truth.of_type("memcpy") if c["copy_kind"] == "HtoD" and c["bytes"] == big][0]
    f.expect(pinned["end"] - pinned["start"] < pageable["end"] - pageable["start"], "pinned not faster")
    f.expect(any(a["name"] == "cudaMemcpy" and a["result"] == 21 for a in truth.apis),
             "bad direction not reported as cudaErrorInvalidMemcpyDirection")


def expect_malloc_churn(truth, args, f):
    rounds = int(args[0]) if args else 50
    allocs = [m for m in truth.memory if m["type"] == "alloc"]
    frees = [m for m in truth.memory if m["type"] == "free"]
    f.expect(len(allocs) == rounds * 6 and len(frees) == rounds * 6, "expected 6 allocations per round")
    f.expect(sum(1 for m in allocs if m["memory_kind"] == "pinned") == rounds, "pinned allocations")
    f.expect(sum(1 for m in allocs if m["async"]) == rounds, "stream-ordered allocations")


def expect_multithread_launch(truth, args, f):
    per_thread = (int(args[0]) if args else 100) + 1
    kernels = truth.kernels("worker_kernel")
    f.expect(len(kernels) == 8 * per_thread, "expected %d kernels, got %d" % (8 * per_thread, len(kernels)))
    launch_tids = {a["tid"] for a in truth.apis if a["name"].startswith("cudaLaunchKernel")}
    f.expect(len(launch_tids) == 8, "expected launches from 8 threads, got %d" % len(launch_tids))
    f.expect(len({k["stream"] for k in kernels}) == 16, "expected 8 streams + 8 per-thread default streams")


def expect_graph_replay(truth, args, f):
    replays = int(args[0]) if args else 20
    graph_ops = [o for o in truth.ops if o["graph"] != 0]
    f.expect(len(graph_ops) == 4 * replays, "expected %d graph operations, got %d" % (4 * replays, len(graph_ops)))
    launches = {a["corr"] for a in truth.api("cudaGraphLaunch")}
    f.expect(all(o["corr"] in launches for o in graph_ops), "graph work not correlated with cudaGraphLaunch")
    f.expect(len({o["graph_node"] for o in graph_ops}) == 4, "expected 4 distinct graph nodes")
    f.expect(not [k for k in truth.kernels("graph_step") if k["graph"] == 0], "a kernel ran during capture")


def expect_nvtx_training(truth, args, f):
    steps = int(args[0]) if args else 5
    f.expect(len(truth.kernels("forward_kernel")) == steps, "forward kernels")
    f.expect(len(truth.kernels("optimizer_kernel")) == steps, "optimizer kernels")
    f.expect(len([s for s in truth.syncs if s["sync_type"] == "context"]) == steps, "one sync per step")


def expect_launch_site(truth, args, f):
    n = int(args[0]) if args else 3
    f.expect(len(truth.kernels("symbolized_kernel")) == n, "expected %d launches" % n)


def expect_driver_api(truth, args, f):
    kernels = truth.kernels("driver_")
    f.expect(len(kernels) == 3, "expected 3 driver kernels, got %d" % len(kernels))
    f.expect(all(a["depth"] == 0 for a in truth.api("cuLaunchKernel")), "driver launches must be outermost")
    f.expect(len(truth.api("cuLaunchKernelEx")) == 1, "cuLaunchKernelEx")
    f.expect([a["result"] for a in truth.api("cuModuleGetFunction")].count(500) == 1, "NOT_FOUND lookup")


def expect_launch_queue(truth, args, f):
    n = int(args[0]) if args else 3000
    kernels = sorted(truth.kernels("queued_kernel"), key=lambda k: k["queued"])
    f.expect(len(kernels) == n and len({k["stream"] for k in kernels}) == 1, "expected %d kernels on one stream" % n)
    launch_end = {a["corr"]: a["end"] for a in truth.apis if a["depth"] == 0}
    queued = [k["queued"] for k in kernels]
    ends = sorted(k["end"] for k in kernels)
    deepest = 0
    for i, k in enumerate(kernels):
        t = launch_end[k["corr"]]
        pending = bisect.bisect_right(queued, t) - bisect.bisect_right(ends, t)
        deepest = max(deepest, pending)
        f.expect(pending <= QUEUE_DEPTH, "launch %d returned with %d operations pending" % (i, pending))
        if i >= QUEUE_DEPTH:
            f.expect(t >= kernels[i - QUEUE_DEPTH]["end"],
                     "launch %d returned before kernel %d completed" % (i, i - QUEUE_DEPTH))
    f.expect(deepest == QUEUE_DEPTH, "the queue never filled (deepest %d): the host was not ahead" % deepest)


def expect_async_copy(truth, args, f):
    big = [c for c in truth.of_type("memcpy") if c["bytes"] == 128 << 20 and c["async"]]
    f.expect(len(big) == 1 and big[0]["src_kind"] == "pinned", "expected one async pinned 128 MiB copy")
    if big:
        call = [a for a in truth.apis if a["corr"] == big[0]["corr"] and a["depth"] == 0][0]
        copy_ns = big[0]["end"] - big[0]["start"]
        f.expect(call["end"] - call["start"] < copy_ns // 2,
                 "cudaMemcpyAsync held the host %d ns for a %d ns copy" % (call["end"] - call["start"], copy_ns))
        f.expect(call["end"] < big[0]["end"], "cudaMemcpyAsync returned after its copy ended")
    staged = [c for c in truth.of_type("memcpy") if c["bytes"] == 1 << 20 and c["src_kind"] == "pageable"]
    f.expect(len(staged) == 1 and staged[0]["async"] == 1, "expected one async pageable copy")


def nests(truth, outer, inner):
    """Every call named `outer` nests at least one call named `inner`."""
    inner_corrs = {a["corr"] for a in truth.api(inner) if a["depth"] > 0}
    return truth.api(outer) and all(a["corr"] in inner_corrs for a in truth.api(outer))


def expect_host_callbacks(truth, args, f):
    hosts = [l for l in truth.lines if l["type"] == "host_function"]
    f.expect(len(hosts) == 2 and len({h["stream"] for h in hosts}) == 1, "expected 2 host functions on one stream")
    f.expect(nests(truth, "cudaStreamAddCallback", "cuStreamAddCallback"), "cudaStreamAddCallback nesting")
    f.expect(nests(truth, "cudaLaunchHostFunc", "cuLaunchHostFunc"), "cudaLaunchHostFunc nesting")
    if len(hosts) == 2:
        stream_ops = [o for o in truth.ops if o["stream"] == hosts[0]["stream"]]
        copy = [o for o in stream_ops if o["type"] == "memcpy"][0]
        after = [o for o in stream_ops if "after_host_kernel" in o.get("name", "")][0]
        f.expect(hosts[0]["start"] >= copy["end"], "the callback ran before the copy before it ended")
        f.expect(hosts[1]["start"] >= hosts[0]["end"], "the host function ran before the callback ended")
        f.expect(after["start"] >= hosts[1]["end"], "the kernel after the host function started before it ended")
        call_corrs = {a["corr"] for a in truth.api("cudaStreamAddCallback") + truth.api("cudaLaunchHostFunc")}
        f.expect({h["corr"] for h in hosts} == call_corrs, "host functions not correlated with their calls")


def expect_peer_copies(truth, args, f):
    peer = [c for c in truth.of_type("memcpy") if c["copy_kind"] == "PtoP"]
    f.expect(len(peer) == 2 and all(c["bytes"] == 1 << 20 for c in peer), "expected two 1 MiB peer copies")
    f.expect(sorted((c["src_device"], c["dst_device"]) for c in peer) == [(0, 1), (1, 0)],
             "peer copies not 0->1 and 1->0")
    f.expect(nests(truth, "cudaMemcpyPeer", "cuMemcpyPeer"), "cudaMemcpyPeer does not nest cuMemcpyPeer")
    f.expect(nests(truth, "cudaMemcpyPeerAsync", "cuMemcpyPeerAsync"), "cudaMemcpyPeerAsync nesting")
    f.expect([a["result"] for a in truth.api("cudaDeviceDisablePeerAccess")] == [0, 705],
             "disabling peer access twice: %s" % [a["result"] for a in truth.api("cudaDeviceDisablePeerAccess")])
    f.expect([a["result"] for a in truth.api("cudaDeviceEnablePeerAccess")] == [0], "enabling peer access")


def expect_managed_memory(truth, args, f):
    f.expect([a["result"] for a in truth.api("cudaMemPrefetchAsync")] == [0, 0], "two prefetches")
    f.expect(nests(truth, "cudaMemPrefetchAsync", "cuMemPrefetchAsync_v2"), "prefetch nesting")
    f.expect(nests(truth, "cudaStreamAttachMemAsync", "cuStreamAttachMemAsync"), "attach nesting")
    f.expect(nests(truth, "cudaHostGetDevicePointer", "cuMemHostGetDevicePointer_v2"), "mapped pointer nesting")
    kinds = {(c["src_kind"], c["dst_kind"]) for c in truth.of_type("memcpy")}
    f.expect(("managed", "pinned") in kinds, "no copy from managed to mapped memory: %s" % kinds)
    allocs = [m["memory_kind"] for m in truth.memory if m["type"] == "alloc"]
    f.expect(sorted(allocs) == ["managed", "pinned"], "allocations: %s" % allocs)


def expect_symbol_copies(truth, args, f):
    f.expect([a["result"] for a in truth.api("cudaMemcpyToSymbol")] == [0, 0, 0, 1], "cudaMemcpyToSymbol results")
    f.expect(nests(truth, "cudaMemcpyFromSymbol", "cuMemcpyDtoH_v2"), "cudaMemcpyFromSymbol nesting")
    f.expect(len(truth.api("cuModuleLoadData")) == 1, "the module is not loaded exactly once")
    copies = truth.of_type("memcpy")
    f.expect(sorted((c["copy_kind"], c["bytes"]) for c in copies) ==
             [("DtoH", 4), ("DtoH", 64), ("HtoD", 4), ("HtoD", 16), ("HtoD", 64)], "symbol copies: %s" %
             sorted((c["copy_kind"], c["bytes"]) for c in copies))


def expect_graph_build(truth, args, f):
    replays = int(args[0]) if args else 5
    launches = {a["corr"] for a in truth.api("cudaGraphLaunch")}
    f.expect(len(launches) == 2 * replays + 3, "expected %d graph launches" % (2 * replays + 3))
    f.expect(all(o["graph"] != 0 for o in truth.ops), "an operation ran at capture or build time")
    f.expect(all(o["corr"] in launches for o in truth.ops if o["graph"]), "graph work not correlated with its launch")
    built = truth.kernels("graph_node_kernel")
    forked = truth.kernels("capture_fork_kernel")
    f.expect(len(built) == replays + 3 and len(forked) == replays, "kernels per launch")
    f.expect([k["grid"][0] for k in built].count(512) == 1, "cudaGraphExecKernelNodeSetParams did not change a launch")
    hosts = [l for l in truth.lines if l["type"] == "host_function"]
    f.expect(len(hosts) == replays + 3 and all(h["graph"] for h in hosts), "one host node per launch")
    f.expect(len(truth.of_type("memcpy")) == 3 * replays + 2, "copies per launch")
    allocs = [m for m in truth.memory if m["type"] == "alloc" and m["memory_kind"] == "device" and m["async"]]
    frees = [m for m in truth.memory if m["type"] == "free" and m["memory_kind"] == "device" and m["async"]]
    f.expect(len(allocs) == 2 * replays + 1 and len(frees) == 2 * replays + 1,
             "graph memory: %d allocations, %d frees" % (len(allocs), len(frees)))
    f.expect(all(m["corr"] in launches for m in allocs + frees), "graph memory not made at its launch")
    f.expect([a["result"] for a in truth.api("cudaGraphExecUpdate")] == [0], "cudaGraphExecUpdate")


def expect_driver_extras(truth, args, f):
    f.expect(all(a["depth"] == 0 for a in truth.apis), "a driver-only program has nested calls")
    for name in ("cuModuleGetGlobal_v2", "cuFuncGetAttribute", "cuOccupancyMaxPotentialBlockSize",
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor", "cuLaunchHostFunc", "cuMemcpyPeer"):
        calls = truth.api(name)
        f.expect(len(calls) == 1 and calls[0]["result"] == 0, "%s: %s" % (name, calls))
    f.expect(len([l for l in truth.lines if l["type"] == "host_function"]) == 1, "one host function")
    f.expect([c["copy_kind"] for c in truth.of_type("memcpy")] == ["HtoD", "DtoH", "PtoP", "DtoH"],
             "copies: %s" % [c["copy_kind"] for c in truth.of_type("memcpy")])


def expect_kernel_attributes(truth, args, f):
    kernels = truth.kernels("attributed_kernel")
    f.expect(len(kernels) == 1 and kernels[0]["shared"] == 96 * 1024,
             "one launch with 96 KiB of dynamic shared memory: %s" % kernels)
    launches = truth.api("cudaLaunchKernel")
    results = [l["result"] for l in launches]
    f.expect(len(results) == 2 and results[0] != 0 and results[1] == 0,
             "the launch before the opt-in fails, the one after runs: %s" % results)
    f.expect(nests(truth, "cudaFuncSetAttribute", "cuFuncSetAttribute"), "cudaFuncSetAttribute nests cuFuncSetAttribute")
    f.expect(nests(truth, "cudaDeviceSetLimit", "cuCtxSetLimit"), "cudaDeviceSetLimit nests cuCtxSetLimit")
    f.expect(nests(truth, "cudaDeviceGetCacheConfig", "cuCtxGetCacheConfig"), "cache config through the driver")
    refused = [a for a in truth.api("cuFuncSetAttribute") if a["result"] != 0]
    f.expect(len(refused) == 1 and refused[0]["result"] == 1, "a read-only attribute is refused: %s" % refused)


def expect_cooperative_launch(truth, args, f):
    cooperative = truth.kernels("cooperative_kernel")
    f.expect(len(cooperative) == 2 and all(k["launch_type"] == 1 for k in cooperative),
             "two cooperative launches (CUPTI launch type 1): %s" % [k.get("launch_type") for k in cooperative])
    f.expect(all(k["grid"][0] == 132 * 8 for k in cooperative), "grid of 8 blocks of 256 threads on each of 132 SMs")
    clusters = truth.kernels("cluster_kernel")
    f.expect(len(clusters) == 1 and clusters[0]["cluster"] == [2, 1, 1] and clusters[0]["launch_type"] == 0,
             "one cluster launch of 2x1x1: %s" % clusters)
    f.expect([a["result"] for a in truth.api("cudaLaunchCooperativeKernel")] == [0, 720],
             "a grid one block too large is refused with 720")
    f.expect(nests(truth, "cudaLaunchCooperativeKernel", "cuLaunchCooperativeKernel"), "nested driver launch")
    f.expect(nests(truth, "cudaLaunchKernelExC", "cuLaunchKernelEx"), "cudaLaunchKernelExC nests cuLaunchKernelEx")


def expect_peer_default_copies(truth, args, f):
    copies = truth.of_type("memcpy")
    f.expect([c["copy_kind"] for c in copies] == ["HtoD", "PtoP", "PtoP", "DtoH"],
             "copies: %s" % [c["copy_kind"] for c in copies])
    peer = [c for c in copies if c["copy_kind"] == "PtoP"]
    f.expect([(c.get("src_device"), c.get("dst_device")) for c in peer] == [(0, 1), (1, 0)],
             "peer copies 0 -> 1 and 1 -> 0: %s" % [(c.get("src_device"), c.get("dst_device")) for c in peer])
    # At SIMCUDA_PEER_GBPS (100), not the 800 GB/s of a copy within a device.
    f.expect(all(c["end"] - c["start"] == 1000 + (1 << 20) // 100 + 1 for c in peer),
             "peer copy durations: %s" % [c["end"] - c["start"] for c in peer])
    attributes = truth.api("cudaDeviceGetP2PAttribute")
    f.expect([a["result"] for a in attributes] == [0, 0, 0, 101], "P2P attributes: %s" % [a["result"] for a in attributes])
    f.expect(nests(truth, "cudaDeviceGetP2PAttribute", "cuDeviceGetP2PAttribute"), "nested driver call")


def expect_memory_pools(truth, args, f):
    allocs = [m for m in truth.memory if m["type"] == "alloc" and m["async"]]
    frees = [m for m in truth.memory if m["type"] == "free" and m["async"]]
    f.expect([m["bytes"] for m in allocs] == [1 << 20, 2 << 20] and len(frees) == 2,
             "two stream-ordered allocations and frees: %s" % [m["bytes"] for m in allocs])
    if len(allocs) == 2 and len(frees) == 2:
        f.expect(allocs[0]["pool"] != allocs[1]["pool"], "the two allocations come from two pools")
        f.expect(allocs[1]["pool_used"] == 2 << 20 and allocs[1]["pool_release_threshold"] == 4 << 20,
                 "the pool's state at the allocation: %s" % allocs[1])
        f.expect(frees[1]["pool_used"] == 0 and frees[1]["pool_reserved"] == 2 << 20,
                 "freed memory stays reserved: %s" % frees[1])
    pools = [l for l in truth.lines if l["type"].startswith("pool_")]
    f.expect([p["type"] for p in pools] == ["pool_created", "pool_trimmed", "pool_destroyed", "pool_trimmed"],
             "pool records: %s" % [p["type"] for p in pools])
    if len(pools) == 4:
        f.expect(pools[1]["pool_reserved"] == 0 and pools[3]["pool_reserved"] == 0, "trimmed to nothing")
    f.expect(nests(truth, "cudaMallocFromPoolAsync", "cuMemAllocFromPoolAsync"), "nested driver allocation")
    f.expect(all(a["result"] == 0 for a in truth.apis), "every call succeeds")


def expect_graph_api(truth, args, f):
    launches = [a["corr"] for a in truth.api("cudaGraphLaunch")]
    f.expect(len(launches) == 2, "two graph launches")
    for name, grid in (("graph_api_kernel", 4096), ("child_kernel", 4096)):
        kernels = truth.kernels(name)
        f.expect(len(kernels) == 2 and all(k["grid"][0] == grid and k["graph"] for k in kernels),
                 "%s once per launch, grid %d: %s" % (name, grid, [k["grid"] for k in kernels]))
        f.expect(all(k["corr"] in launches for k in kernels), "%s not correlated with its launch" % name)
    f.expect(len(truth.of_type("memset")) == 2, "one memset per launch")
    copies = truth.of_type("memcpy")
    f.expect(len(copies) == 2 and all(c["copy_kind"] == "DtoH" and c["graph"] for c in copies),
             "one copy node per launch: %s" % [(c["copy_kind"], c["graph"]) for c in copies])
    syncs = [s for s in truth.lines if s["type"] == "sync" and s["sync_type"] == "event"]
    f.expect(len(syncs) == 2 and all(s["end"] >= c["end"] for s, c in zip(syncs, copies)),
             "cudaEventSynchronize on the graph's event returns after the copy before it")
    graph_allocs = [m for m in truth.memory if m["type"] == "alloc" and m["corr"] in launches]
    frees = truth.api("cudaFree")
    f.expect(len(graph_allocs) == 2, "the allocation node allocates at each launch: %d" % len(graph_allocs))
    f.expect(len(frees) == 3 and all(a["result"] == 0 for a in frees),
             "cudaFree of the graph's allocation is allowed: %s" % [a["result"] for a in frees])
    f.expect(all(a["result"] == 0 for a in truth.apis), "every call succeeds")


def expect_graph_nodes(truth, args, f):
    launches = [a["corr"] for a in truth.api("cudaGraphLaunch")]
    f.expect(len(launches) == 2, "two graph launches")
    graph_ops = sorted((o for o in truth.ops if o["graph"]), key=lambda o: o["start"])
    f.expect(all(o["corr"] in launches for o in graph_ops), "graph work not correlated with its launch")
    # Per launch, in the order the dependencies give (the nodes were added in
    # another): fill, kernel, copy out, into the array, out of it, the IF
    # body, the ELSE body, the loop counter's memset, three WHILE bodies.
    want = ["memset", "order_kernel", "DtoH", "DtoA", "AtoH", "if_body_kernel", "else_body_kernel", "memset"] + \
        ["while_body_kernel"] * 3
    for corr in launches:
        got = [o["copy_kind"] if o["type"] == "memcpy" else o["type"] if o["type"] == "memset" else
               next(k for k in KERNEL_NS if k in o["name"]) for o in graph_ops if o["corr"] == corr]
        f.expect(got == want, "launch %d ran %s" % (corr, got))
    volume = 64 * 8 * 4 * 4
    f.expect(sorted(c["bytes"] for c in truth.of_type("memcpy") if c["graph"] and c["copy_kind"] in ("DtoA", "AtoH"))
             == [volume] * 4, "3D copies of the whole volume")
    f.expect(all(k["grid"][0] == 256 for k in truth.kernels("order_kernel")), "the kernel node's grid as set")
    bodies = {k["graph"] for n in ("if_body_kernel", "else_body_kernel", "while_body_kernel") for k in truth.kernels(n)}
    top = {k["graph"] for k in truth.kernels("order_kernel")}
    f.expect(len(top) == 1 and len(bodies) == 3 and not bodies & top, "each body is a graph of its own: %s %s" %
             (top, bodies))
    f.expect(all(a["result"] == 0 for a in truth.apis), "every call succeeds")


def expect_graph_branches(truth, args, f):
    launches = [a["corr"] for a in truth.api("cudaGraphLaunch")]
    f.expect(len(launches) == 4, "two launches of each graph: %d" % len(launches))
    for corr in launches:
        ops = {o["name"]: o for o in truth.kernels("") if o["corr"] == corr}
        memsets = sorted((o for o in truth.of_type("memset") if o["corr"] == corr), key=lambda o: o["start"])
        a, b, join = (next((o for n, o in ops.items() if k in n), None)
                      for k in ("branch_a_kernel", "branch_b_kernel", "join_kernel"))
        if not f.expect(a and b and join and len(memsets) == 2, "launch %d: kernels %s, %d memsets" %
                        (corr, sorted(ops), len(memsets))):
            continue
        # Independent branches run at once, after the memsets; the join after both.
        f.expect(a["start"] == b["start"] == memsets[1]["end"] and memsets[1]["start"] == memsets[0]["end"],
                 "launch %d: branches start at %d and %d, the memsets end at %d" %
                 (corr, a["start"], b["start"], memsets[1]["end"]))
        f.expect(join["start"] == max(a["end"], b["end"]),
                 "launch %d: join starts at %d, branches end at %d and %d" % (corr, join["start"], a["end"], b["end"]))
    graphs = {k["graph"] for k in truth.kernels("join_kernel")}
    f.expect(len(graphs) == 2, "an explicit and a captured graph: %s" % graphs)
    f.expect(all(a["result"] == 0 for a in truth.apis), "every call succeeds")


def expect_graph_setters(truth, args, f):
    launches = [a["corr"] for a in truth.api("cudaGraphLaunch")]
    f.expect(len(launches) == 2, "two graph launches")
    f.expect(len(truth.kernels("setters_kernel")) == 2 and not truth.kernels("removed_kernel"),
             "the kernel once per launch, the removed node's never: %s" % [k["name"] for k in truth.kernels("")])
    hosts = [l for l in truth.lines if l["type"] == "host_function" and l["corr"] in launches]
    f.expect(len(hosts) == 2, "one host node run per launch: %d" % len(hosts))
    copies = [c for c in truth.of_type("memcpy") if c["corr"] in launches]
    f.expect(len(copies) == 2 and all(c["copy_kind"] == "DtoH" for c in copies), "one copy node per launch")
    for outer, inner in (("cudaGraphHostNodeGetParams", "cuGraphHostNodeGetParams"),
                         ("cudaGraphHostNodeSetParams", "cuGraphHostNodeSetParams"),
                         ("cudaGraphExecHostNodeSetParams", "cuGraphExecHostNodeSetParams"),
                         ("cudaGraphEventRecordNodeGetEvent", "cuGraphEventRecordNodeGetEvent"),
                         ("cudaGraphEventRecordNodeSetEvent", "cuGraphEventRecordNodeSetEvent"),
                         ("cudaGraphEventWaitNodeGetEvent", "cuGraphEventWaitNodeGetEvent"),
                         ("cudaGraphEventWaitNodeSetEvent", "cuGraphEventWaitNodeSetEvent"),
                         ("cudaGraphExecEventRecordNodeSetEvent", "cuGraphExecEventRecordNodeSetEvent"),
                         ("cudaGraphExecEventWaitNodeSetEvent", "cuGraphExecEventWaitNodeSetEvent"),
                         ("cudaGraphMemcpyNodeGetParams", "cuGraphMemcpyNodeGetParams"),
                         ("cudaGraphDestroyNode", "cuGraphDestroyNode")):
        f.expect(nests(truth, outer, inner), "%s nests %s" % (outer, inner))
    f.expect(all(a["result"] == 0 for a in truth.apis), "every call succeeds")


def expect_texture_objects(truth, args, f):
    copies = truth.of_type("memcpy")
    f.expect([(c["copy_kind"], c["src_kind"], c["dst_kind"]) for c in copies] ==
             [("HtoA", "pageable", "array"), ("AtoH", "array", "pageable")],
             "copies into and out of the array: %s" % [(c["copy_kind"], c["src_kind"], c["dst_kind"]) for c in copies])
    arrays = [m for m in truth.memory if m["memory_kind"] == "array"]
    f.expect([m["type"] for m in arrays].count("alloc") == 3 and [m["type"] for m in arrays].count("free") == 3,
             "three arrays made and freed: %s" % [(m["type"], m["bytes"]) for m in arrays])
    f.expect(sorted(m["bytes"] for m in arrays if m["type"] == "alloc") == [32 * 32 * 8 * 4, 256 * 128 * 4, 256 * 128 * 4],
             "array sizes")
    f.expect(len(truth.kernels("sample_kernel")) == 1 and len(truth.kernels("surface_kernel")) == 1, "two launches")
    for outer, inner in (("cudaMallocArray", "cuArray3DCreate_v2"), ("cudaMemcpy2DToArray", "cuMemcpy2D_v2"),
                         ("cudaCreateTextureObject", "cuTexObjectCreate"), ("cudaCreateSurfaceObject", "cuSurfObjectCreate"),
                         ("cudaFreeArray", "cuArrayDestroy")):
        f.expect(nests(truth, outer, inner), "%s nests %s" % (outer, inner))
    f.expect(all(a["result"] == 0 for a in truth.apis), "every call succeeds")


def expect_module_loading(truth, args, f):
    f.expect([k["name"] for k in truth.kernels("module_")] ==
             ["module_scale_kernel", "module_fill_kernel", "module_scale_kernel", "module_fill_kernel"],
             "one launch from each image: %s" % [k["name"] for k in truth.kernels("module_")])
    loads = [a["result"] for a in truth.api("cuModuleLoadData")]
    f.expect(loads == [0, 0, 200], "the cubin and the linked PTX load, garbage is an invalid image: %s" % loads)
    for name in ("cuModuleLoadFatBinary", "cuLibraryLoadData", "cuLinkCreate_v2", "cuLinkAddData_v2", "cuLinkComplete",
                 "cuLinkDestroy", "cuModuleGetGlobal_v2", "cuLibraryGetKernel"):
        f.expect([a["result"] for a in truth.api(name)] == [0], "%s: %s" % (name, [a["result"] for a in truth.api(name)]))


def expect_vmm_mapping(truth, args, f):
    chunk = 2 << 20
    copies = truth.of_type("memcpy")
    f.expect([(c["copy_kind"], c["bytes"], c["dst_kind"] if c["copy_kind"] == "HtoD" else c["src_kind"]) for c in copies]
             == [("HtoD", 2 * chunk, "device"), ("DtoH", 2 * chunk, "device")],
             "one copy each way across both mapped chunks: %s" % [(c["copy_kind"], c["bytes"]) for c in copies])
    f.expect(len(truth.of_type("memset")) == 1, "a memset across the seam")
    counts = {name: len(truth.api(name)) for name in ("cuMemCreate", "cuMemMap", "cuMemRelease", "cuMemUnmap",
                                                       "cuMemSetAccess", "cuMemAddressReserve", "cuMemAddressFree")}
    f.expect(counts == {"cuMemCreate": 2, "cuMemMap": 2, "cuMemRelease": 2, "cuMemUnmap": 2, "cuMemSetAccess": 1,
                        "cuMemAddressReserve": 1, "cuMemAddressFree": 1}, "VMM calls: %s" % counts)
    f.expect(all(a["result"] == 0 for a in truth.apis), "every call succeeds")


EXPECTATIONS = {name[len("expect_"):]: fn for name, fn in globals().items() if name.startswith("expect_")}


def main():
    lib_dir, apps_dir, app, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    with tempfile.TemporaryDirectory() as tmp:
        truth_path = os.path.join(tmp, "truth.jsonl")
        env = dict(os.environ)
        env.update({
            "LD_LIBRARY_PATH": lib_dir,
            "SIMCUDA_TRUTH": truth_path,
            "SIMCUDA_KERNEL_NS": ",".join("%s=%d" % kv for kv in KERNEL_NS.items()),
        })
        env.update(APP_ENV.get(app, {}))
        if env.get("SIMCUDA_TEST_PRELOAD"):  # sanitizer runtime for a sanitized simcuda
            env["LD_PRELOAD"] = env["SIMCUDA_TEST_PRELOAD"]
        if app == "async_copy" and "libtsan" in env.get("SIMCUDA_TEST_PRELOAD", ""):
            # Under ThreadSanitizer the device thread's copy of 128 MiB (every
            # byte checked) takes the cores from the app's thread, which was
            # preempted inside cudaMemcpyAsync: the call took 145 ms on a
            # loaded 2-core machine (the same call in simcuda_device_model
            # uses 1.5 ms of its thread's CPU time). A copy 8 times as long
            # (537 ms) keeps the check that the call returns long before the
            # copy ends.
            env["SIMCUDA_PINNED_GBPS"] = "0.25"
        run = subprocess.run([os.path.join(apps_dir, app)] + args, env=env, capture_output=True, text=True,
                             timeout=60)
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        if run.returncode != 0:
            print("FAIL: %s exited with %d" % (app, run.returncode))
            return 1
        truth = Truth(truth_path)
        failures = Failures()
        check_invariants(truth, env, failures)
        for kernel in truth.kernels():
            base = next((k for k in KERNEL_NS if k in kernel["name"]), None)
            if failures.expect(base is not None, "unexpected kernel %s" % kernel["name"]):
                failures.expect(kernel["end"] - kernel["start"] == KERNEL_NS[base],
                                "%s lasted %d ns" % (kernel["name"], kernel["end"] - kernel["start"]))
        EXPECTATIONS[app](truth, args, failures)
        for failure in failures[:30]:
            print("FAIL:", failure)
        print("%s: %d operations, %d API calls, %d failures" % (app, len(truth.ops), len(truth.apis), len(failures)))
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
