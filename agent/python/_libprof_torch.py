"""libprof's torch side (docs/pytorch.md), started by sitecustomize.py right
after the program's `import torch`. Each part of PROF_TORCH is turned on
once:

  ops      torch.autograd.profiler.emit_nvtx: torch's own operator ranges,
           which the agent records as it records every NVTX range;
  modules  torch's global forward pre/post hooks: each nn.Module call is a
           range "nn.Module: Net.encoder.layers.0" (its path in its root);
  steps    each optimizer.step() ends a "ProfilerStep#N" range, as
           torch.profiler's prof.step() does;
  memory   the CUDA caching allocator's history: each tensor block handed
           out or taken back, sent to the agent at each step's end and at
           exit.

Ranges and memory reach the agent through the C functions libprof.so
exports (agent/torch_entry.cpp), called through ctypes. Nothing
here may break the program: a part that cannot start says so once and
stays off.
"""
import atexit
import ctypes
import functools
import os
import sys
import threading
import time
import weakref

OPS, MODULES, STEPS, MEMORY = 1, 2, 4, 8
SHAPES = 0x100

# TensorMemoryEvent.Action in proto/prof.proto
ALLOC, FREE = 1, 2


class Agent:
    """libprof.so's entry points, found in the process's global scope (the
    agent is preloaded). None of them when the agent is not there."""

    def __init__(self, library):
        self.options = library.libprof_torch_options
        self.options.restype = ctypes.c_uint32
        self.options.argtypes = []
        self.push = library.libprof_torch_range_push
        self.push.restype = ctypes.c_int
        self.push.argtypes = [ctypes.c_char_p]
        self.pop = library.libprof_torch_range_pop
        self.pop.restype = ctypes.c_int
        self.pop.argtypes = []
        self.start = library.libprof_torch_range_start
        self.start.restype = ctypes.c_uint64
        self.start.argtypes = [ctypes.c_char_p]
        self.end = library.libprof_torch_range_end
        self.end.restype = None
        self.end.argtypes = [ctypes.c_uint64]
        self.memory = library.libprof_torch_memory
        self.memory.restype = None
        self.memory.argtypes = [ctypes.c_uint32, ctypes.c_int32] + [ctypes.c_uint64] * 6 + [
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int32),
            ctypes.c_uint32]
        self._say = library.libprof_torch_say
        self._say.restype = None
        self._say.argtypes = [ctypes.c_char_p]

    def say(self, line):
        self._say(line.encode("utf-8", "replace"))


def find_agent():
    try:
        return Agent(ctypes.CDLL(None))
    except (AttributeError, OSError):
        return None


def start(torch):
    agent = find_agent()
    if agent is None:
        return  # PYTHONPATH inherited without the agent: nothing to record into
    options = agent.options()
    if options & OPS:
        _guarded(agent, "ops", start_operators, torch, agent, bool(options & SHAPES))
    # Steps first: torch runs global forward pre hooks in the order they
    # were registered, and step 0 must begin before the first module range.
    if options & STEPS:
        _guarded(agent, "steps", start_steps, torch, agent)
    if options & MODULES:
        _guarded(agent, "modules", start_modules, torch, agent)
    if options & MEMORY:
        _guarded(agent, "memory", start_memory, torch, agent)


def _guarded(agent, part, function, *args):
    try:
        function(*args)
    except Exception as error:  # noqa: BLE001 -- never break the program
        agent.say("PROF_TORCH %s is off: %s: %s" % (part, type(error).__name__, error))


# ---------------------------------------------------------------- ops ----

def _built_with_cuda(torch):
    return getattr(getattr(torch, "version", None), "cuda", None) is not None


def start_operators(torch, agent, shapes):
    if not _built_with_cuda(torch):
        # Its NVTX callbacks would fail in every operator.
        agent.say("PROF_TORCH ops is off: this torch is built without CUDA, which emit_nvtx needs; "
                  "operators are not recorded")
        return
    try:
        annotation = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=shapes)
        with _no_synchronize_before_cuda_starts(torch.cuda):
            annotation.__enter__()
    except Exception as error:  # noqa: BLE001 -- a torch without NVTX refuses it
        lines = str(error).strip().splitlines()
        reason = lines[0] if lines else type(error).__name__
        agent.say("PROF_TORCH ops is off: torch refused emit_nvtx (%s); operators are not recorded" % reason)
        return
    _give_way_to_the_programs_profiler(torch, agent)


class _no_synchronize_before_cuda_starts:
    """emit_nvtx's __enter__ calls torch.cuda.synchronize(), to put its
    first range after the GPU work already queued. At `import torch` no
    work is queued, and the call would start CUDA where the program has not
    (torch's lazy initialization): a program that sets CUDA_VISIBLE_DEVICES
    after its import, or forks children that use CUDA, would see the
    difference. Until CUDA starts, synchronize does nothing for the call."""

    def __init__(self, cuda):
        self.cuda = cuda
        self.synchronize = None

    def __enter__(self):
        if not self.cuda.is_initialized():
            self.synchronize = self.cuda.synchronize
            self.cuda.synchronize = lambda *args, **kwargs: None

    def __exit__(self, *exc):
        if self.synchronize is not None:
            self.cuda.synchronize = self.synchronize


def _give_way_to_the_programs_profiler(torch, agent):
    """torch allows one profiler per thread: a program that starts its own
    (torch.profiler.profile, emit_nvtx) gets it, ours stops first."""
    state = {"ours_on": True}
    namespaces = [torch.autograd, torch.autograd.profiler]
    legacy = getattr(torch.autograd, "profiler_legacy", None)
    if legacy is not None:
        namespaces.append(legacy)
    disable = torch.autograd._disable_profiler

    def wrap(enable):
        @functools.wraps(enable)
        def enable_after_ours(*args, **kwargs):
            if state["ours_on"]:
                state["ours_on"] = False
                try:
                    disable()
                except Exception:  # noqa: BLE001
                    pass
                agent.say("the program starts torch's profiler: PROF_TORCH ops stops recording operators")
            return enable(*args, **kwargs)
        return enable_after_ours

    for namespace in namespaces:
        enable = getattr(namespace, "_enable_profiler", None)
        if enable is not None:
            namespace._enable_profiler = wrap(enable)


# ------------------------------------------------------------ modules ----

def _submodule(torch, dotted):
    """torch.<dotted>, also where the package deleted the attribute (torch
    1.13's optim/__init__.py does `del optimizer`)."""
    found = sys.modules.get("torch." + dotted)
    if found is not None:
        return found
    for part in dotted.split("."):
        torch = getattr(torch, part)
    return torch


def _module_hooks(torch):
    module = _submodule(torch, "nn.modules.module")
    return module.register_module_forward_pre_hook, module.register_module_forward_hook


def start_modules(torch, agent):
    register_pre, register_post = _module_hooks(torch)
    push, pop = agent.push, agent.pop
    local = threading.local()
    # Per root model: id(module) -> its range name. Roots are held weakly.
    roots = weakref.WeakKeyDictionary()

    def names_of(root):
        names = {}
        root_name = type(root).__name__
        for path, child in root.named_modules():
            full = root_name + "." + path if path else root_name
            names[id(child)] = ("nn.Module: " + full).encode("utf-8", "replace")
        roots[root] = names
        return names

    def before_forward(module, inputs):
        try:
            stack = local.stack
        except AttributeError:
            stack = local.stack = []
        if stack:
            root, names = stack[-1][1], stack[-1][2]
            name = names.get(id(module))
            if name is None:  # added to the model since its names were taken
                names = names_of(root)
                name = names.get(id(module))
                if name is None:  # called from outside its model's tree
                    name = ("nn.Module: " + type(module).__name__).encode("utf-8", "replace")
        else:
            root = module
            names = roots.get(module)
            if names is None:
                names = names_of(module)
            name = names[id(module)]
        push(name)
        stack.append((module, root, names))

    def after_forward(module, inputs, output):
        stack = getattr(local, "stack", None)
        if not stack:
            return
        # A forward that raised (torch before 2.1 calls no post hook then)
        # left its ranges open: they close here with their caller.
        for depth in range(len(stack) - 1, -1, -1):
            if stack[depth][0] is module:
                while len(stack) > depth:
                    stack.pop()
                    pop()
                return

    register_pre(before_forward)
    try:
        register_post(after_forward, always_call=True)  # torch >= 2.1: also when forward raises
    except TypeError:
        register_post(after_forward)


# -------------------------------------------------------------- steps ----

# Called at each step's end, before its ProfilerStep range ends, so that
# what they send lands in that step's capture window (PROF_SCHEDULE): the
# memory part's send.
_before_step_end = []
# Whether the steps part hooked the optimizer and prof.step() (it then
# calls _step_ending; without it the memory part hooks them itself).
_steps_hooked = [False]


def _step_ending():
    for listener in list(_before_step_end):
        try:
            listener()
        except Exception:  # noqa: BLE001 -- never break the program's step
            pass


class Steps:
    """ProfilerStep#N ranges: step 0 begins at the first nn.Module call,
    each optimizer.step() ends one and begins the next, as prof.step() does.
    A program that calls prof.step() itself keeps its own."""

    def __init__(self, agent):
        self.agent = agent
        self.number = 0
        self.open_id = 0
        self.program_marks_steps = False

    def begin(self):
        if self.open_id == 0 and not self.program_marks_steps:
            self.open_id = self.agent.start(b"ProfilerStep#%d" % self.number)

    def end(self):
        if self.open_id != 0:
            _step_ending()
            self.agent.end(self.open_id)
            self.open_id = 0
            self.number += 1

    def optimizer_stepped(self, *unused):
        if self.program_marks_steps:
            return
        self.end()
        self.begin()

    def program_steps(self):
        if not self.program_marks_steps:
            self.end()
            self.program_marks_steps = True


def start_steps(torch, agent):
    rule = os.environ.get("PROF_STEP", "")
    if rule and "ProfilerStep" not in rule:
        agent.say("PROF_STEP=%s marks the program's steps: PROF_TORCH steps adds none" % rule)
        return
    steps = Steps(agent)
    register_pre, _ = _module_hooks(torch)
    first = {}

    def first_forward(module, inputs):
        first["handle"].remove()
        steps.begin()

    first["handle"] = register_pre(first_forward)
    _hook_optimizer_steps(torch, steps.optimizer_stepped)
    _notice_program_steps(torch, steps)
    _steps_hooked[0] = True
    atexit.register(steps.end)


def _hook_optimizer_steps(torch, after_step):
    optimizer_module = _submodule(torch, "optim.optimizer")
    register = getattr(optimizer_module, "register_optimizer_step_post_hook", None)
    if register is not None:  # torch >= 2.0
        register(after_step)
        return
    # torch 1.13: no global hook. Each optimizer class's step is wrapped once,
    # when its first instance is made (as torch's own _hook_for_profile does).
    optimizer_class = optimizer_module.Optimizer
    wrapped = set()
    original_init = optimizer_class.__init__

    @functools.wraps(original_init)
    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        cls = type(self)
        if cls in wrapped:
            return
        wrapped.add(cls)
        step = cls.step

        @functools.wraps(step)
        def step_then_mark(*step_args, **step_kwargs):
            result = step(*step_args, **step_kwargs)
            after_step()
            return result
        cls.step = step_then_mark

    optimizer_class.__init__ = init


def _notice_program_steps(torch, steps):
    """The program's own prof.step() ends a step: ours stop (steps given),
    and what ends a step runs first."""
    profile = getattr(getattr(torch, "profiler", None), "profile", None)
    step = getattr(profile, "step", None)
    if step is None:
        return

    @functools.wraps(step)
    def program_step(*args, **kwargs):
        _step_ending()
        if steps is not None:
            steps.program_steps()
        return step(*args, **kwargs)
    profile.step = program_step


# ------------------------------------------------------------- memory ----

def start_memory(torch, agent):
    cuda = getattr(torch, "cuda", None)
    memory = getattr(cuda, "memory", None)
    record = getattr(memory, "_record_memory_history", None)
    if record is None or not hasattr(memory, "_snapshot") or not _built_with_cuda(torch):
        agent.say("PROF_TORCH memory is off: this torch has no CUDA caching allocator history "
                  "(torch >= 2.1 with CUDA); tensor memory is not recorded")
        return
    history = MemoryHistory(memory, agent)
    _before_step_end.append(history.send)
    if not _steps_hooked[0]:  # no step part to call _step_ending: hook the same places
        _hook_optimizer_steps(torch, lambda *unused: _step_ending())
        _notice_program_steps(torch, None)
    atexit.register(history.send)
    entries = int(os.environ.get("PROF_TORCH_MEMORY_ENTRIES", "1000000"))

    def start_history():
        record(enabled="all", context="alloc", stacks="python", max_entries=entries)
        history.started = True
    # _record_memory_history initializes CUDA (memory_snapshot.cpp's
    # lazyInitDevice): called at `import torch` it would make CUDA start
    # where the program's would not yet (before it sets
    # CUDA_VISIBLE_DEVICES, before it forks). torch's own deferred calls
    # run once CUDA initializes, before its first allocation. Nothing here
    # asks torch.cuda.is_available() either: it initializes the driver.
    cuda._lazy_call(start_history)


class MemoryHistory:
    """The allocator's history, sent to the agent while the program runs:
    at each step's end (before its ProfilerStep range ends, so that a step's
    events land in its own capture window) and at exit. Each send takes
    torch's snapshot and sends the entries after the last one sent, so a
    killed process keeps what earlier steps sent."""

    def __init__(self, memory, agent):
        self.memory = memory
        self.agent = agent
        self.devices = {}  # device ordinal -> DeviceHistory
        self.sending = threading.Lock()
        self.said_lost = False
        self.started = False  # CUDA initialized and the history on: a snapshot before would initialize it

    def send(self):
        if not self.started:
            return
        # Not blocking: a send already under way (another thread's step)
        # will have sent what this one would.
        if not self.sending.acquire(blocking=False):
            return
        try:
            snapshot = self.memory._snapshot()
            # torch stamps each entry with wall-clock microseconds (time_us);
            # the agent keeps CLOCK_MONOTONIC, one offset away.
            monotonic_minus_wall = time.monotonic_ns() - time.time_ns()
            for device, trace in enumerate(snapshot.get("device_traces", [])):
                history = self.devices.setdefault(device, DeviceHistory())
                new = history.unsent(trace)
                if history.lost and not self.said_lost:
                    self.said_lost = True
                    self.agent.say("PROF_TORCH memory: torch's allocator history dropped events between two steps; "
                                   "raise PROF_TORCH_MEMORY_ENTRIES (now %s)"
                                   % os.environ.get("PROF_TORCH_MEMORY_ENTRIES", "1000000"))
                for time_ns, action, entry, allocated, reserved in history.tensor_events(new):
                    files, functions, lines, depth = _stack_arrays(entry.get("frames") or ())
                    self.agent.memory(action, device, entry.get("stream", 0), entry.get("addr", 0),
                                      entry.get("size", 0), allocated, reserved,
                                      time_ns + monotonic_minus_wall if time_ns else 0,
                                      files, functions, lines, depth)
        finally:
            self.sending.release()


def _entry_key(entry):
    return (entry.get("action"), entry.get("addr"), entry.get("size"), entry.get("time_us"), entry.get("stream"))


class DeviceHistory:
    """What was sent of one device's trace. torch keeps the trace as a ring
    of max_entries, so an entry's index moves once the ring is full: the
    entries sent are found again by the keys of the last few of them."""

    TAIL = 8

    def __init__(self):
        self.tail = []  # keys of the last entries sent, oldest first
        self.lost = False  # the last send found none of them: the ring wrapped past
        self.allocated = 0
        self.reserved = 0
        self.free_action = None

    def unsent(self, trace):
        tail = self.tail
        start = 0
        self.lost = False
        if tail:
            start = self._after(trace, tail)
            if start is None:
                start = 0
                self.lost = True
        new = trace[start:]
        if new:
            self.tail = (tail + [_entry_key(e) for e in new[-self.TAIL:]])[-self.TAIL:]
        return new

    @staticmethod
    def _after(trace, tail):
        """The index after the latest place `trace` holds `tail` (its start
        may have been dropped by the ring); None when it holds none of it."""
        last = tail[-1]
        for end in range(len(trace), 0, -1):
            if _entry_key(trace[end - 1]) != last:
                continue
            held = min(end, len(tail))
            if [_entry_key(e) for e in trace[end - held:end]] == tail[len(tail) - held:]:
                return end
        return None

    def tensor_events(self, entries):
        """(wall ns, action, entry, allocated, reserved) per tensor block.
        A block is freed when the program lets go of it (free_requested,
        which is when torch.profiler reports it); torch before 2.1 writes
        only free_completed. Totals count from the start of recording
        (bootstrap at `import torch`), across sends."""
        if self.free_action is None:
            actions = set(entry.get("action") for entry in entries)
            if "free_requested" in actions:
                self.free_action = "free_requested"
            elif "free_completed" in actions:
                # A free_requested always comes before its free_completed:
                # none before the first free_completed means torch writes none.
                self.free_action = "free_completed"
        for entry in entries:
            action = entry.get("action")
            size = entry.get("size", 0)
            if action in ("segment_alloc", "segment_map"):
                self.reserved += size
                continue
            if action in ("segment_free", "segment_unmap"):
                self.reserved -= size
                continue
            if action == "alloc":
                self.allocated += size
                kind = ALLOC
            elif action == self.free_action:
                self.allocated -= size
                kind = FREE
            else:
                continue
            yield entry.get("time_us", 0) * 1000, kind, entry, max(self.allocated, 0), max(self.reserved, 0)


def _stack_arrays(frames):
    """torch's frames (leaf first, {filename, line, name}) as the three
    arrays libprof_torch_memory takes. Python frames only: torch's C++
    frames, when it records them, carry no Python file."""
    python = [f for f in frames if f.get("filename", "").endswith(".py")][:128]
    depth = len(python)
    if depth == 0:
        return None, None, None, 0
    files = (ctypes.c_char_p * depth)(*(f["filename"].encode("utf-8", "replace") for f in python))
    functions = (ctypes.c_char_p * depth)(*(f.get("name", "?").encode("utf-8", "replace") for f in python))
    lines = (ctypes.c_int32 * depth)(*(int(f.get("line", 0)) for f in python))
    return files, functions, lines, depth
