#!/usr/bin/env python3
"""The truth log is complete however a program ends: killed (SIGKILL) in the
middle of a launch loop, it holds only whole lines, up to the last call.
A kill can cut a write(2) between two pages of the file, so simcuda keeps
each line within one page, with blank lines as padding.

usage: check_truth_on_kill.py LIB_DIR APPS_DIR
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time


def main():
    lib_dir, apps_dir = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        truth_path = os.path.join(tmp, "truth.jsonl")
        env = dict(os.environ, LD_LIBRARY_PATH=lib_dir, SIMCUDA_TRUTH=truth_path,
                   SIMCUDA_KERNEL_NS="queued_kernel=200000")
        if env.get("SIMCUDA_TEST_PRELOAD"):
            env["LD_PRELOAD"] = env["SIMCUDA_TEST_PRELOAD"]
        # 100000 launches of 200 us kernels: 20 s of device time, killed long before.
        app = subprocess.Popen([os.path.join(apps_dir, "launch_queue"), "100000"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not os.path.exists(truth_path) or os.path.getsize(truth_path) < 200000):
            time.sleep(0.05)
        app.send_signal(signal.SIGKILL)
        app.wait()
        with open(truth_path, "rb") as f:
            text = f.read().decode()
        failures = []
        # The kill lands in a line only rarely; where every line lies is checked always.
        offset = 0
        for number, line in enumerate(text.splitlines(keepends=True), 1):
            if line.strip() and offset // 4096 != (offset + len(line) - 1) // 4096:
                failures.append("line %d crosses a page boundary at byte %d" % (number, offset))
            offset += len(line)
        if not text.endswith("\n"):
            failures.append("the log ends inside a line")
        lines = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue  # padding that keeps the next line within one page
            try:
                lines.append(json.loads(line))
            except ValueError:
                failures.append("line %d is not whole: %r" % (number, line[:80]))
        launches = sum(1 for l in lines if l["type"] == "api" and l["name"] == "cudaLaunchKernel")
        kernels = sum(1 for l in lines if l["type"] == "kernel")
        # A kernel is logged while its launch call runs, the call when it returns.
        if launches < 100 or not 0 <= kernels - launches <= 1:
            failures.append("%d launches and %d kernels logged before the kill" % (launches, kernels))
        if app.returncode != -signal.SIGKILL:
            failures.append("launch_queue was not killed (exit %s)" % app.returncode)
        for failure in failures[:10]:
            print("FAIL:", failure)
        print("truth after SIGKILL: %d lines, %d launches, %d failures" % (len(lines), launches, len(failures)))
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
