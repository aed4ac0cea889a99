"""Run by each CPython under test: compares what the agent's frame reader
reads (through python_frames_probe.so) with Python's own view of the same
stack (sys._getframe). Prints one line per scenario, "ok NAME" or
"FAIL NAME: why", and exits 1 on any failure. Keep it runnable on 3.8."""
import ctypes
import sys
import threading

PROBE = sys.argv[1]
CDLL = ctypes.CDLL(PROBE)  # ctypes releases the GIL around the call
PYDLL = ctypes.PyDLL(PROBE)  # ... and keeps it here
failures = []


def call_line():
    with open(__file__) as source:
        for number, text in enumerate(source, 1):
            if text.rstrip().endswith("# the probe call"):
                return number
    raise RuntimeError("no probe call line")


CALL_LINE = call_line()


def name_of(code):
    return getattr(code, "co_qualname", code.co_name)


def parse(text):
    rows = []
    eval_frames = None
    for line in text.splitlines():
        parts = line.split("\t")
        if parts[0] == "eval_frames":
            eval_frames = int(parts[1])
        elif parts[0] != "version":
            rows.append((parts[0], int(parts[1]), parts[2], parts[3] == "entry"))
    return rows, eval_frames


def probe(lib=CDLL, function="probe_frames"):
    """Captures; returns (what the reader saw, what Python sees), leaf first."""
    buffer = ctypes.create_string_buffer(1 << 20)
    count = getattr(lib, function)(buffer, len(buffer))  # the probe call
    text = buffer.value.decode("utf-8")
    if count < 0:
        raise SystemExit("unsupported: " + text)
    seen, eval_frames = parse(text)
    expected = []
    frame = sys._getframe(0)
    while frame is not None:
        expected.append((frame.f_code.co_filename, frame.f_lineno, name_of(frame.f_code)))
        frame = frame.f_back
    expected[0] = (expected[0][0], CALL_LINE, expected[0][2])
    return seen, expected, eval_frames


def check(name, seen, expected, eval_frames=None):
    got = [row[:3] for row in seen]
    if got != expected:
        failures.append(name)
        print("FAIL %s:\n  read:     %s\n  expected: %s" % (name, got, expected))
        return
    entries = sum(1 for row in seen if row[3])
    if eval_frames is not None and eval_frames != entries:
        failures.append(name)
        print("FAIL %s: %d eval loop frames on the native stack, %d entry frames read: %s"
              % (name, eval_frames, entries, seen))
        return
    print("ok %s (%d frames)" % (name, len(seen)))


def outer(lib):
    return middle(lib)


def middle(lib):
    x = 1
    return inner(lib, x)


def inner(lib, x):
    return probe(lib)


def recurse(n):
    if n == 0:
        return probe()
    return recurse(n - 1)


class Model:
    def __init__(self):
        self.result = probe()

    def forward(self):
        return probe()


def generator():
    yield probe()


def main():
    check("nested calls, GIL released (ctypes.CDLL)", *outer(CDLL))
    check("nested calls, GIL held (ctypes.PyDLL)", *outer(PYDLL))
    check("20-deep recursion", *recurse(20))
    check("method", *Model().forward())
    check("__init__", *Model().result)
    check("generator", *next(generator()))
    # Called back from C (sorted's key): a second eval loop on the stack.
    keys = []
    sorted([0], key=lambda _: keys.append(probe()))
    check("called from C", *keys[0])

    results = []
    thread = threading.Thread(target=lambda: results.append(outer(CDLL)), name="worker")
    thread.start()
    thread.join()
    check("threading.Thread", *results[0])

    buffer = ctypes.create_string_buffer(1 << 16)
    count = CDLL.probe_frames_in_c_thread(buffer, len(buffer))
    if count != 0:
        failures.append("C thread")
        print("FAIL C thread without Python state: %d frames: %s" % (count, buffer.value.decode()))
    else:
        print("ok C thread without Python state (0 frames)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
