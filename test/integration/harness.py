"""What every integration runner (run_*.py) shares: the command line, running
a program with a deadline, the environment with and without the agent,
reading a capture file back as `profanalyze dump`'s JSON, and the main()
that runs one scenario by name in its own temporary folder.

One scenario per invocation, so that ctest shows each by name:

    run_x_tests.py --agent A --analyzer P [runner's options] SCENARIO [ARGS...]

calls the runner's function SCENARIO(tmp, *ARGS). It passes, fails
(Failure: exit 1, with its message) or is skipped (Skipped: exit 77,
ctest's SKIP_RETURN_CODE for these tests).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# The parsed command line. One object that every runner imports (`from
# harness import ARGS`) and main() fills in place, so that a helper a
# runner borrows from another module reads the same arguments.
ARGS = argparse.Namespace()

SKIP = 77

# The options of the runners that use simcuda (test/simcuda) and its apps.
SIMCUDA_OPTIONS = ("--apps", "--simcuda-lib", "--simcuda-apps")


class Failure(Exception):
    """A scenario's expectation did not hold."""


class Skipped(Exception):
    """What a scenario needs (a browser, HTA, TensorBoard) is not installed."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def forked_child_dies_under_tsan(what="the forked child that follows the fork"):
    """Whether a forked child that starts a thread (the agent's writer, when
    it follows the fork; its window timer, in a launcher's child before its
    exec) dies in this build: GCC 12's ThreadSanitizer gives the thread the
    pthread_t of a parent's thread it still counts ("dup thread with used
    id", exit 66; run_reliability_tests.py skip_children_that_start_threads
    says more). Says what is not run when it does."""
    if ARGS.sanitizer != "thread":
        return False
    print("note: %s is not run under GCC 12's ThreadSanitizer (dup thread with used id)" % what)
    return True


# ------------------------------------------------------------ programs --

def run(cmd, env=None, cwd=None, timeout=60, **options):
    """Runs cmd to its end (and that of every process holding its output),
    its output captured as text; bytes that are not UTF-8 read as U+FFFD.
    Past `timeout` seconds: subprocess.TimeoutExpired, which main() reports
    as a failure."""
    return subprocess.run(cmd, env=env, cwd=cwd, timeout=timeout, capture_output=True, text=True,
                          errors="replace", **options)


def libprof_lines(stderr):
    """What the agent said: its lines of a program's stderr."""
    return [line for line in stderr.splitlines() if line.startswith("libprof:")]


# The one variable of ours a test run needs from its shell: where ../shared
# is (the trace readers, from a worktree).
KEPT_VARIABLES = ("PROF_SHARED_DIR",)


def base_env(simcuda=None):
    """The environment of a program run without the agent. Nothing of ours
    from the shell that runs the tests (a preload, an injection path, an
    exported PROF_ variable) reaches it. simcuda (by default: when this
    runner has --simcuda-lib): simcuda's libraries instead of the driver's,
    and the sanitizer's runtime preloaded, as simcuda is built with it and
    an app may not be."""
    env = {name: value for name, value in os.environ.items()
           if not (name.startswith("PROF_") and name not in KEPT_VARIABLES)
           and name not in ("LD_PRELOAD", "NVTX_INJECTION64_PATH", "CUDA_INJECTION64_PATH")}
    if simcuda is None:
        simcuda = bool(getattr(ARGS, "simcuda_lib", None))
    if simcuda:
        env["LD_LIBRARY_PATH"] = ARGS.simcuda_lib
        if ARGS.preload_first:
            env["LD_PRELOAD"] = ARGS.preload_first
    return env


def preload(env):
    """env with the agent preloaded, after the sanitizer's runtime when the
    build has one (it must come first in a process)."""
    env["LD_PRELOAD"] = ":".join(path for path in (ARGS.preload_first, ARGS.agent) if path)
    return env


def agent_env(extra=None, base=None):
    """`base` (by default base_env()) with the agent preloaded, then `extra`."""
    env = preload(dict(base_env() if base is None else base))
    env.update(extra or {})
    return env


def app_path(name):
    """A test program: simcuda's apps (test/apps), then this folder's."""
    for directory in (getattr(ARGS, "simcuda_apps", None), ARGS.apps):
        if directory:
            path = os.path.join(directory, name)
            if os.path.exists(path):
                return path
    raise Failure("no app " + name)


# ----------------------------------------------------------- analyzer --

def analyze(args, cwd=None, timeout=240):
    """profanalyze's stdout for `args`; a failure names the command."""
    result = run([ARGS.analyzer] + list(args), env=base_env(False), cwd=cwd, timeout=timeout)
    check(result.returncode == 0, "profanalyze %s failed (%d): %s" % (" ".join(args), result.returncode, result.stderr))
    return result.stdout


def dump(path, cwd=None):
    """Every record of a capture file, as `profanalyze dump` writes it."""
    return [json.loads(line) for line in analyze(["dump", path], cwd).splitlines()]


class Capture:
    """A capture file as dump's records, and what `info` sums up of them,
    read from the same JSON fields."""

    def __init__(self, records):
        self.records = records

    def of_type(self, kind):
        return [r for r in self.records if r["type"] == kind]

    def count(self, kind):
        return sum(1 for r in self.records if r["type"] == kind)

    def _last(self, kind):
        found = self.of_type(kind)
        return found[-1] if found else None

    @property
    def process(self):
        """The Process record (pid, command line, options...), or None."""
        return self._last("process")

    @property
    def drops(self):
        """The last chunk's drop totals (they are totals, FORMAT.md)."""
        drops = self._last("drops")
        check(drops is not None, "the file records no drop counts")
        return drops

    @property
    def ended(self):
        """How the process ended, in info's words: "exit", "signal N",
        "unspecified reason", or "cut short" (no ProcessEnd: killed, or
        still running at its window's end)."""
        end = self._last("process_end")
        if end is None:
            return "cut short"
        if end["reason"] == "SIGNAL":
            return "signal %d" % end["signal"]
        return "exit" if end["reason"] == "EXIT" else "unspecified reason"

    @property
    def thread_names(self):
        """{tid: its last name}."""
        return {r["tid"]: r["name"] for r in self.of_type("thread")}


def read_capture(path, cwd=None):
    return Capture(dump(path, cwd))


def ended(path, cwd=None):
    return read_capture(path, cwd).ended


# info's own text, where that text is what a scenario checks.
def info(path, cwd=None):
    return analyze(["info", path], cwd)


def info_count(text, label):
    """The number on info's line `label` (a record count or a drop total)."""
    match = re.search(r"^\s+%s\s+(\d+)\s*$" % re.escape(label), text, re.MULTILINE)
    check(match is not None, "info has no %r line:\n%s" % (label, text))
    return int(match.group(1))


# --------------------------------------------------------------- main --

def parse_arguments(required=(), optional=(), add_arguments=None):
    """The runner's command line into ARGS: --agent and --analyzer, the
    runner's `required` and `optional` options (paths, "" when absent),
    --preload-first (a sanitizer's runtime, to preload before the agent)
    and --sanitizer (the build's PROF_SANITIZE), then the scenario and its
    arguments."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent", required=True)
    parser.add_argument("--analyzer", required=True)
    for name in required:
        parser.add_argument(name, required=True)
    for name in optional:
        parser.add_argument(name, default="")
    parser.add_argument("--preload-first", default="")
    parser.add_argument("--sanitizer", default="")
    if add_arguments:
        add_arguments(parser)
    parser.add_argument("scenario")
    parser.add_argument("scenario_args", nargs="*")
    parser.parse_args(namespace=ARGS)


def call_in_folder(scenario, tmp):
    scenario(tmp, *ARGS.scenario_args)


def main(namespace, temp_prefix, required=SIMCUDA_OPTIONS, optional=(), add_arguments=None, call=call_in_folder):
    """Runs the scenario the command line names: the function of that name
    in `namespace` (the runner's globals()), called by `call(scenario, tmp)`
    in a fresh temporary folder. Returns the exit code."""
    parse_arguments(required, optional, add_arguments)
    scenario = namespace.get(ARGS.scenario)
    label = " ".join([ARGS.scenario] + ARGS.scenario_args)
    if scenario is None or not callable(scenario):
        print("unknown scenario " + ARGS.scenario, file=sys.stderr)
        return 2
    try:
        with tempfile.TemporaryDirectory(prefix=temp_prefix) as tmp:
            call(scenario, tmp)
    except Skipped as skipped:
        print("SKIP %s: %s" % (label, skipped))
        return SKIP
    except Failure as failure:
        print("FAIL %s: %s" % (label, failure), file=sys.stderr)
        return 1
    except subprocess.TimeoutExpired as expired:
        print("FAIL %s: %s" % (label, expired), file=sys.stderr)
        return 1
    print("ok", label)
    return 0
