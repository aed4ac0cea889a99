#!/usr/bin/env python3
"""Tests of libprof's Python bootstrap (agent/python/, docs/pytorch.md).

Most run on a stub `torch` (torch_stub/torch, which logs every call the
bootstrap makes to $STUB_TORCH_LOG); `real_torch` runs Debian's python3-torch
1.13 (CPU). Scenarios:

  untouched      under every CPython found (Debian's, pyenv 3.8-3.13): a
                 program that never imports torch sees the same sys.path,
                 sys.modules, environment and output with the agent as
                 without, and nothing of torch's is called; one that does
                 gets each part turned on exactly once, after its import
  parts          PROF_TORCH=off, part lists, PROF_TORCH_SHAPES=0, torch 1.13's
                 API, a torch that refuses emit_nvtx, a program's own profiler
  no_site        python -S / -I / -E: said once, program unchanged
  user_sitecustomize  the environment's sitecustomize still runs, once
  processes      subprocess, multiprocessing fork/spawn/forkserver
  ranges         the capture's module and step ranges, exact names
  memory         the caching allocator's history as TensorMemoryEvents
  memory_columns report's CUDA Mem / Self CUDA Mem per row equal torch's
                 rule applied here to the recorded ranges and events
  memory_windows each step's events land in its own PROF_SCHEDULE window
  memory_killed  a run ended by SIGTERM keeps the events its steps sent
  real_torch     Debian's torch 1.13: module and step ranges, ops said off
"""
import glob
import json
import os
import subprocess
import sys

import harness
from harness import ARGS, Failure, check, dump, main, run  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__))
STUB = os.path.join(HERE, "torch_stub")
LOOP = os.path.join(HERE, "python", "torch_loop.py")
SYSTEM_PYTHON = "/usr/bin/python3"


def base_env(tmp, extra=None, stub=True):
    env = harness.base_env()
    for name in ("PYTHONPATH", "PYENV_VERSION"):
        env.pop(name, None)
    if stub:
        env["PYTHONPATH"] = STUB
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # no __pycache__ in the source tree
    env["STUB_TORCH_LOG"] = os.path.join(tmp, "stub.log")
    env["PROF_OUTPUT"] = os.path.join(tmp, "run.pb")
    env.update(extra or {})
    return env


def agent_env(tmp, extra=None, stub=True):
    return harness.preload(base_env(tmp, extra, stub))


def stub_calls(tmp):
    """[(pid, name, args)] the stub logged; emptied for the next run."""
    path = os.path.join(tmp, "stub.log")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = [line.rstrip("\n").split(" ", 2) for line in f if line.strip()]
    os.remove(path)
    return [(int(pid), name, args) for pid, name, args in lines]


def names(calls):
    return [name for _, name, _ in calls]


def clean_captures(tmp):
    for path in glob.glob(os.path.join(tmp, "*.pb")):
        os.remove(path)


def ranges_of(records):
    return [r for r in records if r.get("type") == "range" or r.get("record") == "range"]


def interpreters():
    found = [SYSTEM_PYTHON]
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    for minor in range(8, 14):
        paths = sorted(glob.glob(os.path.join(root, "versions", "3.%d.*" % minor, "bin", "python3")))
        if paths:
            found.append(paths[-1])
        else:
            print("skipped: no pyenv CPython 3.%d in %s" % (minor, root))
    return found


# What a program sees of its interpreter: compared with and without the agent.
VIEW = r"""
import os, sys
print(sys.path)
print(sorted(sys.modules))
print(os.environ.get("PYTHONPATH"))
print(getattr(sys.modules.get("sitecustomize"), "__file__", None))
print(sorted(k for k in sys.path_importer_cache if k.endswith("libprof-python")))
"""


def untouched(tmp):
    for python in interpreters():
        for preset in (None, STUB):
            extra = {} if preset else {}
            plain = base_env(tmp, extra, stub=preset is not None)
            ours = agent_env(tmp, extra, stub=preset is not None)
            without = run([python, "-c", VIEW], plain)
            with_agent = run([python, "-c", VIEW], ours)
            check(without.returncode == 0 and with_agent.returncode == 0,
                  "%s: %s / %s" % (python, without.stderr, with_agent.stderr))
            check(with_agent.stdout == without.stdout,
                  "%s (PYTHONPATH %s): the program's view changed under the agent:\n%s\nvs\n%s"
                  % (python, preset, with_agent.stdout, without.stdout))
            check("PROF_TORCH" not in with_agent.stderr and "bootstrap" not in with_agent.stderr,
                  "%s: said %r" % (python, with_agent.stderr))
            check(stub_calls(tmp) == [], "%s: torch was touched without `import torch`" % python)
        # The same interpreter with `import torch` (the stub): each part once,
        # and only after torch's own __init__ ran.
        result = run([python, LOOP, "2"], agent_env(tmp))
        check(result.returncode == 0 and result.stdout == "trained 2 steps\n",
              "%s: %s %s" % (python, result.stdout, result.stderr))
        calls = names(stub_calls(tmp))
        check(calls[0] == "import", "%s: the stub was not imported first: %s" % (python, calls))
        for part in ("emit_nvtx", "_record_memory_history", "register_optimizer_step_post_hook"):
            check(calls.count(part) == (0 if part == "_record_memory_history" else 1),
                  "%s: %s called %d times: %s" % (python, part, calls.count(part), calls))
        # modules: a pre and a post hook; steps: one more pre hook (step 0's
        # start), which removes itself at the first forward.
        check(calls.count("register_module_forward_pre_hook") == 2, "%s: %s" % (python, calls))
        check(calls.count("register_module_forward_hook") == 1, "%s: %s" % (python, calls))
        check(calls.count("hook_removed") == 1, "%s: %s" % (python, calls))
        check(result.stderr.count("PROF_TORCH memory is off") == 1, "%s: %s" % (python, result.stderr))
        print("ok: %s" % python)
        clean_captures(tmp)


def parts(tmp):
    python = SYSTEM_PYTHON
    result = run([python, "-c", "import sys, torch; print([p for p in sys.path if 'libprof' in p])"],
                 agent_env(tmp, {"PROF_TORCH": "off"}))
    check(result.returncode == 0 and result.stdout == "[]\n", result.stdout + result.stderr)
    check(names(stub_calls(tmp)) == ["import"], "PROF_TORCH=off still called torch")

    run([python, LOOP, "1"], agent_env(tmp, {"PROF_TORCH": "modules,steps"}))
    calls = names(stub_calls(tmp))
    check("emit_nvtx" not in calls and "_record_memory_history" not in calls, calls)
    check(calls.count("register_module_forward_hook") == 1 and
          calls.count("register_optimizer_step_post_hook") == 1, calls)

    run([python, LOOP, "1"], agent_env(tmp, {"PROF_TORCH": "ops", "PROF_TORCH_SHAPES": "0"}))
    calls = stub_calls(tmp)
    check([args for _, name, args in calls if name == "emit_nvtx"] == ["False"], calls)
    check("register_module_forward_hook" not in names(calls), calls)

    result = run([python, LOOP, "1"], agent_env(tmp, {"PROF_TORCH": "ops,bogus"}))
    check(result.stderr.count("PROF_TORCH=ops,bogus") == 1 and result.returncode == 0, result.stderr)
    check(names(stub_calls(tmp)).count("emit_nvtx") == 1, "an invalid PROF_TORCH is not all parts")

    result = run([python, LOOP, "2"], agent_env(tmp, {"STUB_TORCH_NVTX": "refuse"}))
    check(result.returncode == 0 and result.stdout == "trained 2 steps\n", result.stdout + result.stderr)
    check(result.stderr.count("torch refused emit_nvtx (Can't use NVTX profiler") == 1, result.stderr)
    stub_calls(tmp)

    # A torch built without CUDA: emit_nvtx is not tried (its callbacks
    # would fail in every operator), said once.
    result = run([python, LOOP, "2"], agent_env(tmp, {"STUB_TORCH_CUDA": "none"}))
    check(result.returncode == 0 and result.stdout == "trained 2 steps\n", result.stdout + result.stderr)
    check(result.stderr.count("PROF_TORCH ops is off: this torch is built without CUDA") == 1, result.stderr)
    check("emit_nvtx" not in names(stub_calls(tmp)), "emit_nvtx tried on a torch without CUDA")

    # torch 1.13's surface: steps through the optimizer classes, no always_call.
    run([python, LOOP, "2"], agent_env(tmp, {"STUB_TORCH_API": "1.13"}))
    calls = names(stub_calls(tmp))
    check("register_optimizer_step_post_hook" not in calls and calls.count("register_module_forward_hook") == 1,
          calls)
    steps = sorted(r["name"] for r in ranges_of(dump(os.path.join(tmp, "run.pb")))
                   if r["name"].startswith("ProfilerStep#"))
    check(steps == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"], "1.13 steps: %s" % steps)
    clean_captures(tmp)

    # A program that starts torch's profiler itself gets it.
    program = ("import torch\nwith torch.autograd.profiler.emit_nvtx():\n    pass\n"
               "p = torch.profiler.profile()\np.step()\nprint('own profiler ran')\n")
    result = run([python, "-c", program], agent_env(tmp))
    check(result.returncode == 0 and result.stdout == "own profiler ran\n", result.stdout + result.stderr)
    check(result.stderr.count("the program starts torch's profiler") == 1, result.stderr)
    calls = names(stub_calls(tmp))
    check(calls.count("_disable_profiler") >= 1 and "profile.step" in calls, calls)
    clean_captures(tmp)


def no_site(tmp):
    for flags in (["-S"], ["-I"], ["-E"], ["-IS"]):
        plain = run([SYSTEM_PYTHON, *flags, "-c", VIEW], base_env(tmp))
        ours = run([SYSTEM_PYTHON, *flags, "-c", VIEW], agent_env(tmp))
        check(ours.returncode == 0 and ours.stdout == plain.stdout,
              "%s: view changed:\n%s\nvs\n%s" % (flags, ours.stdout, plain.stdout))
        check(ours.stderr.count("cannot run its Python bootstrap") == 1, "%s: %r" % (flags, ours.stderr))
        # torch imported all the same: nothing of ours runs.
        program = "import sys; sys.path.insert(0, %r); import torch" % STUB
        result = run([SYSTEM_PYTHON, *flags, "-c", program], agent_env(tmp))
        check(result.returncode == 0, result.stderr)
        check(names(stub_calls(tmp)) == ["import"], "%s: the bootstrap ran" % flags)
    # The interpreter's options are read only up to the program's name.
    result = run([SYSTEM_PYTHON, "-c", "import torch", "-S"], agent_env(tmp))
    check("cannot run" not in result.stderr and "emit_nvtx" in names(stub_calls(tmp)), result.stderr)
    clean_captures(tmp)


def user_sitecustomize(tmp):
    site_dir = os.path.join(tmp, "site")
    os.makedirs(site_dir, exist_ok=True)
    with open(os.path.join(site_dir, "sitecustomize.py"), "w") as f:
        f.write("import sys\nprint('user sitecustomize ran', file=sys.stderr)\n")
    extra = {"PYTHONPATH": site_dir + os.pathsep + STUB}
    for python in (SYSTEM_PYTHON, interpreters()[-1]):
        plain = run([python, "-c", VIEW], base_env(tmp, extra))
        ours = run([python, "-c", VIEW], agent_env(tmp, extra))
        check(ours.stdout == plain.stdout, "%s: view changed:\n%s\nvs\n%s" % (python, ours.stdout, plain.stdout))
        check(os.path.join(site_dir, "sitecustomize.py") in ours.stdout, ours.stdout)
        check(ours.stderr.count("user sitecustomize ran") == 1, ours.stderr)
        run([python, LOOP, "1"], agent_env(tmp, extra))
        check(names(stub_calls(tmp)).count("emit_nvtx") == 1, "%s: bootstrap did not run" % python)
    # A sitecustomize that fails is reported by site as it would be without us.
    with open(os.path.join(site_dir, "sitecustomize.py"), "w") as f:
        f.write("raise ValueError('broken sitecustomize')\n")
    plain = run([SYSTEM_PYTHON, "-c", "print('ran')"], base_env(tmp, extra))
    ours = run([SYSTEM_PYTHON, "-c", "print('ran')"], agent_env(tmp, extra))
    check(ours.stdout == plain.stdout == "ran\n" and "broken sitecustomize" in ours.stderr, ours.stderr)
    clean_captures(tmp)


CHILD = r"""
import multiprocessing, os, subprocess, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))

def train():
    import torch_loop
    sys.argv = ["torch_loop", "1"]
    torch_loop.main()

if __name__ == "__main__":
    method = sys.argv[2]
    print("parent %d" % os.getpid(), flush=True)
    if method == "subprocess":
        subprocess.run([sys.executable, sys.argv[1], "1"], check=True)
    else:
        if method == "fork":
            import torch  # the parent's hooks go with the fork
        context = multiprocessing.get_context(method)
        child = context.Process(target=train)
        child.start()
        child.join()
        sys.exit(child.exitcode)
"""


def processes(tmp):
    for method in ("subprocess", "fork", "spawn", "forkserver"):
        parent_program = os.path.join(tmp, "parent.py")
        with open(parent_program, "w") as f:
            f.write(CHILD)
        result = run([SYSTEM_PYTHON, parent_program, LOOP, method], agent_env(tmp), timeout=120)
        check(result.returncode == 0 and "trained 1 steps" in result.stdout,
              "%s: %s %s" % (method, result.stdout, result.stderr))
        calls = stub_calls(tmp)
        parent = int(result.stdout.split()[1])
        # Each part turned on once, in the process that imported torch: the
        # parent for fork (the child inherits its hooks), else the child.
        enabled = [pid for pid, name, _ in calls if name == "emit_nvtx"]
        importers = [pid for pid, name, _ in calls if name == "import"]
        check(enabled == importers and len(enabled) == 1 and (enabled[0] == parent) == (method == "fork"),
              "%s: parent %d, enabled in %s, imported in %s" % (method, parent, enabled, importers))
        found = False
        for path in glob.glob(os.path.join(tmp, "*.pb")):
            names_found = {r["name"] for r in ranges_of(dump(path))}
            found = found or "nn.Module: Net.encoder.layers.0.attn" in names_found
        check(found, "%s: no file holds the child's module ranges" % method)
        clean_captures(tmp)
        print("ok: %s" % method)


def expect_loop_ranges(records, steps, label, leaf=None):
    ranges = ranges_of(records)
    modules = {}
    for r in ranges:
        if r["name"].startswith("nn.Module: "):
            modules.setdefault(r["name"], []).append(r)
            check(r["style"] == "push_pop", "%s: %s" % (label, r))
    want = {"nn.Module: Net": 0, "nn.Module: Net.encoder": 1, "nn.Module: Net.encoder.layers.0": 2,
            "nn.Module: Net.encoder.layers.0.attn": 3}
    if leaf:
        want["nn.Module: Net.encoder.layers.0.attn." + leaf] = 4
    check(sorted(modules) == sorted(want), "%s: module ranges %s" % (label, sorted(modules)))
    for name, depth in want.items():
        check(len(modules[name]) == steps, "%s: %s %d times" % (label, name, len(modules[name])))
        check({r["depth"] for r in modules[name]} == {depth}, "%s: %s depths" % (label, name))
    step_ranges = sorted((r for r in ranges if r["name"].startswith("ProfilerStep#")), key=lambda r: r["start"])
    # Each optimizer.step() ends one; the last runs to the program's end, as
    # torch.profiler's after the last prof.step().
    check([r["name"] for r in step_ranges] == ["ProfilerStep#%d" % i for i in range(steps + 1)],
          "%s: steps %s" % (label, [r["name"] for r in step_ranges]))
    check(all(r["style"] == "start_end" and not r["unterminated"] for r in step_ranges), label)
    first_net = min(r["start"] for r in modules["nn.Module: Net"])
    check(step_ranges[0]["start"] <= first_net, "%s: step 0 starts after the first forward" % label)
    for a, b in zip(step_ranges, step_ranges[1:]):
        check(a["end"] <= b["start"], "%s: steps overlap" % label)


def ranges(tmp):
    for api in ("2", "1.13"):
        result = run([SYSTEM_PYTHON, LOOP, "3"], agent_env(tmp, {"STUB_TORCH_API": api}))
        check(result.returncode == 0, result.stderr)
        expect_loop_ranges(dump(os.path.join(tmp, "run.pb")), 3, "stub torch " + api)
        stub_calls(tmp)
        clean_captures(tmp)
    # A program with its own steps keeps them: ours end at its first prof.step().
    program = ("import runpy, sys, torch\np = torch.profiler.profile()\nsys.argv = ['x', '3']\n"
               "runpy.run_path(%r, run_name='__main__')\np.step()\n" % LOOP)
    run([SYSTEM_PYTHON, "-c", program], agent_env(tmp))
    steps = [r["name"] for r in ranges_of(dump(os.path.join(tmp, "run.pb"))) if r["name"].startswith("Profiler")]
    check(len(steps) == 4, "steps before the program's own: %s" % steps)
    clean_captures(tmp)
    stub_calls(tmp)


MEMORY = r"""
import time, torch

class Net(torch.nn.Module):
    def forward(self, size):
        time.sleep(0.002)  # the allocation well inside the module's range
        tensor = torch.stub_tensor(size)
        time.sleep(0.002)
        return tensor

kept = [Net()(1000), torch.stub_tensor(3000)]
temporary = torch.stub_tensor(500)
del temporary
print("done")
"""


def memory(tmp):
    program = os.path.join(tmp, "memory_program.py")
    with open(program, "w") as f:
        f.write(MEMORY)
    lines = MEMORY.split("\n")
    line_of = lambda text: 1 + next(i for i, line in enumerate(lines) if text in line)  # noqa: E731
    result = run([SYSTEM_PYTHON, program], agent_env(tmp, {"STUB_TORCH_CUDA": "1"}))
    check(result.returncode == 0 and result.stdout == "done\n", result.stdout + result.stderr)
    calls = stub_calls(tmp)
    check([args for _, name, args in calls if name == "_record_memory_history"] == ["'all' 'alloc' 'python'"],
          calls)
    capture = os.path.join(tmp, "run.pb")
    events = [r for r in dump(capture) if r.get("type", r.get("record")) == "tensor_memory"]
    got = [(e["action"], e["bytes"], e["total_allocated"], e["total_reserved"], e["device"]) for e in events]
    check(got == [("alloc", 1000, 1000, 32 << 20, 0), ("alloc", 3000, 4000, 32 << 20, 0),
                  ("alloc", 500, 4500, 32 << 20, 0), ("free", 500, 4000, 32 << 20, 0)], "events %s" % got)
    times = [e["time"] for e in events]
    check(times == sorted(times) and times[0] > 0, "times %s" % times)

    # report --view memory: the peak and what held it, by allocating range.
    view = subprocess.run([ARGS.analyzer, "report", "--view", "memory", "--format", "json", capture],
                          capture_output=True, text=True, timeout=60)
    check(view.returncode == 0, view.stderr)
    rows = json.loads(view.stdout)["windows"][0]["rows"]
    # The tensors live at the peak, by allocating range and Python line
    # (the allocator's stacks, leaf first).
    holders = sorted((r["held_by"], r["line"], r["bytes"], r["blocks"], r["peak_allocated"]) for r in rows)
    want = sorted([("(no range)", "<module> (memory_program.py:%d)" % line_of("kept = ["), 3000, 1, 4500),
                   ("(no range)", "<module> (memory_program.py:%d)" % line_of("temporary = "), 500, 1, 4500),
                   ("nn.Module: Net", "forward (memory_program.py:%d)" % line_of("tensor = "), 1000, 1, 4500)])
    check(holders == want, "holders %s, want %s" % (holders, want))
    check(all(e["stack"] != 0 for e in events), "events without a stack: %s" % events)
    text = subprocess.run([ARGS.analyzer, "report", "--view", "memory", capture], capture_output=True, text=True,
                          timeout=60).stdout
    check("Peak allocated 4.39 KB" in text and "nn.Module: Net" in text, text)

    # trace: Kineto's [memory] events with the allocator's totals.
    trace_path = os.path.join(tmp, "trace.json")
    traced = subprocess.run([ARGS.analyzer, "trace", capture, "-o", trace_path], capture_output=True, text=True,
                            timeout=60)
    check(traced.returncode == 0, traced.stderr)
    with open(trace_path) as f:
        trace = json.load(f)
    memory_events = [e for e in trace["traceEvents"] if e.get("name") == "[memory]"]
    check([(e["args"]["Bytes"], e["args"]["Total Allocated"], e["args"]["Device Id"]) for e in memory_events] ==
          [(1000, 1000, 0), (3000, 4000, 0), (500, 4500, 0), (-500, 4000, 0)], "trace %s" % memory_events)

    # advise names the peak and its largest holder.
    advice = subprocess.run([ARGS.analyzer, "advise", "--format", "json", capture], capture_output=True, text=True,
                            timeout=60)
    check(advice.returncode == 0, advice.stderr)
    check('"tensor_memory_peak"' in advice.stdout and "nn.Module: Net" in advice.stdout, advice.stdout)
    clean_captures(tmp)


LAZY_CUDA = r"""
import sys, torch
print(torch.cuda.is_initialized())
if sys.argv[1] == "allocate":
    kept = torch.stub_tensor(700)
    print(torch.cuda.is_initialized())
"""


def cuda_starts_with_the_program(tmp):
    """`import torch` leaves CUDA uninitialized under the agent as without
    it: emit_nvtx starts without its synchronize, the allocator's history
    starts when the program's CUDA does (at its first tensor here), and a
    program that never uses CUDA is not made to."""
    program = os.path.join(tmp, "lazy_cuda.py")
    with open(program, "w") as f:
        f.write(LAZY_CUDA)
    for mode, want in (("allocate", "False\nTrue\n"), ("import", "False\n")):
        alone = run([SYSTEM_PYTHON, program, mode], base_env(tmp, {"STUB_TORCH_CUDA": "1"}))
        check(alone.returncode == 0 and alone.stdout == want, "%s alone: %r %s" % (mode, alone.stdout, alone.stderr))
        stub_calls(tmp)  # the run without the agent's calls, read and cleared
        result = run([SYSTEM_PYTHON, program, mode], agent_env(tmp, {"STUB_TORCH_CUDA": "1"}))
        check(result.returncode == 0 and result.stdout == want,
              "%s under the agent: %r, alone %r; %s" % (mode, result.stdout, want, result.stderr))
        calls = names(stub_calls(tmp))
        if mode == "import":
            check("cuda_init" not in calls and "_snapshot" not in calls and "_record_memory_history" not in calls,
                  "CUDA was touched by a program that never uses it: %s" % calls)
            continue
        check(calls.index("emit_nvtx") < calls.index("cuda_init") < calls.index("_record_memory_history"), calls)
        events = [(r["action"], r["bytes"]) for r in dump(os.path.join(tmp, "run.pb")) if r.get("type") == "tensor_memory"]
        check(events == [("alloc", 700)], "tensor events %s" % events)
        clean_captures(tmp)


STEPPED_MEMORY = r"""
import os, signal, sys, time, torch

class Inner(torch.nn.Module):
    def forward(self, size):
        time.sleep(0.001)  # each allocation well inside its ranges
        tensor = torch.stub_tensor(size)
        time.sleep(0.001)
        return tensor

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def forward(self, size):
        time.sleep(0.001)
        scratch = torch.stub_tensor(2 * size)
        time.sleep(0.001)
        out = self.inner(size)
        time.sleep(0.001)
        del scratch
        time.sleep(0.001)
        return out

before = torch.stub_tensor(64)  # before the first step: inside no range
net, optimizer, kept = Net(), torch.optim.SGD(), []
steps, kill_after = int(sys.argv[1]), int(sys.argv[2])
for step in range(steps):
    kept.append(net(1000 * (step + 1)))
    optimizer.step()
    time.sleep(0.001)
    if step == kill_after:
        torch.stub_tensor(7)  # after the step's end: not sent when killed now
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)
print("done")
"""


def stepped_memory(tmp, steps, kill_after=-1, extra=None):
    program = os.path.join(tmp, "stepped_memory.py")
    with open(program, "w") as f:
        f.write(STEPPED_MEMORY)
    env = agent_env(tmp, dict({"STUB_TORCH_CUDA": "1"}, **(extra or {})))
    return run([SYSTEM_PYTHON, program, str(steps), str(kill_after)], env)


def tensor_events_of(records):
    return [r for r in records if r.get("type", r.get("record")) == "tensor_memory"]


def torch_memory_rows(records):
    """{row: (calls, total, self)} by torch.profiler's rule
    (_parse_kineto_results, MemRecordsAcc.in_interval, FunctionEvent's
    self_device_memory_usage), computed here from the dump alone: an
    event's memory is the signed bytes of the tensor events whose time lies
    in [start, end] on any thread; self takes out its direct children's
    (ranges nested on its thread); the events inside no range are the
    "[memory]" row. Self is None for start/end ranges, which the analyzer
    does not nest (ProfilerStep#N: its total only)."""
    ranges = ranges_of(records)
    events = [(e["time"], e["bytes"] if e["action"] == "alloc" else -e["bytes"]) for e in tensor_events_of(records)]

    def total(r):
        return sum(b for t, b in events if r["start"] <= t <= r["end"])

    def parent(r):
        holders = [p for p in ranges if p is not r and p["style"] == "push_pop" and p["tid"] == r["tid"]
                   and p["start"] <= r["start"] and r["end"] <= p["end"]]
        return min(holders, key=lambda p: p["end"] - p["start"]) if holders else None

    rows = {}
    for r in ranges:
        name = r["name"].split(", seq = ")[0].split(", op_id = ")[0]
        name = "ProfilerStep*" if name.startswith("ProfilerStep#") else name
        own = total(r)
        children = [c for c in ranges if c["style"] == "push_pop" and parent(c) is r] if r["style"] == "push_pop" else []
        own_self = own - sum(total(c) for c in children) if r["style"] == "push_pop" else None
        calls, sum_total, sum_self = rows.get(name, (0, 0, 0))
        rows[name] = (calls + 1, sum_total + own, None if own_self is None else (sum_self or 0) + own_self)
    outside = [b for t, b in events if not any(r["start"] <= t <= r["end"] for r in ranges)]
    if outside:
        rows["[memory]"] = (len(outside), sum(outside), sum(outside))
    return rows


def memory_columns(tmp):
    result = stepped_memory(tmp, 3)
    check(result.returncode == 0 and result.stdout == "done\n", result.stdout + result.stderr)
    capture = os.path.join(tmp, "run.pb")
    truth = torch_memory_rows(dump(capture))
    check(truth.get("[memory]") == (1, 64, 64), "the allocation before any range: %s" % truth)
    check(truth["nn.Module: Net.inner"][2] == 1000 + 2000 + 3000, truth)
    check(truth["nn.Module: Net"][2] == 0, "scratch taken back inside Net: %s" % truth)  # 2n - 2n
    report = subprocess.run([ARGS.analyzer, "report", "--format", "json", capture], capture_output=True, text=True,
                            timeout=60)
    check(report.returncode == 0, report.stderr)
    rows = {r["name"]: r for r in json.loads(report.stdout)["windows"][0]["rows"]}
    for name, (calls, total, own) in truth.items():
        check(name in rows, "no row %s in %s" % (name, sorted(rows)))
        got = rows[name]
        want = {"calls": calls, "cuda_mem_bytes": total}
        if own is not None:
            want["self_cuda_mem_bytes"] = own
        check({k: got[k] for k in want} == want, "%s: %s, torch's rule gives %s" % (name, got, want))
    table = subprocess.run([ARGS.analyzer, "report", capture], capture_output=True, text=True, timeout=60).stdout
    check("CUDA Mem" in table and "Self CUDA Mem" in table and "[memory]" in table, table)
    stub_calls(tmp)
    clean_captures(tmp)


def memory_windows(tmp):
    # wait 1, active 1: steps 1 and 3 are windows, each its own file.
    result = stepped_memory(tmp, 4, extra={"PROF_STEP": "nvtx:^ProfilerStep#",
                                           "PROF_SCHEDULE": "wait=1,warmup=0,active=1,repeat=2"})
    check(result.returncode == 0 and result.stdout == "done\n", result.stdout + result.stderr)
    files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(tmp, "*.pb")))
    check(files == ["run.step1.pb", "run.step3.pb"], "window files %s" % files)
    for step in (1, 3):
        events = tensor_events_of(dump(os.path.join(tmp, "run.step%d.pb" % step)))
        size = 1000 * (step + 1)
        got = [(e["action"], e["bytes"]) for e in events]
        # Net's scratch (2n) handed out and back, Inner's tensor (n) kept.
        check(got == [("alloc", 2 * size), ("alloc", size), ("free", 2 * size)],
              "window of step %d: %s" % (step, got))
    stub_calls(tmp)
    clean_captures(tmp)


def memory_killed(tmp):
    result = stepped_memory(tmp, 5, kill_after=1)
    check(result.returncode == -15 and "done" not in result.stdout, "%d %s" % (result.returncode, result.stderr))
    events = tensor_events_of(dump(os.path.join(tmp, "run.pb")))
    allocated = [e["bytes"] for e in events if e["action"] == "alloc"]
    # Sent at the ends of steps 0 and 1; what came after them is lost.
    check(allocated == [64, 2000, 1000, 4000, 2000], "allocations kept: %s" % allocated)
    stub_calls(tmp)
    clean_captures(tmp)


def real_torch(tmp):
    probe = run([SYSTEM_PYTHON, "-c", "import torch"], base_env(tmp, stub=False))
    if probe.returncode != 0:
        raise Failure("Debian's python3-torch is missing (scripts/bootstrap.sh installs it): " + probe.stderr)
    result = run([SYSTEM_PYTHON, LOOP, "3"], agent_env(tmp, stub=False), timeout=120)
    check(result.returncode == 0 and result.stdout == "trained 3 steps\n", result.stdout + result.stderr)
    # A CPU-only torch: no emit_nvtx (its NVTX callbacks need CUDA) and no
    # CUDA allocator, said once each.
    check(result.stderr.count("PROF_TORCH ops is off: this torch is built without CUDA") == 1, result.stderr)
    check(result.stderr.count("PROF_TORCH memory is off") == 1, result.stderr)
    expect_loop_ranges(dump(os.path.join(tmp, "run.pb")), 3, "torch 1.13", leaf="proj")
    clean_captures(tmp)


if __name__ == "__main__":
    sys.exit(main(globals(), "torch-test-", required=(), optional=("--apps",)))
