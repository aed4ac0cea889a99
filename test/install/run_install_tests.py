#!/usr/bin/env python3
"""What a user gets from the packages, and the agent in processes with
another C++ runtime than its own (stdlib Python only).

  run_install_tests.py --agent LIBPROF --analyzer PROFANALYZE --build-dir B
                       --simcuda-lib L --apps A [--libcxx-app X] [--gnu-app Y] SCENARIO

(the integration runners' harness: test/integration/harness.py)

deb_prefix_records_and_passes_exit_status
    cpack makes the .deb and the .tar.gz; the .deb is unpacked with dpkg -x
    into a temporary root, and `profanalyze record` from that prefix records
    a program with the prefix's libprof.so, reports it, cuts it into step
    windows with the prefix's libprof-regex.so, and hands back the
    program's stdin, stdout, exit status and signals.
libcxx_program_recorded / older_libstdcxx_program_recorded
    test/install/apps/foreign_runtime_app.cpp built with clang -stdlib=libc++,
    and built with g++ but run against a libstdc++ that lacks the versions
    newer than Ubuntu 20.04's (GLIBCXX_3.4.28): each runs as it does
    without the agent, and the recording holds its copies and NVTX steps.
"""
import csv
import io
import os
import signal
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from harness import ARGS, Skipped, base_env, check, main, run  # noqa: E402


def make_packages(build_dir, tmp):
    """The .deb and .tar.gz as `cpack` makes them from the build."""
    out = os.path.join(tmp, "packages")
    made = run(["cpack", "--config", os.path.join(build_dir, "CPackConfig.cmake"), "-G", "DEB;TGZ", "-B", out],
               timeout=120)
    check(made.returncode == 0, "cpack failed: " + made.stdout + made.stderr)
    names = os.listdir(out)
    debs = [os.path.join(out, n) for n in names if n.endswith(".deb")]
    tars = [os.path.join(out, n) for n in names if n.endswith(".tar.gz")]
    check(len(debs) == 1 and len(tars) == 1, "cpack wrote %s, not one .deb and one .tar.gz" % names)
    return debs[0], tars[0]


def simcuda_environment(extra=None):
    """A program's environment on simcuda, without the agent and nothing of
    ours from the shell (harness.base_env)."""
    environment = base_env(simcuda=True)
    environment["SIMCUDA_KERNEL_NS"] = "forward=150000,backward=250000,optimizer=50000"
    environment.update(extra or {})
    return environment


def deb_prefix_records_and_passes_exit_status(tmp):
    deb, tar = make_packages(ARGS.build_dir, tmp)
    with tarfile.open(tar) as archive:
        members = [m.name.split("/", 1)[-1] for m in archive.getmembers()]
    check("bin/profanalyze" in members and "lib/libprof.so" in members and "lib/libprof-regex.so" in members,
          "the .tar.gz lacks bin/profanalyze, lib/libprof.so or lib/libprof-regex.so: %s" % members)

    root = os.path.join(tmp, "root")
    unpacked = run(["dpkg", "-x", deb, root])
    check(unpacked.returncode == 0, "dpkg -x failed: " + unpacked.stderr)
    profanalyze = os.path.join(root, "usr", "bin", "profanalyze")
    agent = os.path.join(root, "usr", "lib", "libprof.so")
    check(os.path.isfile(profanalyze) and os.path.isfile(agent), "the .deb lacks usr/bin/profanalyze or usr/lib/libprof.so")
    app = os.path.join(ARGS.apps, "nvtx_training")
    environment = simcuda_environment()
    work = os.path.join(tmp, "work")
    os.makedirs(work)

    # The program's own output, without the agent, to compare with.
    alone = run([app], env=environment, cwd=work)
    check(alone.returncode == 0, "nvtx_training fails on its own: " + alone.stderr)

    # Recorded from the prefix, with the report afterwards.
    recorded = run([profanalyze, "record", "--report", "-o", "train.pb", "--", app], env=environment, cwd=work)
    stderr = recorded.stderr
    check(recorded.returncode == 0, "record exited %d: %s" % (recorded.returncode, stderr))
    check(os.path.isfile(os.path.join(work, "train.pb")), "record wrote no train.pb: " + stderr)
    check(recorded.stdout.startswith(alone.stdout),
          "the program's stdout changed under record: %r, alone %r" % (recorded.stdout[:200], alone.stdout))
    report = recorded.stdout[len(alone.stdout):]
    check("ProfilerStep*" in report and "forward_kernel" in report and "Self CUDA time total" in report,
          "--report printed no report of the run: " + report[:500])
    check("profanalyze record: wrote train.pb" in stderr and "report train.pb" in stderr,
          "record did not say what it wrote and what to run next: " + stderr)

    # A step rule's regex: the agent opens the prefix's libprof-regex.so
    # beside its libprof.so (agent/regex/companion_regex.cpp). Were it not
    # found, the agent would say so and write the whole run as one file.
    stepped = run([profanalyze, "record", "--step", "nvtx:^ProfilerStep#", "--schedule", "wait=1,active=1",
                   "-o", "steps.pb", "--", app], env=environment, cwd=work)
    check(stepped.returncode == 0 and "cannot be used" not in stepped.stderr,
          "record --step exited %d: %s" % (stepped.returncode, stepped.stderr))
    check(os.path.isfile(os.path.join(work, "steps.step1.pb")) and os.path.isfile(os.path.join(work, "steps.step3.pb")),
          "record --step wrote no window files steps.step1.pb and steps.step3.pb: %s (%s)" %
          (sorted(os.listdir(work)), stepped.stderr))

    # The agent preloaded is the prefix's own, found beside profanalyze.
    preload = run([profanalyze, "record", "-o", "none.pb", "--", "sh", "-c", 'echo "$LD_PRELOAD"'],
                  env=environment, cwd=work)
    check(preload.stdout.strip() == agent,
          "record preloaded %r, not the prefix's %s" % (preload.stdout.strip(), agent))

    # Exit status and signals, as a shell would see them.
    script = '"$0" >/dev/null; %s'
    exit_status = run([profanalyze, "record", "-o", "exit.pb", "--", "sh", "-c", script % "exit 7", app],
                      env=environment, cwd=work)
    check(exit_status.returncode == 7, "record returned %d for a program that exits 7" % exit_status.returncode)
    check(os.path.isfile(os.path.join(work, "exit.pb")), "no file for the program that exits 7")
    check("exited with status 7" in exit_status.stderr, "record did not say the program exited with 7")
    for name in ("TERM", "SEGV"):
        killed = run([profanalyze, "record", "-o", "killed.pb", "--", "sh", "-c", script % ("kill -%s $$" % name), app],
                     env=environment, cwd=work)
        number = getattr(signal, "SIG" + name)
        check(killed.returncode == -number,
              "record returned %d for a program killed by SIG%s, not death by the same signal" %
              (killed.returncode, name))
        check("killed by signal %d" % number in killed.stderr, "record did not report SIG%s" % name)

    # stdin reaches the program; nothing recorded is said so.
    echoed = run([profanalyze, "record", "-o", "cat.pb", "--", "cat"], input="line one\nline two\n",
                 env=environment, cwd=work)
    check(echoed.returncode == 0 and echoed.stdout == "line one\nline two\n",
          "stdin did not reach the program: %r" % echoed.stdout)
    check("no capture file was written" in echoed.stderr, "record did not say nothing was written")

    # A signal sent to profanalyze alone (kill, timeout) reaches the program.
    waiting = subprocess.Popen(
        [profanalyze, "record", "-o", "wait.pb", "--", "sh", "-c",
         'trap "exit 42" TERM; echo ready; while :; do sleep 0.05; done'],
        env=environment, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(waiting.stdout.readline() == b"ready\n", "the waiting program did not start")
    waiting.send_signal(signal.SIGTERM)
    try:
        waiting.wait(timeout=20)
    except subprocess.TimeoutExpired:
        waiting.kill()
        waiting.wait()
    check(waiting.returncode == 42, "SIGTERM to profanalyze did not reach the program (status %s)" % waiting.returncode)

    # A signal profanalyze was started with ignored (nohup, a background
    # job) stays ignored in the program, as without profanalyze.
    ignoring = run([profanalyze, "record", "-o", "ignored.pb", "--", "sh", "-c", "kill -INT $$; echo survived"],
                   env=environment, cwd=work, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    check(ignoring.returncode == 0 and ignoring.stdout == "survived\n",
          "an ignored SIGINT was not ignored in the program (status %d, %r)" % (ignoring.returncode, ignoring.stdout))

    # Usage errors: exit 2 and a line that says what to do.
    for words, said in ((["--schedule", "wait=1,active=1"], "--schedule needs --step"),
                        (["--agent", os.path.join(tmp, "no", "libprof.so")], "no agent at"),
                        ([], "")):
        wrong = run([profanalyze, "record"] + words + (["--", "true"] if said else []), env=environment, cwd=work)
        check(wrong.returncode == 2 and said in wrong.stderr,
              "record %s gave %d: %s" % (" ".join(words), wrong.returncode, wrong.stderr))

    # A program that does not exist: the shell's 127.
    missing = run([profanalyze, "record", "--", "./no_such_program"], env=environment, cwd=work)
    check(missing.returncode == 127 and "no_such_program" in missing.stderr,
          "a missing program gave %d: %s" % (missing.returncode, missing.stderr))


def cuda_rows(profanalyze, capture):
    """Name -> # of Calls, from `report --format csv`."""
    report = run([profanalyze, "report", "--format", "csv", capture])
    check(report.returncode == 0, "report failed: " + report.stderr)
    rows = {}
    for row in csv.DictReader(io.StringIO(report.stdout)):
        name = row.get("Name", "").strip()
        calls = row.get("# of Calls", "0").strip()
        rows[name] = int(calls) if calls.isdigit() else calls
    return rows


def record_foreign_program(tmp, app, extra_environment, launcher=()):
    steps = 5
    environment = simcuda_environment(extra_environment)
    alone = run(list(launcher) + [app, str(steps)], env=environment)
    check(alone.returncode == 0, "%s fails without the agent: %s" % (app, alone.stderr))
    capture = os.path.join(tmp, "foreign.pb")
    recorded = run([ARGS.analyzer, "record", "--agent", ARGS.agent, "-o", capture, "--"] + list(launcher) +
                   [app, str(steps)], env=environment)
    stderr = recorded.stderr
    check(recorded.returncode == 0, "under the agent it exited %d: %s" % (recorded.returncode, stderr))
    check(recorded.stdout == alone.stdout, "its output changed: %r, alone %r" % (recorded.stdout, alone.stdout))
    expected = "foreign_runtime_app: %d steps, %d copies, %d exceptions caught\n" % (steps, 2 * steps, steps)
    check(alone.stdout == expected, "unexpected output %r" % alone.stdout)
    check("error" not in stderr.lower(), "the agent complained: " + stderr)
    check(os.path.isfile(capture), "nothing recorded: " + stderr)
    rows = cuda_rows(ARGS.analyzer, capture)
    check(rows.get("cudaMemcpy") == 2 * steps, "cudaMemcpy calls recorded: %r, not %d" % (rows.get("cudaMemcpy"), 2 * steps))
    # Ranges named with a counter are one row, as torch's ProfilerStep*.
    step_rows = {name: calls for name, calls in rows.items() if name.startswith("step#") or name == "step*"}
    check(sum(step_rows.values()) == steps if step_rows else False,
          "NVTX step ranges recorded: %r, not %d" % (step_rows, steps))
    copies = rows.get("Memcpy HtoD (Pageable -> Device)", 0)
    check(copies == steps, "GPU copies host to device recorded: %r, not %d" % (copies, steps))


def libcxx_program_recorded(tmp):
    if not os.path.isfile(ARGS.libcxx_app):
        raise Skipped("no clang -stdlib=libc++ build of foreign_runtime_app (install libc++-dev)")
    record_foreign_program(tmp, ARGS.libcxx_app, {})


def rename_versions(data, newest_kept):
    """DATA with every GLIBCXX_3.4.N newer than NEWEST_KEPT renamed in place
    (same length, so nothing moves): GLIBCXX_3.4.29 -> GLIBCXX_X.X.29."""
    renamed = []
    for minor in range(newest_kept + 1, 60):
        name = ("GLIBCXX_3.4.%d" % minor).encode() + b"\0"
        position = data.find(name)
        while position >= 0:
            data[position:position + len(name)] = ("GLIBCXX_X.X.%d" % minor).encode() + b"\0"
            renamed.append(name[:-1].decode())
            position = data.find(name, position + 1)
    return sorted(set(renamed))


def older_libstdcxx(tmp, newest_kept):
    """A folder holding a copy of this machine's libstdc++.so.6 that offers no
    symbol version newer than GLIBCXX_3.4.NEWEST_KEPT, as an older one
    (Ubuntu 20.04's tops at 3.4.28, CentOS 7's at 3.4.19): the names of the
    newer versions are changed, so the loader finds none of them.

    simcuda's libraries go into the folder too, with the same names changed:
    they stand for the real CUDA libraries, which carry their C++ runtime
    inside and need no libstdc++, whereas simcuda's need this machine's."""
    directory = os.path.join(tmp, "old-libstdcxx")
    os.makedirs(directory)
    found = run(["g++", "-print-file-name=libstdc++.so.6"]).stdout.strip()
    sources = [(os.path.realpath(found), "libstdc++.so.6")]
    for name in os.listdir(ARGS.simcuda_lib):
        if ".so." in name:
            sources.append((os.path.join(ARGS.simcuda_lib, name), name))
    removed = []
    for source, name in sources:
        data = bytearray(open(os.path.realpath(source), "rb").read())
        renamed = rename_versions(data, newest_kept)
        if name == "libstdc++.so.6":
            removed = renamed
        with open(os.path.join(directory, name), "wb") as out:
            out.write(data)
    return directory, removed


def older_libstdcxx_program_recorded(tmp):
    directory, removed = older_libstdcxx(tmp, 28)
    check(bool(removed), "this libstdc++ has no version newer than GLIBCXX_3.4.28 to remove")
    print("libstdc++ without %s in %s" % (", ".join(removed), directory), file=sys.stderr)
    # The older libstdc++ is found first on the program's LD_LIBRARY_PATH:
    # the process's own. `env` sets it for the program alone (profanalyze
    # needs this machine's). Before the agent linked its own C++ runtime it
    # needed GLIBCXX_3.4.29 there, and the loader refused to start the
    # program: "version `GLIBCXX_3.4.29' not found (required by libprof.so)".
    record_foreign_program(tmp, ARGS.gnu_app, {}, launcher=["env", "LD_LIBRARY_PATH=" + directory])


if __name__ == "__main__":
    sys.exit(main(globals(), "prof-install-", required=("--build-dir", "--simcuda-lib", "--apps"),
                  optional=("--libcxx-app", "--gnu-app")))
