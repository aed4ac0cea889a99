#!/usr/bin/env python3
"""Python stacks tests, run under every CPython 3.8-3.13 on the machine.

Debian's /usr/bin/python3 always runs (a missing one fails the test); pyenv's
builds (`pyenv root`/versions/*/bin/python3, or $PYENV_ROOT) run when present.
Prints which interpreters ran and which versions were skipped, and why.

Scenarios:
  frames   the agent's frame reader on its own (python/frames_check.py)
"""
import argparse
import glob
import os
import subprocess
import sys

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


def run_frames(python, args):
    return subprocess.run([python, os.path.join(HERE, "python", "frames_check.py"), args.probe],
                          capture_output=True, text=True, timeout=60)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--probe")
    parser.add_argument("--agent")
    parser.add_argument("--analyzer")
    parser.add_argument("--apps")
    parser.add_argument("--preload-first")
    parser.add_argument("scenario", choices=["frames"])
    args = parser.parse_args()

    found, skipped = interpreters()
    failed = []
    for label, python in found:
        result = run_frames(python, args)
        print("== %s (%s): exit %d" % (label, python, result.returncode))
        print(result.stdout + result.stderr, end="")
        if result.returncode != 0:
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
