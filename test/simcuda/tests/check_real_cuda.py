#!/usr/bin/env python3
"""Runs every test app against the real CUDA 13 libraries on a machine with no GPU
driver: each must stop on the error real CUDA reports there, with exit status 2
(the apps' CUDA-error exit), never crash.

usage: check_real_cuda.py CUDA_HOME APPS_DIR APP...
Runtime apps get cudaErrorInsufficientDriver (35). The driver-API app is linked
against libcuda.so.1; with no driver installed the only one is the toolkit's stub,
which answers CUDA_ERROR_STUB_LIBRARY (34) to everything.
"""
import os
import subprocess
import sys
import tempfile


def main():
    cuda_home, apps_dir, apps = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = 0
    with tempfile.TemporaryDirectory() as stub_dir:
        os.symlink(os.path.join(cuda_home, "lib64", "stubs", "libcuda.so"), os.path.join(stub_dir, "libcuda.so.1"))
        for app in apps:
            driver_app = app.startswith("driver_") or app in ("module_loading", "vmm_mapping")  # linked to libcuda
            env = dict(os.environ)
            for key in [k for k in env if k.startswith("SIMCUDA_")]:
                del env[key]
            env["LD_LIBRARY_PATH"] = os.path.join(cuda_home, "lib64") + (":" + stub_dir if driver_app else "")
            run = subprocess.run([os.path.join(apps_dir, app)], env=env, capture_output=True, text=True, timeout=60)
            want = "CUDA driver error 34" if driver_app else "CUDA error 35 (cudaErrorInsufficientDriver)"
            ok = run.returncode == 2 and want in run.stderr
            print("%s %s: exit %d, %s" % ("ok  " if ok else "FAIL", app, run.returncode, run.stderr.strip()[:160]))
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
