#!/usr/bin/env python3
"""Runs every command of README.md, taken from the README's own text, as a
user of a fresh clone would (stdlib Python only).

  run_readme_commands.py --source-dir SRC --build-dir BUILD

The clone: the files git tracks in SRC (as they are in the working tree),
copied into a scratch folder outside SRC, with `build` there pointing at
BUILD (the build CI just made, so that `scripts/demo.sh` finds what it needs
built and configures nothing). HOME is a scratch folder too, so that
`cmake --install build --prefix ~/.local` and the rest land in it.

Blocks:
  ```sh                 run, in order, in one bash (set -e) in the clone
  ```sh gpu             run only where a GPU driver answers (nvidia-smi)
  ```sh not-run: WHY    not run; WHY is printed (it must say why)
  ```text / others      output or syntax, not run
Then checks that the files the README says the commands make exist.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

BLOCK = re.compile(r"^```([^\n]*)\n(.*?)^```\s*$", re.S | re.M)


def readme_blocks(readme_text):
    """(info string, body) of every fenced block, in order."""
    return [(m.group(1).strip(), m.group(2)) for m in BLOCK.finditer(readme_text)]


def has_gpu():
    try:
        return subprocess.run(["nvidia-smi"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def fresh_clone(source_dir, build_dir, clone):
    """The tracked files of SOURCE_DIR, with their modes, and build/ -> BUILD_DIR."""
    listed = subprocess.run(["git", "-C", source_dir, "ls-files", "-z"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    if listed.returncode == 0:
        files = listed.stdout.decode().split("\0")
    else:  # not a git checkout (a tarball): everything but build folders
        files = []
        for folder, subfolders, names in os.walk(source_dir):
            subfolders[:] = [d for d in subfolders if not d.startswith(("build", ".git"))]
            files += [os.path.relpath(os.path.join(folder, name), source_dir) for name in names]
    for relative in files:
        if not relative:
            continue
        source = os.path.join(source_dir, relative)
        if not os.path.lexists(source):  # deleted in the working tree
            continue
        target = os.path.join(clone, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    os.symlink(os.path.realpath(build_dir), os.path.join(clone, "build"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--build-dir", required=True)
    args = parser.parse_args()
    started = time.monotonic()

    with open(os.path.join(args.source_dir, "README.md")) as readme:
        blocks = readme_blocks(readme.read())
    gpu = has_gpu()
    script = ["set -e"]
    commands = 0
    for info, body in blocks:
        words = info.split()
        if not words or words[0] != "sh":
            continue
        if len(words) > 1 and words[1] == "not-run:":
            reason = " ".join(words[2:])
            if not reason:
                print("FAIL: a not-run block says not why:\n" + body, file=sys.stderr)
                return 1
            print("not run (%s):\n  %s" % (reason, body.strip().replace("\n", "\n  ")))
            continue
        if len(words) > 1 and words[1] == "gpu" and not gpu:
            print("not run (no GPU driver answers here):\n  %s" % body.strip().replace("\n", "\n  "))
            continue
        if len(words) > 1 and words[1] not in ("gpu",):
            print("FAIL: unknown block kind %r" % info, file=sys.stderr)
            return 1
        # bash -x echoes each command before it runs, so a failure names it.
        for line in body.rstrip("\n").split("\n"):
            script.append(line)
        commands += sum(1 for line in body.split("\n") if line.strip() and not line.rstrip().endswith("\\")
                        and not line.strip().startswith("#"))
    if commands < 10:
        print("FAIL: only %d commands found in README.md's sh blocks" % commands, file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory(prefix="prof-readme-") as scratch:
        clone = os.path.join(scratch, "libprof")
        home = os.path.join(scratch, "home")
        os.makedirs(home)
        fresh_clone(args.source_dir, args.build_dir, clone)
        environment = dict(os.environ)
        environment["HOME"] = home
        for variable in ("LD_PRELOAD", "PROF_OUTPUT", "LD_LIBRARY_PATH", "BUILD_DIR"):
            environment.pop(variable, None)
        print("running %d commands of README.md in %s (HOME=%s)" % (commands, clone, home), flush=True)
        ran = subprocess.run(["bash", "-x", "-c", "\n".join(script)], cwd=clone, env=environment,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        output = ran.stdout.decode(errors="replace")
        failures = []
        if ran.returncode != 0:
            failures.append("the README's commands stopped with status %d (last lines above)" % ran.returncode)
        # What the README says its commands make.
        expected = [
            os.path.join(home, ".local", "bin", "profanalyze"),
            os.path.join(home, ".local", "lib", "libprof.so"),
            os.path.join(home, "opt", "libprof-0.1.0-Linux", "bin", "profanalyze"),
            os.path.join(home, "opt", "libprof-0.1.0-Linux", "lib", "libprof.so"),
            os.path.join(clone, "train.pb"),
            os.path.join(clone, "python.pb"),
            os.path.join(clone, "flame.svg"),
            os.path.join(clone, "train.html"),
        ]
        if ran.returncode == 0:
            failures += ["%s was not made" % path for path in expected if not os.path.isfile(path)]
            for needed in ("ProfilerStep*", "forward_kernel(float const*, float*, int)", "profanalyze record: wrote"):
                if needed not in output:
                    failures.append("the output lacks %r" % needed)
        print(output[-20000:])
        for failure in failures:
            print("FAIL:", failure, file=sys.stderr)
        print("%d README commands: %s in %.1f s" % (commands, "FAILED" if failures else "ok", time.monotonic() - started))
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
