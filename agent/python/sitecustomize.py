# libprof's Python bootstrap (docs/pytorch.md). libprof.so puts this folder
# first on PYTHONPATH in a CPython process; site imports this module at
# start-up. It puts PYTHONPATH, sys.path and sys.modules back as they were,
# runs the sitecustomize the environment had, and leaves one import hook
# that waits for `import torch`. It imports nothing that start-up has not
# imported already: the torch side (_libprof_torch.py) and ctypes are
# loaded only when the program imports torch.
import os
import sys

_DIR = os.path.dirname(os.path.abspath(__file__))


def _restore_python_path():
    path = os.environ.get("PYTHONPATH")
    if path is None:
        return
    if path == _DIR:
        del os.environ["PYTHONPATH"]
    elif path.startswith(_DIR + os.pathsep):
        os.environ["PYTHONPATH"] = path[len(_DIR) + 1:]


def _remove_from_sys_path():
    for i, entry in enumerate(sys.path):
        if entry == _DIR or (entry and os.path.abspath(entry) == _DIR):
            del sys.path[i]
            break
    sys.path_importer_cache.pop(_DIR, None)


class _TorchImportHook:
    """Finds nothing; when `torch` is imported, wraps its loader so that the
    torch side starts right after torch's own __init__ has run. Once."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        _remove_hook()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _AfterTorch(spec.loader)
                return spec
            if spec is not None:
                return spec
        return None


class _AfterTorch:
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        # torch's spec and module as they would have been
        module.__spec__.loader = self._loader
        module.__loader__ = self._loader
        try:
            self._loader.exec_module(module)
        except BaseException:
            _install_hook()  # a later `import torch` may succeed
            raise
        _start_torch_side(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def _start_torch_side(torch):
    # Never break the program: whatever goes wrong here is said once and
    # the program runs on unrecorded by this part.
    try:
        import importlib.util

        spec = importlib.util.spec_from_file_location(
            "_libprof_torch", os.path.join(_DIR, "_libprof_torch.py"))
        side = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(side)
        side.start(torch)
    except Exception as error:  # noqa: BLE001 -- see above
        try:
            sys.stderr.write("libprof: PyTorch recording off: %s: %s\n" % (type(error).__name__, error))
        except Exception:  # noqa: BLE001
            pass


_HOOK = _TorchImportHook()


def _install_hook():
    if _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)


def _remove_hook():
    try:
        sys.meta_path.remove(_HOOK)
    except ValueError:
        pass


def _run_the_environments_sitecustomize():
    """Imports the sitecustomize that PYTHONPATH without us would have found.
    With none, raises site's own 'no sitecustomize' ImportError, so that
    site goes on exactly as it would have and `sitecustomize` is not left in
    sys.modules."""
    ours = sys.modules.pop("sitecustomize", None)
    try:
        __import__("sitecustomize")
    except ImportError as error:
        if error.name == "sitecustomize" and "sitecustomize" not in sys.modules:
            raise ImportError("No module named 'sitecustomize'", name="sitecustomize") from None
        raise
    finally:
        del ours


_restore_python_path()
_remove_from_sys_path()
if "torch" in sys.modules:  # imported by something before us (a .pth file)
    _start_torch_side(sys.modules["torch"])
else:
    _install_hook()
_run_the_environments_sitecustomize()
