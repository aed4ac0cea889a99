#!/usr/bin/env python3
"""Integration tests of libprof.so: run real programs under LD_PRELOAD and
read their files back with profanalyze. One scenario per invocation, so that
ctest shows each by name; every scenario runs in its own temporary directory.
"""
import os
import re
import signal
import subprocess
import sys
import time

from harness import (ARGS, Failure, Skipped, agent_env, analyze, base_env, check, forked_child_dies_under_tsan,
                     main, read_capture, run)


def app(name):
    return os.path.join(ARGS.apps, name)


def report_rows(path, cwd):
    """Parses the report table into {name: {column: text}}."""
    table = analyze(["report", "--row-limit", "-1", path], cwd)
    lines = table.splitlines()
    separators = [i for i, line in enumerate(lines) if line.startswith("---")]
    check(len(separators) >= 3, f"no table in report:\n{table}")
    header = re.split(r"\s{2,}", lines[separators[0] + 1].strip())
    rows = {}
    for line in lines[separators[1] + 1:separators[2]]:
        cells = re.split(r"\s{2,}", line.strip())
        check(len(cells) == len(header), f"row does not match header: {line!r}")
        rows[cells[0]] = dict(zip(header, cells))
    return rows, table


def parse_time_us(text):
    for suffix, scale in (("us", 1.0), ("ms", 1e3), ("s", 1e6)):
        if text.endswith(suffix):
            return float(text[:-len(suffix)]) * scale
    raise Failure(f"not a time: {text}")


def wait_for_line(process, expected, timeout=10):
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = process.stdout.readline()
        if line.strip() == expected:
            return
        if not line and process.poll() is not None:
            break
    raise Failure(f"the app never printed {expected!r}")


# ---------------------------------------------------------------- scenarios --

def nvtx_report_matches_the_app(tmp):
    result = run([app("nvtx_threads")], env=agent_env(), cwd=tmp)
    check(result.returncode == 3, f"exit code {result.returncode}")
    rows, table = report_rows("run.pb", tmp)
    expected_calls = {"outer": 4 * 50, "middle": 4 * 100, "inner": 4 * 300, "whole run": 1,
                      "io:read": 3, "io:write \u00e9t\u00e9": 1}
    for name, calls in expected_calls.items():
        check(name in rows, f"no row {name!r} in\n{table}")
        check(int(rows[name]["# of Calls"]) == calls,
              f"{name}: {rows[name]['# of Calls']} calls, expected {calls}")
    for name, row in rows.items():
        self_us, total_us = parse_time_us(row["Self CPU"]), parse_time_us(row["CPU total"])
        check(self_us <= total_us, f"{name}: self {self_us} > total {total_us}")
    # inner ranges have no children: self == total.
    check(rows["inner"]["Self CPU"] == rows["inner"]["CPU total"], "inner: self != total")
    check(parse_time_us(rows["outer"]["Self CPU"]) < parse_time_us(rows["outer"]["CPU total"]),
          "outer has children, so its self time must be below its total")
    capture = read_capture("run.pb", tmp)
    check(capture.count("range") == 1805, f"{capture.count('range')} NVTX ranges, expected 1805")
    check(capture.count("mark") == 1, f"{capture.count('mark')} NVTX marks, expected 1")
    check(capture.drops["ring_full"] == 0, f"drops: {capture.drops}")
    names = sorted(capture.thread_names.values())
    for worker in range(4):
        check(f"worker {worker}" in names, f"thread name 'worker {worker}' missing: {names}")


def app_output_and_exit_code_unchanged(tmp):
    commands = [[app("nvtx_threads")], [app("lifecycle"), "child"]]
    if not forked_child_dies_under_tsan():
        commands.insert(1, [app("lifecycle"), "fork"])
    for cmd in commands:
        plain = run(cmd, env=base_env(), cwd=tmp)
        traced = run(cmd, env=agent_env({"PROF_LOG": "quiet"}), cwd=tmp)
        check(plain.stdout == traced.stdout, f"{cmd}: stdout differs:\n{plain.stdout}\n---\n{traced.stdout}")
        check(plain.returncode == traced.returncode,
              f"{cmd}: exit code {traced.returncode}, without the agent {plain.returncode}")
        check(traced.stderr == "", f"PROF_LOG=quiet still printed: {traced.stderr}")


def sigkill_after_two_seconds_leaves_a_readable_file(tmp):
    process = subprocess.Popen([app("lifecycle"), "forever"], env=agent_env(), cwd=tmp,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_line(process, "ready")
    time.sleep(2)
    process.kill()
    process.wait()
    capture = read_capture("run.pb", tmp)
    check(capture.count("range") > 1000, f"too few ranges survived: {capture.count('range')}")
    check(capture.ended == "cut short", f"a killed run must not claim a clean end: {capture.ended}")
    rows, table = report_rows("run.pb", tmp)
    check("tick" in rows and int(rows["tick"]["# of Calls"]) > 1000, table)


def sigterm_with_default_action_flushes_and_kills(tmp):
    process = subprocess.Popen([app("lifecycle"), "sigterm-default"], env=agent_env(), cwd=tmp,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_line(process, "ready")
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=10)
    check(process.returncode == -signal.SIGTERM,
          f"the process must still die of SIGTERM, got {process.returncode}")
    ended = read_capture("run.pb", tmp).ended
    check(ended == "signal 15", f"no signal end recorded: {ended}")
    rows, table = report_rows("run.pb", tmp)
    check(int(rows["before signal"]["# of Calls"]) == 10, table)
    check("open when killed" in rows, f"the range open at the signal is missing:\n{table}")


def sigterm_handler_of_the_app_still_runs(tmp):
    process = subprocess.Popen([app("lifecycle"), "sigterm-handler"], env=agent_env(), cwd=tmp,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = process.stdout.readline().strip()
    check(first == "handler installed: yes", f"the app saw {first!r}")
    wait_for_line(process, "ready")
    process.send_signal(signal.SIGTERM)
    rest, _ = process.communicate(timeout=10)
    check("handled SIGTERM" in rest, f"the app's handler did not run: {rest!r}")
    check(process.returncode == 7, f"exit code {process.returncode}")
    ended = read_capture("run.pb", tmp).ended
    check(ended == "exit", f"no clean end: {ended}")
    rows, table = report_rows("run.pb", tmp)
    check(int(rows["after signal"]["# of Calls"]) == 5, table)


def exit_from_a_thread_flushes(tmp):
    result = run([app("lifecycle"), "exit-from-thread"], env=agent_env(), cwd=tmp)
    check(result.returncode == 5, f"exit code {result.returncode}")
    rows, table = report_rows("run.pb", tmp)
    check(int(rows["worker"]["# of Calls"]) == 20, table)
    check("open at exit" in rows and "main waiting" in rows, table)


def forked_child_never_touches_the_parents_file(tmp):
    """By default a forked child records into its own run.<pid>.pb; with
    PROF_FOLLOW_FORK=0 it records nothing. Either way the parent's file has
    only the parent's ranges."""
    for follow in ("0",) if forked_child_dies_under_tsan() else ("1", "0"):
        for name in os.listdir(tmp):
            os.remove(os.path.join(tmp, name))
        env = agent_env()
        env["PROF_FOLLOW_FORK"] = follow
        result = run([app("lifecycle"), "fork"], env=env, cwd=tmp)
        check(result.returncode == 0, result.stderr)
        check("forked child done" in result.stdout, result.stdout)
        files = sorted(f for f in os.listdir(tmp) if f.endswith(".pb"))
        rows, table = report_rows("run.pb", tmp)
        check(int(rows["parent before fork"]["# of Calls"]) == 10, table)
        check(int(rows["parent after fork"]["# of Calls"]) == 10, table)
        check("forked child" not in rows, f"the child's ranges leaked into the parent's file:\n{table}")
        if follow == "0":
            check(files == ["run.pb"], f"PROF_FOLLOW_FORK=0, files: {files}")
            continue
        check(len(files) == 2 and "run.pb" in files, f"files: {files}")
        child_file = next(f for f in files if f != "run.pb")
        check(re.fullmatch(r"run\.\d+\.pb", child_file) is not None, child_file)
        child_rows, child_table = report_rows(child_file, tmp)
        check("forked child" in child_rows, f"the child's file lacks its ranges:\n{child_table}")
        check("parent after fork" not in child_rows, f"the parent's ranges are in the child's file:\n{child_table}")


def a_fork_as_the_writer_starts_leaves_the_child_working(tmp):
    """A chain of forty forks, each made right after the forking process's
    first range started its writer thread. Under AddressSanitizer a fork
    while that thread was still starting (which allocates) left the child
    waiting forever on the allocator's lock: about 1 such fork in 25 on a
    loaded machine. Each process that recorded has a file of its own: the
    chain's last child records nothing."""
    if forked_child_dies_under_tsan("the chain of forked children"):
        raise Skipped("every child of the chain starts a writer thread")
    depth = 40
    result = run([app("lifecycle"), "fork-chain", str(depth)], env=agent_env(), cwd=tmp)
    check(result.returncode == 0, f"exit code {result.returncode}: {result.stderr}")
    check(f"fork chain of {depth} done, status 0" in result.stdout, result.stdout)
    files = [f for f in os.listdir(tmp) if f.endswith(".pb")]
    check(len(files) == depth, f"{len(files)} files for the {depth} processes that recorded: {sorted(files)}")
    rows, table = report_rows(sorted(files)[0], tmp)
    check(int(rows["chain"]["# of Calls"]) == 1, table)


def exec_child_writes_its_own_file(tmp):
    result = run([app("lifecycle"), "fork-exec"], env=agent_env(), cwd=tmp)
    check(result.returncode == 0, result.stderr)
    check("exec child done" in result.stdout, result.stdout)
    files = sorted(f for f in os.listdir(tmp) if f.endswith(".pb"))
    check(len(files) == 2 and "run.pb" in files, f"files: {files}")
    child_file = next(f for f in files if f != "run.pb")
    check(re.fullmatch(r"run\.\d+\.pb", child_file) is not None, child_file)
    parent_rows, _ = report_rows("run.pb", tmp)
    child_rows, child_table = report_rows(child_file, tmp)
    check("exec child" not in parent_rows, "the exec'd child wrote into the parent's file")
    check(int(child_rows["exec child"]["# of Calls"]) == 10, child_table)


def exports_only_the_entry_points(tmp):
    result = run(["nm", "-D", "--defined-only", ARGS.agent])
    check(result.returncode == 0, result.stderr)
    exported = sorted(line.split()[-1] for line in result.stdout.splitlines() if line.strip())
    allowed = {"InitializeInjection", "InitializeInjectionNvtx2", "libprof_agent_marker",
               "sigaction", "signal", "dlsym", "_exit", "_Exit", "exit", "execve", "execvpe",
               "execv", "execvp", "execl", "execlp", "execle", "fexecve"}
    # The Python bootstrap's entry points (agent/torch_entry.cpp).
    allowed |= {"libprof_torch_options", "libprof_torch_range_push", "libprof_torch_range_pop",
                "libprof_torch_range_start", "libprof_torch_range_end", "libprof_torch_memory",
                "libprof_torch_say"}
    # The CUDA hooks: exactly the functions of hooked_functions.txt, plus
    # the driver's lookup entry points.
    listed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "agent", "capture", "hooks",
                          "hooked_functions.txt")
    hooks = {"cuGetProcAddress", "cuGetProcAddress_v2"}
    with open(listed) as f:
        for line in f:
            words = line.split("#")[0].split()
            if words:
                hooks.add(words[1])
    unexpected = [name for name in exported if name not in allowed | hooks]
    check(hooks <= set(exported), f"hooks not exported: {sorted(hooks - set(exported))}")
    check(not unexpected, f"libprof.so exports more than its entry points: {unexpected}")
    check("InitializeInjectionNvtx2" in exported, f"exports: {exported}")
    # What a stock GPU server has: glibc (libc, libm, the loader; libdl and
    # libpthread are glibc too), libstdc++ and libgcc. Nothing else, so no
    # libunwind, no libprotobuf and no RE2 (the app may carry its own; RE2
    # is built into the agent, third_party/CMakeLists.txt).
    dynamic = run(["readelf", "-d", ARGS.agent]).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic)
    check("libc.so.6" in needed, dynamic)
    allowed_needed = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                      "libstdc++.so.6", "libgcc_s.so.1"}
    sanitizer_runtimes = {name for name in needed if re.match(r"lib(asan|ubsan|tsan)\.so", name)}
    unexpected = [name for name in needed if name not in allowed_needed and name not in sanitizer_runtimes
                  and not name.startswith("ld-linux")]
    check(not unexpected, f"libprof.so needs more than glibc, libstdc++ and libgcc: {unexpected}")


def a_process_that_never_records_starts_no_thread_and_makes_no_control_file(tmp):
    """Issue #30: a shell under an exported LD_PRELOAD pays a few syscalls, no
    writer thread, no control file for `profanalyze capture` and no run
    folder in $TMPDIR. The shell lists its own threads, looks for its control
    file and counts the run folders; a run without the agent is the baseline
    (a sanitizer's runtime may start threads of its own)."""
    tmpdir = os.path.join(tmp, "tmpdir")
    os.makedirs(tmpdir)
    script = ('ls /proc/$$/task | wc -l; '
              'if [ -e /tmp/libprof-$(id -u)/$$.ctl ]; then echo control file; else echo none; fi; '
              'ls "$TMPDIR" | grep -c "^libprof-run-" || true')
    plain = run(["sh", "-c", script], env=dict(base_env(), TMPDIR=tmpdir), cwd=tmp)
    traced = run(["sh", "-c", script], env=agent_env({"PROF_LOG": "quiet", "TMPDIR": tmpdir}), cwd=tmp)
    check(plain.returncode == 0 and traced.returncode == 0,
          f"sh exited {plain.returncode} / {traced.returncode}: {plain.stderr}{traced.stderr}")
    threads_plain, control_plain = plain.stdout.split("\n")[:2]
    threads_traced, control_traced, folders_traced = traced.stdout.split("\n")[:3]
    check(folders_traced.strip() == "0", f"a process that records nothing made a run folder ({folders_traced.strip()})")
    check(not os.listdir(tmpdir), f"left in TMPDIR: {os.listdir(tmpdir)}")
    check(threads_traced.strip() == threads_plain.strip(),
          f"the agent started threads in a process that records nothing: {threads_traced.strip()} "
          f"threads, {threads_plain.strip()} without it")
    check(control_plain == "none" and control_traced == "none",
          f"a process that records nothing made a control file: {control_traced}")
    # The same process recording (an NVTX range) starts them as before.
    recording = run([app("nvtx_threads")], env=agent_env({"PROF_LOG": "quiet"}), cwd=tmp)
    check(recording.returncode == 3, f"nvtx_threads exited {recording.returncode}: {recording.stderr}")
    check(read_capture("run.pb", tmp).count("range") == 1805, "the recording process's file lacks its ranges")


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-it-", required=("--apps",)))
