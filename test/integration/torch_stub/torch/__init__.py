"""A stand-in for `torch`, written for the tests of libprof's Python
bootstrap (agent/python/): the API surface the bootstrap calls, each call
written to $STUB_TORCH_LOG as one line "pid name args", so a test sees what
was turned on, how often and in which process.

  STUB_TORCH_API=1.13   torch 1.13's surface: no global optimizer hook, no
                        always_call for forward hooks (default: torch 2.x)
  STUB_TORCH_NVTX=refuse  emit_nvtx refuses, as a CPU-only torch does
  STUB_TORCH_CUDA=1     the caching allocator's history
                        (_record_memory_history, _snapshot) fed by
                        torch.stub_tensor(bytes), and
                        torch.cuda.is_available(); unset: a CUDA torch
                        without that history (torch < 2.1); none: a torch
                        built without CUDA (torch.version.cuda is None:
                        torch.cuda.synchronize raises, as CPU torch's does).
                        CUDA initializes lazily, as torch's does: at the
                        first tensor, torch.cuda.synchronize (which
                        emit_nvtx's __enter__ calls) or
                        _record_memory_history (logged as cuda_init), and
                        then runs the calls torch.cuda._lazy_call deferred
"""
import os
import sys
import time
import types

API_1_13 = os.environ.get("STUB_TORCH_API") == "1.13"
__version__ = "1.13.1" if API_1_13 else "2.5.0"


def log(name, *args):
    path = os.environ.get("STUB_TORCH_LOG")
    if path:
        with open(path, "a") as out:
            out.write("%d %s %s\n" % (os.getpid(), name, " ".join(repr(a) for a in args)))


log("import")

# ---- torch.autograd: emit_nvtx and the profiler switches
_profiler_on = [False]


def _enable_profiler(*args):
    if _profiler_on[0]:
        raise RuntimeError("Profiler is already enabled on this thread")
    _profiler_on[0] = True
    log("_enable_profiler")


def _disable_profiler():
    _profiler_on[0] = False
    log("_disable_profiler")


class emit_nvtx:
    def __init__(self, enabled=True, record_shapes=False):
        self.record_shapes = record_shapes

    def __enter__(self):
        sys.modules["torch"].cuda.synchronize()  # as torch's does
        if os.environ.get("STUB_TORCH_NVTX") == "refuse":
            raise RuntimeError("Can't use NVTX profiler - PyTorch was compiled without CUDA")
        log("emit_nvtx", self.record_shapes)
        autograd.profiler._enable_profiler()
        return self

    def __exit__(self, *exc):
        autograd.profiler._disable_profiler()


autograd = types.ModuleType("torch.autograd")
autograd._enable_profiler = _enable_profiler
autograd._disable_profiler = _disable_profiler
autograd.profiler = types.ModuleType("torch.autograd.profiler")
autograd.profiler.emit_nvtx = emit_nvtx
# As torch's profiler.py does: its own names for the same functions.
autograd.profiler._enable_profiler = _enable_profiler
autograd.profiler._disable_profiler = _disable_profiler

# ---- torch.nn: modules and the global forward hooks
_pre_hooks, _post_hooks = {}, {}


class _Handle:
    def __init__(self, table, key):
        self.table, self.key = table, key

    def remove(self):
        self.table.pop(self.key, None)
        log("hook_removed")


def register_module_forward_pre_hook(hook):
    log("register_module_forward_pre_hook")
    key = object()
    _pre_hooks[key] = hook
    return _Handle(_pre_hooks, key)


def register_module_forward_hook(hook, **kwargs):
    if API_1_13 and kwargs:
        raise TypeError("register_module_forward_hook() got an unexpected keyword argument 'always_call'")
    log("register_module_forward_hook", sorted(kwargs))
    key = object()
    _post_hooks[key] = (hook, kwargs.get("always_call", False))
    return _Handle(_post_hooks, key)


class Module:
    def __init__(self):
        object.__setattr__(self, "_modules", {})

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, child in self._modules.items():
            yield from child.named_modules(prefix + "." + name if prefix else name)

    def __call__(self, *args):
        for hook in list(_pre_hooks.values()):
            hook(self, args)
        try:
            output = self.forward(*args)
        except BaseException:
            for hook, always in list(_post_hooks.values()):
                if always:
                    hook(self, args, None)
            raise
        for hook, _ in list(_post_hooks.values()):
            hook(self, args, output)
        return output


class ModuleList(Module):
    def __init__(self, modules):
        super().__init__()
        for i, module in enumerate(modules):
            setattr(self, str(i), module)

    def __iter__(self):
        return iter(self._modules.values())


nn = types.ModuleType("torch.nn")
nn.Module = Module
nn.ModuleList = ModuleList
nn.modules = types.ModuleType("torch.nn.modules")
nn.modules.module = types.ModuleType("torch.nn.modules.module")
nn.modules.module.register_module_forward_pre_hook = register_module_forward_pre_hook
nn.modules.module.register_module_forward_hook = register_module_forward_hook

# ---- torch.optim: optimizers and (torch >= 2.0) the global step post hook
_step_hooks = []


class Optimizer:
    def __init__(self, params=()):
        self.steps = 0

    def step(self):
        self.steps += 1
        for hook in list(_step_hooks):
            hook(self, (), {})


class SGD(Optimizer):
    pass


optim = types.ModuleType("torch.optim")
optim.Optimizer = Optimizer
optim.SGD = SGD
optim.optimizer = types.ModuleType("torch.optim.optimizer")
optim.optimizer.Optimizer = Optimizer
if not API_1_13:
    def register_optimizer_step_post_hook(hook):
        log("register_optimizer_step_post_hook")
        _step_hooks.append(hook)
    optim.optimizer.register_optimizer_step_post_hook = register_optimizer_step_post_hook


_optimizer_module = optim.optimizer
if API_1_13:
    del optim.optimizer  # as torch 1.13's optim/__init__.py does; sys.modules keeps it

# ---- torch.profiler: a program's own steps
class profile:
    def __init__(self):
        self.step_num = 0

    def step(self):
        self.step_num += 1
        log("profile.step")


profiler = types.ModuleType("torch.profiler")
profiler.profile = profile

# ---- torch.cuda: the caching allocator's history
_history = {"on": False, "trace": []}


_cuda_state = {"initialized": False, "deferred": []}


def _lazy_init():
    if _cuda_state["initialized"]:
        return
    log("cuda_init")
    _cuda_state["initialized"] = True
    for call in _cuda_state["deferred"]:
        call()


def _synchronize():
    if version.cuda is None:
        raise AssertionError("Torch not compiled with CUDA enabled")
    _lazy_init()


def _lazy_call(call):
    if _cuda_state["initialized"]:
        call()
    else:
        _cuda_state["deferred"].append(call)


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=0):
    _lazy_init()  # as torch's does (memory_snapshot.cpp: lazyInitDevice)
    log("_record_memory_history", enabled, context, stacks)
    _history["on"] = enabled is not None


def _snapshot():
    log("_snapshot")
    return {"segments": [], "device_traces": [list(_history["trace"])]}


class _Tensor:
    """Bytes from the stub allocator: its history holds the alloc now and
    the free when the tensor is deleted, as the caching allocator's does."""
    _next_address = [0x7f0000000000]

    def __init__(self, size):
        _lazy_init()
        self.size = size
        self.address = _Tensor._next_address[0]
        _Tensor._next_address[0] += 1 << 20
        if _history["on"]:
            if self.address == 0x7f0000000000:
                _history["trace"].append(_entry("segment_alloc", self.address, 32 << 20))
            _history["trace"].append(_entry("alloc", self.address, size))

    def __del__(self):
        if _history["on"]:
            _history["trace"].append(_entry("free_requested", self.address, self.size))
            _history["trace"].append(_entry("free_completed", self.address, self.size))


def _entry(action, address, size):
    """As torch's history holds one: its Python frames leaf first."""
    frames = []
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename != __file__:
            frames.append({"filename": frame.f_code.co_filename, "line": frame.f_lineno,
                           "name": frame.f_code.co_name})
        frame = frame.f_back
    return {"action": action, "addr": address, "size": size, "stream": 0,
            "time_us": time.time_ns() // 1000, "frames": frames}


def stub_tensor(size):
    return _Tensor(size)


cuda = types.ModuleType("torch.cuda")
cuda.is_available = lambda: os.environ.get("STUB_TORCH_CUDA") == "1"
cuda.is_initialized = lambda: _cuda_state["initialized"]
cuda._lazy_call = _lazy_call
version = types.ModuleType("torch.version")
version.cuda = None if os.environ.get("STUB_TORCH_CUDA") == "none" else "12.4"
cuda.memory = types.ModuleType("torch.cuda.memory")
if os.environ.get("STUB_TORCH_CUDA") == "1":
    cuda.memory._record_memory_history = _record_memory_history
    cuda.memory._snapshot = _snapshot
cuda.synchronize = _synchronize

# Submodules are in sys.modules, as a real package's are.
for _module in (autograd, autograd.profiler, nn, nn.modules, nn.modules.module, optim, _optimizer_module,
                profiler, cuda, cuda.memory, version):
    sys.modules[_module.__name__] = _module
