#!/usr/bin/env python3
"""Reliability of the agent (issue 16): processes that fork, crash, run out of
disk, churn threads or push the agent's limits, on simcuda. One scenario per
invocation, with run_cuda_tests.py's arguments plus --source-apps; see
docs/reliability.md.
"""
import bisect
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading

import harness
from harness import ARGS, analyze, check, dump, info, info_count, libprof_lines, main, read_capture


def base_env():
    env = harness.base_env()
    env["SIMCUDA_KERNEL_NS"] = "default=2000"
    return env


def agent_env(extra=None):
    return harness.agent_env(extra, base=base_env())


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run(cmd, env, cwd, timeout=240):
    """Runs cmd until it exits (not harness.run: that waits for every process
    holding its output, and forked children and Python's workers may outlive
    it), killed past `timeout` s. Its peak memory is what the app says
    (VmHWM): wait4's ru_maxrss also counts the memory the child had before
    exec, this script's own."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=err)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        try:
            _, status = os.waitpid(process.pid, 0)
        finally:
            timer.cancel()
        out.seek(0)
        err.seek(0)
        return Result(os.waitstatus_to_exitcode(status), out.read().decode(errors="replace"),
                      err.read().decode(errors="replace"))


def peak_rss_kb(result, mode):
    peak = re.search(r"%s: peak RSS (\d+) KiB" % mode, result.stderr)
    check(peak is not None, "no peak RSS from the app: " + result.stderr)
    return int(peak.group(1))


def app(*args):
    return [os.path.join(ARGS.simcuda_apps, "reliability")] + [str(a) for a in args]


def launches(records):
    return [r for r in records if r["type"] == "api" and "LaunchKernel" in r["name"] and r["domain"] == "runtime"]


def check_complete(path, cwd, kernels=None):
    """The file reads, ended normally (not cut short), lost nothing, and holds
    exactly `kernels` kernels when given. Returns its records."""
    capture = read_capture(path, cwd)
    check(capture.ended == "exit", "%s did not end normally: %s" % (path, capture.ended))
    for drop in ("ring_full", "cupti_records", "truncated_payloads"):
        check(capture.drops[drop] == 0, "%s dropped records: %s" % (path, capture.drops))
    records = capture.records
    if kernels is not None:
        found = sum(r["type"] == "kernel" for r in records)
        check(found == kernels, "%s: %d kernels, expected %d" % (path, found, kernels))
    return records


def pid_of(path, cwd):
    process = read_capture(path, cwd).process
    check(process is not None, "no Process record in " + path)
    return process["pid"]


def capture_files(tmp):
    return sorted(f for f in os.listdir(tmp) if f.endswith(".pb"))


# --- processes ---------------------------------------------------------------

def skip_children_that_start_threads():
    """Forked children of a multithreaded parent that start a thread and join
    or detach it (the agent's writer, simcuda's executor) cannot run under
    GCC 12's ThreadSanitizer: its thread registry keeps the parent's threads, whose
    pthread_t a thread of the child gets again (glibc hands the child the
    stacks of the threads fork left behind), and the join or detach finds two
    threads with one id and ends the child ("ThreadSanitizer: dup thread with
    used id", exit 66). LLVM's runtime forgets the parent's pthread_ts in the
    child (ThreadRegistry::OnFork, in clang 14's libclang_rt.tsan, not in
    GCC 12's libtsan). The parent's side of fork stays checked:
    integration_forked_child_never_touches_the_parents_file (PROF_FOLLOW_FORK=0)
    and integration_exec_child_writes_its_own_file run under it."""
    if ARGS.sanitizer == "thread":
        print("skipped: a forked child that starts a thread and joins or detaches it dies under GCC 12's "
              "ThreadSanitizer (dup thread with used id)")
        sys.exit(77)


def forked_children_write_their_own_files(tmp, children="16", ending="exit", backend="cupti"):
    """backend hooks: CUPTI refused (SIMCUDA_CUPTI=off), so each child's hooks
    record its calls and events time its kernels."""
    if "address" in ARGS.sanitizer:
        # GCC 12's AddressSanitizer takes no allocator lock around fork (LLVM
        # added that in December 2023, llvm-project#75290): a child forked
        # while another thread of the multithreaded parent allocates waits
        # forever on the lock that thread held. Seen here as a child stuck in
        # asan's SizeClassAllocator64 lock; glibc's malloc is fork-safe.
        print("skipped: forking a multithreaded process under GCC 12's AddressSanitizer can deadlock the child")
        sys.exit(77)
    skip_children_that_start_threads()
    children = int(children)
    hooks = backend == "hooks"
    result = run(app("fork", children, ending), agent_env({"SIMCUDA_CUPTI": "off"} if hooks else None), tmp)
    check(result.returncode == 0, "exit %d: %s" % (result.returncode, result.stderr))
    files = capture_files(tmp)
    check(len(files) == children + 1, "%d files, expected %d: %s" % (len(files), children + 1, files))
    check("run.pb" in files, files)
    parent_pid = pid_of("run.pb", tmp)
    check_complete("run.pb", tmp, kernels=10)
    for name in files:
        if name == "run.pb":
            continue
        match = re.fullmatch(r"run\.(\d+)\.pb", name)
        check(match is not None, "unexpected file " + name)
        # Its own process's records only: the pid in the file is the one in its name.
        check(pid_of(name, tmp) == int(match.group(1)), name + " holds another process")
        check(pid_of(name, tmp) != parent_pid, name)
        records = check_complete(name, tmp, kernels=5)
        if hooks:
            launches = [r for r in records if r["type"] == "api" and r["name"] == "cudaLaunchKernel"]
            check(len(launches) == 5 and all(r["backend"] == "hooks" for r in launches),
                  "%s: %d launches recorded by the hooks, expected 5" % (name, len(launches)))
            check(all(r["event_timed"] == 1 for r in records if r["type"] == "kernel"),
                  name + ": kernels not timed by events")


def follow_fork_off(tmp):
    skip_children_that_start_threads()  # simcuda's thread, in each child
    result = run(app("fork", 4, "exit"), agent_env({"PROF_FOLLOW_FORK": "0"}), tmp)
    check(result.returncode == 0, result.stderr)
    check(capture_files(tmp) == ["run.pb"], "PROF_FOLLOW_FORK=0 wrote %s" % capture_files(tmp))
    check_complete("run.pb", tmp, kernels=10)


def python_multiprocessing_workers(tmp, workers="16"):
    skip_children_that_start_threads()
    workers = int(workers)
    script = os.path.join(ARGS.source_apps, "mp_workers.py")
    cudart = os.path.join(ARGS.simcuda_lib, "libcudart.so.13")
    plain = run([sys.executable, script, cudart, str(workers)], base_env(), tmp)
    check(plain.returncode == 0, plain.stderr)
    traced = run([sys.executable, script, cudart, str(workers)], agent_env({"PROF_LOG": "quiet"}), tmp)
    check(traced.returncode == 0 and traced.stdout == plain.stdout,
          "output or exit code changed: %d %r vs %r\n%s" % (traced.returncode, traced.stdout, plain.stdout,
                                                          traced.stderr))
    files = capture_files(tmp)
    check(len(files) == workers + 1, "%d files, expected %d: %s" % (len(files), workers + 1, files))
    for name in files:
        records = check_complete(name, tmp)
        copies = [r for r in records if r["type"] == "memcpy"]
        sets = [r for r in records if r["type"] == "memset"]
        check(len(copies) == 1 and len(sets) == 1, "%s: %d copies, %d memsets" % (name, len(copies), len(sets)))


def segfault_keeps_signal_and_file(tmp):
    plain = run(app("segfault"), base_env(), tmp)
    check(plain.returncode == -signal.SIGSEGV, "without the agent: %d" % plain.returncode)
    traced = run(app("segfault"), agent_env({"PROF_LOG": "quiet"}), tmp)
    check(traced.returncode == plain.returncode, "the app died with %d, not %d" % (traced.returncode, plain.returncode))
    check(traced.stdout == plain.stdout, "output changed")
    capture = read_capture("run.pb", tmp)
    # Since issue 27 the crash handler writes what the rings hold and ends
    # the file: it says how the process ended.
    check(capture.ended == "signal %d" % signal.SIGSEGV,
          "a crashed process's file should say it died of SIGSEGV: " + capture.ended)
    check(capture.count("kernel") == 20,
          "the launches before the crash (flushed) are missing: %d kernels" % capture.count("kernel"))


# --- limits -------------------------------------------------------------------

def output_failure_is_said_once(tmp, output, mode=("thread_churn", 200)):
    plain = run(app(*mode), base_env(), tmp)
    traced = run(app(*mode), agent_env({"PROF_OUTPUT": output}), tmp)
    check(traced.returncode == plain.returncode == 0, "exit codes %d, %d" % (plain.returncode, traced.returncode))
    check(traced.stdout == plain.stdout, "output changed")
    lines = libprof_lines(traced.stderr)
    failures = [l for l in lines if re.search(r"cannot|failed|error", l)]
    check(len(failures) == 1, "expected one message about the failure, got:\n" + traced.stderr)
    check(not any(re.search(r"\bwrote\b", l) for l in lines), "claims a file was written:\n" + traced.stderr)
    check("off" in failures[0] or "disabled" in failures[0] or "stops" in failures[0],
          "the message does not say recording stopped: " + failures[0])
    return traced


def unwritable_output_dir(tmp):
    blocker = os.path.join(tmp, "not-a-directory")
    with open(blocker, "w") as f:
        f.write("x")
    # A path through a regular file fails for root too (ENOTDIR).
    output_failure_is_said_once(tmp, os.path.join(blocker, "run.pb"))


def disk_full(tmp):
    output_failure_is_said_once(tmp, "/dev/full")
    # A small tmpfs fills part way through, when this machine lets us mount one.
    small = os.path.join(tmp, "small")
    os.mkdir(small)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small],
                             capture_output=True).returncode == 0
    if not mounted:
        print("note: cannot mount a tmpfs here; /dev/full only")
        return
    try:
        output_failure_is_said_once(tmp, os.path.join(small, "run.pb"), ("thread_churn", 3000))
    finally:
        subprocess.run(["umount", small])


def thread_churn_is_recorded_in_bounded_memory(tmp, threads="10000"):
    """Every launch of 10,000 short-lived threads recorded, and the agent's
    memory does not grow with the threads that have exited: the peak for
    10,000 threads is within THREAD_CHURN_GROWTH_KB of the peak for 1,000,
    with CUPTI (the default) and with the hooks timing launches with events."""
    threads = int(threads)
    for backend in ("auto", "hooks"):
        peaks = []
        for count in (threads // 10, threads):
            output = "%s.%d.pb" % (backend, count)
            result = run(app("thread_churn", count), agent_env({"PROF_OUTPUT": output, "PROF_BACKEND": backend}), tmp)
            check(result.returncode == 0, result.stderr)
            records = check_complete(output, tmp, kernels=count)
            check(len(launches(records)) == count, "%s: %d launches recorded of %d" %
                  (backend, len(launches(records)), count))
            peaks.append(peak_rss_kb(result, "thread_churn"))
        print("PROF_BACKEND=%s peak RSS: %d threads %d KiB, %d threads %d KiB" %
              (backend, threads // 10, peaks[0], threads, peaks[1]))
        if ARGS.sanitizer:
            print("note: memory not compared under %s (its allocator holds freed memory)" % ARGS.sanitizer)
            continue
        # What an exited thread leaves: its ring until the writer's next pass
        # (4 KiB of small pages: the ring's first 2 MiB are not huge pages)
        # and, with the hooks, its ring of timing events, which the next new
        # thread reuses. Measured before (VmHWM): 117 and 112 MiB for 1,000
        # and 10,000 threads (auto: every ring waiting for the writer held a
        # 2 MiB huge page), 161 MiB and 1 GiB (hooks: 90 KiB and 2 events
        # per thread, never freed).
        check(peaks[1] - peaks[0] < THREAD_CHURN_GROWTH_KB,
              "PROF_BACKEND=%s: memory grows with exited threads: %d KiB for %d threads, %d KiB for %d" %
              (backend, peaks[1], threads, peaks[0], threads // 10))
        check(peaks[1] < THREAD_CHURN_PEAK_KB, "PROF_BACKEND=%s: peak RSS %d KiB for %d threads" %
              (backend, peaks[1], threads))


# 9,000 more threads may add at most this much peak memory (under 1 KiB a
# thread; measured 1.5-4.5 MiB on a loaded 2-core machine, the rings still
# waiting for the writer), and the whole process stays under the second
# (measured 9-13 MiB, 4 MiB without the agent; it was 112 MiB and 1 GiB).
THREAD_CHURN_GROWTH_KB = 8 * 1024
THREAD_CHURN_PEAK_KB = 48 * 1024


def many_threads_alive(tmp, threads="256"):
    threads = int(threads)
    result = run(app("threads_alive", threads), agent_env(), tmp)
    check(result.returncode == 0, result.stderr)
    records = check_complete("run.pb", tmp, kernels=4 * threads)
    tids = {r["tid"] for r in launches(records)}
    check(len(tids) == threads, "launches from %d threads, expected %d" % (len(tids), threads))


def long_kernel_name(tmp):
    result = run(app("long_name"), agent_env(), tmp)
    check(result.returncode == 0, result.stderr)
    records = check_complete("run.pb", tmp, kernels=1)
    name = next(r["name"] for r in records if r["type"] == "kernel")
    check(len(name) > 10000 and name.startswith("_Z17long_named_kernel"), "kernel name of %d chars" % len(name))
    # key_averages() cuts names to 55 characters, as torch does; nsys's
    # kernel summary prints them whole.
    report = analyze(["report", "run.pb"], tmp)
    check("long_named_kernel" in report, "the report lacks the kernel")
    kernels = analyze(["report", "--view", "kernels", "run.pb"], tmp)
    check(any(len(line) > 10000 and "long_named_kernel" in line for line in kernels.splitlines()),
          "the kernel summary lost the long name")
    trace = os.path.join(tmp, "trace.json")
    analyze(["trace", "-o", trace, "run.pb"], tmp)
    with open(trace) as f:
        doc = json.load(f)
    check(any(len(e.get("name", "")) > 10000 for e in doc["traceEvents"]), "the trace lost the long name")


def million_nvtx_strings(tmp, count="1000000", mode="default"):
    """A million distinct range names, every other one with a range "inner"
    inside, in a tight loop, with the default ring. The writer interns each
    new name; when the loop outruns it and the ring passes half full, the
    thread waits for the writer before its next outermost push (back-pressure,
    PROF_RING_WAIT_MS, at most 1 s a wait), so no range is lost. What must
    hold:

    - no range is lost (ring_full 0), unless the agent reports that a wait
      reached PROF_RING_WAIT_MS (the writer freed no room for 1 s); then
      the drops must still be whole ranges counted exactly (below). On this
      2-core machine at load 8-25 the longest wait measured was 121 ms (plain
      build) and 184 ms (AddressSanitizer, three runs at once);
    - every wait is in the file (an Overhead "libprof ring wait", one per wait
      that found room, as many as the agent counted) and lies between two
      outermost ranges, never inside a range: the app never pays for the
      agent inside an interval it records;
    - drops, when there are any, are whole ranges counted exactly and never
      break the pairing of the rest: every range in the file is a push and its
      own pop (none unterminated, "inner" at depth 1 inside its outer range),
      and ranges kept + ranges dropped (two records each: a push, and the pop
      given up with it) = ranges made.

    mode "drop": PROF_RING_WAIT_MS=0 and a 64 KiB ring, so that ranges are
    certainly dropped (the ring holds ~1,000 records, fewer than the thread
    makes while the writer sleeps between passes): the drop path alone."""
    count = int(count)
    extra = {"PROF_LOG": "debug"}
    if mode == "drop":
        extra.update(PROF_RING_WAIT_MS="0", PROF_BUFFER_KB="64")
    else:
        check(mode == "default", "mode is default or drop, not %r" % mode)
    result = run(app("nvtx_strings", count), agent_env(extra), tmp)
    check(result.returncode == 0, result.stderr)
    waits = re.search(r"waited (\d+) times for room in their rings \(PROF_RING_WAIT_MS=(\d+)\), "
                      r"([\d.]+) ms in all, ([\d.]+) ms at most; (\d+) waits reached the limit", result.stderr)
    waited, limit_ms, waited_ms, longest_ms, timeouts = (
        (int(waits.group(1)), int(waits.group(2)), float(waits.group(3)), float(waits.group(4)), int(waits.group(5)))
        if waits else (0, 0, 0.0, 0.0, 0))
    text = info("run.pb", tmp)  # its counts, checked against the records below
    dropped = end = None
    outer = inner = 0
    outer_spans = []
    wait_spans = []
    pending = []  # inner ranges, written as they close: before their outer range
    dump_process = subprocess.Popen([ARGS.analyzer, "dump", "run.pb"], cwd=tmp, stdout=subprocess.PIPE, text=True)
    for line in dump_process.stdout:
        if line.startswith('{"type":"drops"'):
            dropped = json.loads(line)["ring_full"]  # totals: the last chunk's are final
            continue
        if line.startswith('{"type":"process_end"'):
            end = json.loads(line)
            continue
        if line.startswith('{"type":"overhead"'):
            r = json.loads(line)
            check(r["kind"] == "libprof ring wait", "an overhead that is not a ring wait: %s" % line)
            wait_spans.append((r["start"], r["end"]))
            continue
        if not line.startswith('{"type":"range"'):
            continue
        r = json.loads(line)
        check(not r["unterminated"], "a range left open: %s" % line)
        if r["name"] == "inner":
            inner += 1
            pending.append(r)
            continue
        check(r["name"].startswith("range ") and r["depth"] == 0, "outer range: %s" % line)
        outer += 1
        outer_spans.append((r["start"], r["end"]))
        for i in pending:
            # Inside this range at depth 1, or at depth 0 before it (its own
            # outer range was dropped).
            inside = r["start"] <= i["start"] and i["end"] <= r["end"]
            check(inside if i["depth"] == 1 else i["depth"] == 0 and i["end"] <= r["start"],
                  "inner range paired wrongly: %s, next outer %s" % (i, line))
        pending = []
    check(dump_process.wait() == 0, "profanalyze dump failed")
    check(end is not None and end["reason"] == "EXIT", "the process did not end normally: %s" % end)
    check(dropped is not None, "the file records no drop counts")
    check(all(i["depth"] == 0 for i in pending), "inner ranges after the last outer one: %s" % pending[:3])
    made = count + (count + 1) // 2
    print("%d of %d ranges kept (%d outer, %d inner), %d records dropped; %d waits for room, %.1f ms in all, "
          "%.1f ms at most, %d reached the %d ms limit" % (outer + inner, made, outer, inner, dropped, waited,
                                                           waited_ms, longest_ms, timeouts, limit_ms))
    check(dropped % 2 == 0 and outer + inner + dropped // 2 == made,
          "%d outer + %d inner ranges kept and %d records dropped, of %d ranges" % (outer, inner, dropped, made))
    check(info_count(text, "NVTX ranges") == outer + inner, text)
    check(info_count(text, "strings") >= outer + 1, "strings:\n" + text)
    if mode == "drop":
        check(dropped > 0, "a 64 KiB ring without waits lost nothing: the drop path was not exercised")
        check(waited == 0 and not wait_spans, "waits with PROF_RING_WAIT_MS=0: %d" % waited)
    else:
        check(limit_ms == 1000 or waited == 0, "PROF_RING_WAIT_MS is %d, not its default 1000" % limit_ms)
        check(dropped == 0 or timeouts > 0,
              "%d records dropped though no wait reached PROF_RING_WAIT_MS (%d waits)" % (dropped, waited))
        if timeouts:
            print("NOTE: %d waits reached PROF_RING_WAIT_MS: the writer freed no room for %d ms (a machine "
                  "loaded far beyond its cores); drops, if any, are checked as exact" % (timeouts, limit_ms))
    # Every wait that found room is in the file, between two outermost ranges.
    check(len(wait_spans) == waited - timeouts,
          "%d ring waits in the file, the agent counted %d (%d without room)" % (len(wait_spans), waited, timeouts))
    outer_spans.sort()
    starts = [span[0] for span in outer_spans]
    for start, end in wait_spans:
        at = bisect.bisect_right(starts, start)
        before = outer_spans[at - 1] if at > 0 else None
        after = outer_spans[at] if at < len(outer_spans) else None
        check(start <= end and (before is None or before[1] <= start) and (after is None or end <= after[0]),
              "a wait [%d, %d] overlaps a range: before it %s, after it %s" % (start, end, before, after))
    # The nvtx view: one row per distinct name.
    summary = analyze(["report", "--view", "nvtx", "run.pb"], tmp)
    rows = [line for line in summary.splitlines() if re.search(r"range \d+\s*$", line)]
    check(len(rows) == outer, "%d distinct names in the NVTX summary, expected %d" % (len(rows), outer))


def first_interval_of_a_thread(tmp, threads="40"):
    threads = int(threads)
    result = run(app("first_interval", threads), agent_env(), tmp)
    check(result.returncode == 0, result.stderr)
    ranges = [r for r in dump("run.pb", tmp) if r["type"] == "range"]
    by_thread = {}
    for r in ranges:
        by_thread.setdefault(r["tid"], {})[r["name"]] = r["end"] - r["start"]
    pairs = [(v["first"], v["second"]) for v in by_thread.values() if "first" in v and "second" in v]
    check(len(pairs) == threads, "%d threads with both ranges, expected %d" % (len(pairs), threads))
    first = statistics.median(p[0] for p in pairs)
    second = statistics.median(p[1] for p in pairs)
    print("median empty range on a new thread: first %d ns, second %d ns" % (first, second))
    # The agent's set-up of a thread (its ring) lands before the first start
    # timestamp, not inside the interval; 5 us is far above an empty range's
    # cost and far below the 130-250 us a ring allocation adds.
    check(first < second + 5000, "first interval %d ns, second %d ns" % (first, second))


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-rel-", required=harness.SIMCUDA_OPTIONS + ("--source-apps",)))
