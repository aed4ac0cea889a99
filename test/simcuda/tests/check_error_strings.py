#!/usr/bin/env python3
"""simcuda's cudaGetErrorName/cudaGetErrorString answer as the toolkit's real
libcudart.so.13 does for every cudaError_t of the headers' enum, and for codes
outside it ("unrecognized error code" for both).

usage: check_error_strings.py CUDA_HOME SIMCUDA_LIB_DIR
"""
import ctypes
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime"))
from gen_error_table import header_errors  # noqa: E402

OUTSIDE_THE_ENUM = [5, 47, 12345, 9999, -1]


def answers(library, codes):
    """{code: [name, text]} from `library`, in a process of its own (the two
    runtimes share a soname)."""
    script = ("import ctypes, json, sys\n"
              "rt = ctypes.CDLL(sys.argv[1])\n"
              "for f in (rt.cudaGetErrorName, rt.cudaGetErrorString):\n"
              "    f.restype = ctypes.c_char_p; f.argtypes = [ctypes.c_int]\n"
              "codes = json.loads(sys.argv[2])\n"
              "print(json.dumps({c: [rt.cudaGetErrorName(c).decode(), rt.cudaGetErrorString(c).decode()]"
              " for c in codes}))\n")
    result = subprocess.run([sys.executable, "-c", script, library, json.dumps(codes)], capture_output=True, text=True,
                            timeout=60)
    if result.returncode != 0:
        sys.exit("%s: %s" % (library, result.stderr))
    return json.loads(result.stdout)


def main():
    cuda_home, simcuda_lib = sys.argv[1], sys.argv[2]
    errors = header_errors(cuda_home)
    codes = [value for _, value in errors] + OUTSIDE_THE_ENUM
    real = answers(os.path.join(cuda_home, "lib64", "libcudart.so.13"), codes)
    simulated = answers(os.path.join(simcuda_lib, "libcudart.so.13"), codes)
    differ = [(code, simulated[code], real[code]) for code in real if simulated[code] != real[code]]
    for code, got, want in differ[:10]:
        print("error %s: simcuda %s, real %s" % (code, got, want), file=sys.stderr)
    if differ:
        return 1
    named = sum(1 for name, value in errors if real[str(value)][0] == name)
    if named != len(errors):
        print("the real runtime names %d of %d header errors" % (named, len(errors)), file=sys.stderr)
        return 1
    print("ok: %d cudaError_t names and texts, %d codes outside the enum" % (len(errors), len(OUTSIDE_THE_ENUM)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
