#!/usr/bin/env python3
"""What profanalyze writes, and what it says about it, on the golden capture:
- a write that fails (stdout on /dev/full, a file in a folder that does not
  exist) is an error with a non-zero exit, on every subcommand;
- every command that writes a file says which and how big; `-o -` writes to
  stdout;
- an unknown subcommand is named with the closest one; --version says the
  version and the file formats read; a file that does not exist is named
  without a byte offset (nothing of it was read).

usage: cli_outputs.py MAKE_GOLDEN_CAPTURE PROFANALYZE
"""
import os
import re
import subprocess
import sys
import tempfile

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)


def main():
    maker, profanalyze = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="prof-cli-") as tmp:
        subprocess.run([maker, os.path.join(tmp, "golden.pb")], check=True)

        def run(*args, stdout=subprocess.PIPE):
            return subprocess.run([profanalyze, *args], cwd=tmp, stdout=stdout, stderr=subprocess.PIPE,
                                  timeout=120)

        # Every subcommand that writes to stdout, with stdout on a full disk.
        to_stdout = [["info"], ["report"], ["report", "--format", "json"], ["dump"], ["stacks"],
                     ["flamegraph", "-o", "-"], ["trace", "-o", "-"], ["advise"], ["advise", "--format", "json"],
                     ["html", "-o", "-", "--no-symbols"]]
        for args in to_stdout:
            with open("/dev/full", "wb") as full:
                r = run(*args, "golden.pb", stdout=full)
            err = r.stderr.decode(errors="replace")
            check(r.returncode != 0 and "profanalyze: cannot write the output: No space left on device" in err,
                  "%s > /dev/full: exit %d, stderr %r" % (" ".join(args), r.returncode, err[-300:]))
            r = run(*args, "golden.pb")
            check(r.returncode == 0 and len(r.stdout) > 0, "%s to stdout: exit %d, %d bytes"
                  % (" ".join(args), r.returncode, len(r.stdout)))

        # Files: said with their size; a folder that does not exist is an error.
        # (command, its default file or None when it needs -o, the file)
        for args, default in ((["flamegraph"], "flamegraph.svg"), (["html", "--no-symbols"], "report.html"),
                              (["stacks"], None), (["trace"], "trace.json")):
            if default is None:
                default = "folded.txt"
                r = run(*args, "-o", default, "golden.pb")
            else:
                r = run(*args, "golden.pb")
            err = r.stderr.decode(errors="replace")
            out = r.stdout.decode(errors="replace")
            path = os.path.join(tmp, default)
            check(r.returncode == 0 and os.path.exists(path), "%s: exit %d, %s" % (args, r.returncode, err))
            if os.path.exists(path):
                size = os.path.getsize(path)
                said = "profanalyze: wrote %s (%s bytes)" % (default, "{:,}".format(size))
                check(said in err or re.search(r"^%s: \d+ events" % re.escape(default), out, re.M),
                      "%s: does not say what it wrote (%r); stderr %r, stdout %r" % (args, said, err, out))
            missing = os.path.join(tmp, "no-such-folder", default)
            r = run(*args, "-o", missing, "golden.pb")
            err = r.stderr.decode(errors="replace")
            check(r.returncode != 0 and "no-such-folder" in err and "wrote" not in err,
                  "%s -o %s: exit %d, stderr %r" % (args, missing, r.returncode, err))

        r = run("reprot", "golden.pb")
        err = r.stderr.decode()
        check(r.returncode == 2 and "unknown subcommand 'reprot'; did you mean 'report'?" in err,
              "reprot: exit %d, %r" % (r.returncode, err))
        r = run("frobnicate", "golden.pb")
        err = r.stderr.decode()
        check(r.returncode == 2 and "unknown subcommand 'frobnicate'" in err and "did you mean" not in err,
              "frobnicate: exit %d, %r" % (r.returncode, err))
        r = run("--version")
        out = r.stdout.decode()
        check(r.returncode == 0 and re.fullmatch(r"profanalyze \d+\.\d+\.\d+, reads capture files of format 2\.0 to "
                                                  r"2\.\d+\n", out), "--version: exit %d, %r" % (r.returncode, out))
        r = run("report", "no-such-file.pb")
        err = r.stderr.decode()
        check(r.returncode == 1 and err == "profanalyze: no-such-file.pb: cannot read: No such file or directory\n",
              "a missing file: exit %d, %r" % (r.returncode, err))

    for failure in FAILURES:
        print("FAIL:", failure, file=sys.stderr)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
