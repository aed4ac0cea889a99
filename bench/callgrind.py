"""Instructions per launch, exact, by shared object: callgrind on a noisy
machine, where wall and CPU times of a few percent cannot be resolved."""
import collections
import os
import re
import shutil
import subprocess
import tempfile

_OBJECT = re.compile(r"(c?ob)=\((\d+)\)(?: (.*))?$")


def available():
    return shutil.which("valgrind") is not None


def exclusive_by_object(path):
    """Instructions executed in each object's own code (callees excluded),
    from a callgrind output file with its default name compression."""
    names, totals = {}, collections.Counter()
    current, after_call = None, False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = _OBJECT.match(line.rstrip("\n"))
            if m:
                if m.group(3):
                    names[m.group(2)] = os.path.basename(m.group(3))
                if m.group(1) == "ob":
                    current = names[m.group(2)]
                continue
            if line.startswith("calls="):
                after_call = True  # the next cost line is the callee's, inclusive
            elif line[:1].isdigit() or line[:1] in "+-*":
                if after_call:
                    after_call = False
                    continue
                fields = line.split()
                if len(fields) >= 2:
                    totals[current] += int(fields[1])
    return totals


def per_launch(argv_for, env, launches=(20_000, 40_000)):
    """{object: instructions per launch}: the difference between two runs of
    argv_for(n) launches, divided by the difference in launches, so that
    start-up and exit cancel out."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as tmp:
        for n in launches:
            out = os.path.join(tmp, f"{n}.out")
            # Fair scheduling: without it valgrind may leave the agent's writer
            # thread waiting behind the app's for seconds, so that what the
            # writer does on its own time (PROF_CUPTI_DETACH) happens at a
            # different launch in each run, or not at all.
            subprocess.run(["valgrind", "--tool=callgrind", "--fair-sched=yes", f"--callgrind-out-file={out}"]
                           + argv_for(n),
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            runs.append(exclusive_by_object(out))
    span = launches[1] - launches[0]
    first, second = runs
    return {obj: (second[obj] - first[obj]) / span for obj in set(first) | set(second)}


def _thread_role(path):
    """'app' for the process's first thread, 'writer' for the agent's writer
    (the thread that ran Writer::run), 'other' for the rest (simcuda's
    CUPTI and GPU threads)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        first = True
        for line in f:
            if first and line.startswith("thread:"):
                if line.split()[1] == "1":
                    return "app"
                first = False
            if "Writer::run" in line:
                return "writer"
    return "other"


def per_launch_by_thread(argv_for, env, launches=(20_000, 40_000)):
    """{'app' | 'writer' | 'other' [+ ' in CUPTI']: instructions per launch},
    as per_launch() but per thread (valgrind's --separate-threads): what the
    app thread pays apart from what the agent's writer pays, and on each
    thread what ran in libcupti apart. The agent's symbols name the writer
    thread, so the agent must not be stripped."""
    runs = []
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as tmp:
        for n in launches:
            out = os.path.join(tmp, f"{n}.out")
            subprocess.run(["valgrind", "--tool=callgrind", "--fair-sched=yes", "--separate-threads=yes",
                            f"--callgrind-out-file={out}"] + argv_for(n),
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            totals = collections.Counter()
            for name in os.listdir(tmp):
                if name.startswith(f"{n}.out-"):
                    path = os.path.join(tmp, name)
                    role = _thread_role(path)
                    for obj, count in exclusive_by_object(path).items():
                        # CUPTI's own work lands on whichever thread asks it
                        # to deliver (on simcuda: its flush, on the writer or
                        # its own thread by timing): counted apart.
                        totals[role + (" in CUPTI" if obj.startswith("libcupti") else "")] += count
            runs.append(totals)
    span = launches[1] - launches[0]
    first, second = runs
    return {role: (second[role] - first[role]) / span for role in set(first) | set(second)}
