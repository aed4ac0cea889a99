#!/usr/bin/env python3
"""Python stacks tests, run under every CPython 3.8-3.13 on the machine.

Debian's /usr/bin/python3 always runs (a missing one fails the test); pyenv's
builds (`pyenv root`/versions/*/bin/python3, or $PYENV_ROOT) run when present.
Prints which interpreters ran and which versions were skipped, and why.

Scenarios:
  frames     the agent's frame reader on its own (python/frames_check.py)
  cuda       python/cuda_workload.py under the agent on simcuda, in each
             PROF_STACKS mode; `profanalyze stacks` must show its Python
             frames root first with their lines, the extension's native
             frames under them, and native frames only on a C thread
  unknown    a CPython the agent has no layout for (pyenv 3.7 or 3.6): says
             so once and records native stacks
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

import harness
from harness import Failure, analyze, check, dump

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEM_PYTHON = "/usr/bin/python3"
WANTED = ["3.%d" % minor for minor in range(8, 14)]


def version_of(python):
    out = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, timeout=30)
    return out.stdout.strip() if out.returncode == 0 else None


def interpreters():
    """[(label, path)] to run, and [(version, why)] skipped."""
    found = []
    if not os.path.exists(SYSTEM_PYTHON):
        raise SystemExit("FAIL: %s (Debian's python3) is missing" % SYSTEM_PYTHON)
    found.append(("system %s" % version_of(SYSTEM_PYTHON), SYSTEM_PYTHON))
    roots = [os.environ.get("PYENV_ROOT"), os.path.expanduser("~/.pyenv"), "/root/.pyenv"]
    paths = []
    for root in [r for r in roots if r]:
        paths += sorted(glob.glob(os.path.join(root, "versions", "*", "bin", "python3")))
    by_version = {}
    for path in paths:
        version = version_of(path)
        if version in WANTED and version not in by_version:
            by_version[version] = path
    skipped = []
    for version in WANTED:
        if version in by_version:
            found.append(("pyenv %s" % version, by_version[version]))
        else:
            skipped.append((version, "no pyenv build found (looked in %s)" % ", ".join(r for r in roots if r)))
    return found, skipped


def markers():
    """{marker: line} of cuda_workload.py's "# at:NAME" comments."""
    found = {}
    with open(os.path.join(HERE, "python", "cuda_workload.py")) as source:
        for number, text in enumerate(source, 1):
            if "# at:" in text:
                found[text.rsplit("# at:", 1)[1].strip()] = number
    return found


def build_extension(python, tmp):
    """Builds python/cudaext.c for `python` in tmp; None when it has no headers."""
    query = ("import sysconfig; print(sysconfig.get_paths()['include']); "
             "print(sysconfig.get_config_var('EXT_SUFFIX'))")
    include, suffix = subprocess.run([python, "-c", query], capture_output=True, text=True,
                                     check=True).stdout.split()
    if not os.path.exists(os.path.join(include, "Python.h")):
        return None
    cuda_lib = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "lib64")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-g", "-I" + include,
                    os.path.join(HERE, "python", "cudaext.c"), "-o", os.path.join(tmp, "cudaext" + suffix),
                    "-L" + cuda_lib, "-lcudart", "-lpthread"], check=True)
    return tmp


def record(python, args, tmp, mode, extension, extra_env=None):
    env = harness.base_env(simcuda=False)
    env.pop("PYTHONPATH", None)
    env["LD_LIBRARY_PATH"] = args.simcuda_lib
    env["LD_PRELOAD"] = args.agent
    env = sanitized_env(args, env)
    env["PROF_OUTPUT"] = os.path.join(tmp, "run-%s%s.pb" % (mode or "default", "-hooks" if extra_env else ""))
    if mode:
        env["PROF_STACKS"] = mode
    env.update(extra_env or {})
    argv = [python, os.path.join(HERE, "python", "cuda_workload.py")]
    if extension:
        env["PYTHONPATH"] = extension
        argv.append("--extension")
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    check(result.returncode == 0, "the workload failed under the agent:\n" + result.stdout + result.stderr)
    stacks = analyze(["stacks", "--metric", "self_cpu_time_total", env["PROF_OUTPUT"]])
    folded = [line.rsplit(" ", 1)[0].split(";") for line in stacks.splitlines()]
    return folded, result.stderr, env["PROF_OUTPUT"]


def api_stack(folded, call, frame=None, absent=None):
    """The first stack whose leaf frames are `call` (itself, or with its nested
    driver call under it) and that has `frame` (a substring of a frame) and
    no frame containing `absent`."""
    for frames in folded:
        if call not in frames[-2:]:
            continue
        if frame is not None and not any(frame in f for f in frames):
            continue
        if absent is not None and any(absent in f for f in frames):
            continue
        return frames[:frames.index(call) + 1]
    raise Failure("no %s stack with %r (and without %r) in:\n%s"
                  % (call, frame, absent, "\n".join(";".join(f) for f in folded)))


def python_frames(frames):
    return [f for f in frames if ".py(" in f]


def expect_python(frames, want, what):
    """want: [(function, line)] root first, the last Python frames of the stack."""
    script = os.path.join(HERE, "python", "cuda_workload.py")
    got = python_frames(frames)
    expected = ["%s(%d): %s" % (script, line, function) for function, line in want]
    check(got[-len(expected):] == expected,
          "%s: Python frames\n  %s\nexpected to end with\n  %s" % (what, "\n  ".join(got), "\n  ".join(expected)))


def views_show_python_frames(args, tmp, path, at):
    """report --group-by-stack-n, trace and flamegraph name the Python frames."""
    script = os.path.join(HERE, "python", "cuda_workload.py")
    leaf = "%s(%d): memset_via_ctypes" % (script, at["memset"])
    caller = "%s(%d): layer" % (script, at["leaf_layer"])
    report = analyze(["report", "--group-by-stack-n", "2", path]).splitlines()
    rows = [i for i, line in enumerate(report) if line.lstrip().startswith("cudaMemset ")]
    # The column is cut at its left end (as torch's) when wider than its limit.
    short_leaf, short_caller = (os.path.basename(x) for x in (leaf, caller))
    check(any(report[i].rstrip().endswith(short_leaf) and report[i + 1].rstrip().endswith(short_caller)
              for i in rows),
          "report --group-by-stack-n 2: no cudaMemset row with Source Location %s, %s:\n%s"
          % (leaf, caller, "\n".join(report)))
    trace_path = os.path.join(tmp, "trace.json")
    analyze(["trace", path, "-o", trace_path])
    with open(trace_path) as f:
        events = json.load(f)["traceEvents"]
    # Python frames only: before 3.11 mixed stacks interleave the
    # interpreter's call frames between them.
    stacks = [python_frames(e["args"].get("stack", [])) for e in events if e.get("name") == "cudaMemset"]
    check(any(leaf in s and caller in s and s.index(caller) == s.index(leaf) - 1 for s in stacks),
          "trace: no cudaMemset event whose stack arg has %s right under %s: %s" % (leaf, caller, stacks))
    svg_path = os.path.join(tmp, "flame.svg")
    analyze(["flamegraph", "--metric", "self_cpu_time_total", path, "-o", svg_path])
    with open(svg_path) as f:
        check("memset_via_ctypes" in f.read(), "flamegraph: no Python frame in the SVG")


def scenario_cuda(python, args, tmp):
    at = markers()
    extension = build_extension(python, tmp)
    if extension is None and python == SYSTEM_PYTHON:
        raise Failure("no Python.h for %s: scripts/bootstrap.sh installs python3-dev" % python)
    notes = []
    main_chain = [("<module>", at["module"]), ("main", at["main_forward"]), ("forward", at["forward"]),
                  ("layer", at["layer"]), ("layer", at["layer"]), ("layer", at["leaf_layer"])]
    thread_chain = [("in_thread", at["thread_target"]), ("forward", at["forward"]), ("layer", at["layer"]),
                    ("layer", at["layer"]), ("layer", at["leaf_layer"])]

    # Default (mixed in a Python process).
    folded, _, path = record(python, args, tmp, None, extension)
    views_show_python_frames(args, tmp, path, at)
    for chain, where in ((main_chain, "main thread"), (thread_chain, "threading.Thread")):
        for call, line in (("cudaMalloc", at["malloc"]), ("cudaMemset", at["memset"])):
            frames = api_stack(folded, call, "): " + chain[0][0])
            expect_python(frames, chain + [("memset_via_ctypes", line)], "mixed, %s, %s" % (where, call))
            check(not any("_PyEval_EvalFrameDefault" in f for f in frames),
                  "mixed: an eval loop frame was not replaced: " + ";".join(frames))
            first_python = frames.index(python_frames(frames)[0])
            check(first_python > 0 and ".py(" not in frames[0],
                  "mixed: no native frames above the Python ones: " + ";".join(frames))
            check(".py(" not in frames[-2], "mixed: no native frames under the Python ones (ctypes, libffi): "
                  + ";".join(frames))
    thread_frames = api_stack(folded, "cudaMemset", "): in_thread")
    check(not any("<module>" in f for f in thread_frames), "the thread's stack has the main thread's frames")
    check(any("threading.py(" in f for f in thread_frames), "the thread's stack lacks threading.py's frames")

    if extension is not None:
        frames = api_stack(folded, "cudaMemset", "ext_memset", absent="c_thread_memset")
        expect_python(frames, [("<module>", at["module"]), ("main", at["main_extension"]),
                               ("via_extension", at["extension"])],
                      "mixed, C extension")
        last_python = max(i for i, f in enumerate(frames) if ".py(" in f)
        check(last_python < frames.index("ext_memset") < frames.index("cudaMemset"),
              "mixed, C extension: want Python frames, then ext_memset, then cudaMemset: " + ";".join(frames))
        c_thread = api_stack(folded, "cudaMemset", "c_thread_memset")
        check(not python_frames(c_thread), "a C thread got Python frames: " + ";".join(c_thread))
    else:
        notes.append("C extension scenarios skipped: no Python.h for this interpreter")

    # python: Python frames only (native where a thread has none).
    folded, _, _ = record(python, args, tmp, "python", extension)
    frames = api_stack(folded, "cudaMemset", "): main")
    expect_python(frames, main_chain + [("memset_via_ctypes", at["memset"])], "python mode")
    check(all(".py(" in f for f in frames[:-1]), "python mode: native frames in " + ";".join(frames))
    if extension is not None:
        c_thread = api_stack(folded, "cudaMemset", "c_thread_memset")
        check(not python_frames(c_thread), "python mode: a C thread got Python frames")

    # The hooks record the calls (CUPTI refused): the same stacks, mixed and python.
    folded, _, path = record(python, args, tmp, None, extension, {"SIMCUDA_CUPTI": "off"})
    check(any(r["type"] == "api" and r["backend"] == "hooks" for r in dump(path)),
          "SIMCUDA_CUPTI=off, yet the hooks recorded nothing")
    frames = api_stack(folded, "cudaMemset", "): forward", absent="in_thread")
    expect_python(frames, main_chain + [("memset_via_ctypes", at["memset"])], "mixed, hooks")
    check(".py(" not in frames[0] and ".py(" not in frames[-2] and
          not any("_PyEval_EvalFrameDefault" in f for f in frames),
          "mixed, hooks: want native frames around the Python ones, eval loops replaced: " + ";".join(frames))
    folded, _, _ = record(python, args, tmp, "python", extension, {"SIMCUDA_CUPTI": "off"})
    frames = api_stack(folded, "cudaMemset", "): in_thread")
    expect_python(frames, thread_chain + [("memset_via_ctypes", at["memset"])], "python mode, hooks, thread")
    check(all(".py(" in f for f in frames[:-1]), "python mode, hooks: native frames in " + ";".join(frames))

    # native: no Python frames.
    folded, _, _ = record(python, args, tmp, "native", extension)
    frames = api_stack(folded, "cudaMemset", "_PyEval_EvalFrameDefault")
    check(not any(python_frames(f) for f in folded), "native mode recorded Python frames")
    return notes


def sanitized_env(args, env=None):
    """env for a Python process that loads our (maybe sanitized) code: the
    sanitizer runtime first, and no leak report (CPython frees little at exit)."""
    env = dict(os.environ if env is None else env)
    if args.preload_first:
        env["LD_PRELOAD"] = ":".join([args.preload_first] + [p for p in env.get("LD_PRELOAD", "").split(":") if p])
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return env


def run_frames(python, args):
    return subprocess.run([python, os.path.join(HERE, "python", "frames_check.py"), args.probe],
                          capture_output=True, text=True, timeout=60, env=sanitized_env(args))


def check_layout(python, args, tmp):
    """The agent's offsets for this version against its own headers: None when
    they agree, else what differs. Skipped (a note) without the headers."""
    query = ("import sys, sysconfig; print(sysconfig.get_paths()['include']); "
             "print(sys.version_info[0], sys.version_info[1])")
    include, major, minor = subprocess.run([python, "-c", query], capture_output=True, text=True,
                                           check=True).stdout.split()
    if not os.path.exists(os.path.join(include, "internal", "pycore_frame.h")) and int(minor) >= 11:
        return "layout not checked: no internal headers in " + include
    if not os.path.exists(os.path.join(include, "Python.h")):
        return "layout not checked: no Python.h in " + include
    binary = os.path.join(tmp, "layout_probe")
    subprocess.run(["cc", "-w", "-I" + include, os.path.join(HERE, "python", "layout_probe.c"), "-o", binary],
                   check=True)
    from_headers = dict(line.split() for line in subprocess.run([binary], capture_output=True, text=True,
                                                                check=True).stdout.splitlines())
    read_table = ("import ctypes, sys; probe = ctypes.CDLL(sys.argv[1]); b = ctypes.create_string_buffer(4096); "
                  "rc = probe.probe_layout(int(sys.argv[2]), int(sys.argv[3]), b, len(b)); "
                  "print(b.value.decode(), end=''); sys.exit(rc != 0)")
    table = subprocess.run([python, "-c", read_table, args.probe, major, minor], capture_output=True, text=True,
                           env=sanitized_env(args))
    if table.returncode != 0:
        raise Failure("the agent has no layout for %s.%s %s" % (major, minor, table.stderr))
    from_agent = dict(line.split() for line in table.stdout.splitlines())
    if from_agent != from_headers:
        raise Failure("the agent's layout of %s.%s differs from its headers: agent %s, headers %s"
                      % (major, minor, from_agent, from_headers))
    return "layout matches %s.%s's headers (%d fields)" % (major, minor, len(from_agent))


def scenario_unknown(args):
    """A CPython outside 3.8-3.13: the agent says so once, records native frames."""
    old = None
    for root in [os.environ.get("PYENV_ROOT"), os.path.expanduser("~/.pyenv"), "/root/.pyenv"]:
        for path in sorted(glob.glob(os.path.join(root or "/nonexistent", "versions", "3.[67].*", "bin", "python3"))):
            old = old or path
    if old is None:
        print("skipped: no CPython 3.6 or 3.7 (pyenv) to stand for an unknown layout")
        return 0
    with tempfile.TemporaryDirectory(prefix="prof-python-") as tmp:
        try:
            folded, stderr, _ = record(old, args, tmp, None, None)
            said = [line for line in stderr.splitlines() if "Python" in line and line.startswith("libprof:")]
            check(len(said) == 1 and "3.8 to 3.13" in said[0],
                  "want one libprof line naming the unknown CPython, got:\n" + stderr)
            check(not any(python_frames(f) for f in folded), "Python frames recorded from an unknown layout")
            api_stack(folded, "cudaMemset", "_PyEval_EvalFrameDefault")
        except Failure as failure:
            print("FAIL %s: %s" % (old, failure))
            return 1
    print("ok %s: %s" % (old, said[0]))
    return 0


def main():
    # Not harness.main: "frames" and "cuda" run once per interpreter found.
    harness.parse_arguments(required=("--apps",), optional=("--probe",) + harness.SIMCUDA_OPTIONS[1:])
    args = harness.ARGS
    if args.scenario not in ("frames", "cuda", "unknown"):
        print("unknown scenario " + args.scenario, file=sys.stderr)
        return 2

    if args.scenario == "unknown":
        return scenario_unknown(args)
    found, skipped = interpreters()
    failed = []
    for label, python in found:
        if args.scenario == "frames":
            result = run_frames(python, args)
            print("== %s (%s): exit %d" % (label, python, result.returncode))
            print(result.stdout + result.stderr, end="")
            if result.returncode != 0:
                failed.append(label)
            with tempfile.TemporaryDirectory(prefix="prof-python-") as tmp:
                try:
                    print(check_layout(python, args, tmp))
                except Failure as failure:
                    print("FAIL %s" % failure)
                    failed.append(label)
            continue
        with tempfile.TemporaryDirectory(prefix="prof-python-") as tmp:
            try:
                notes = scenario_cuda(python, args, tmp)
                print("ok %s (%s)%s" % (label, python, "".join("; " + n for n in notes)))
            except Failure as failure:
                print("FAIL %s (%s): %s" % (label, python, failure))
                failed.append(label)
    print("ran: %s" % ", ".join(label for label, _ in found))
    for version, why in skipped:
        print("skipped %s: %s" % (version, why))
    if failed:
        print("FAILED under: %s" % ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
