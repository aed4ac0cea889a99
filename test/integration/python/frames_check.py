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


def probe(lib=CDLL, function="probe_frames", size=1 << 20):
    """Captures; returns (what the reader saw, what Python sees), leaf first."""
    buffer = ctypes.create_string_buffer(size)
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


GENERATED = "<generated>"  # one file name object for every generated function


def generated_functions_reusing_memory(vary, count=1500):
    """Functions compiled from text one at a time, each called (the probe
    reads its frame) and freed before the next is compiled: pymalloc gives
    the next code object the freed one's memory, and often its file name,
    name and line table objects the freed ones' addresses too. `vary` says
    what differs from one to the next, with the same file and first line:
    "names" (same lines) or "lines" (blank lines move the probe call; same
    name). The reader must show each as itself, never as a freed one it
    read at the same address. Returns how many code objects took a freed
    one's address (the check proves nothing if none did); None on failure."""
    addresses = set()
    reused = 0
    for i in range(count):
        name = "generated_%04d" % i if vary == "names" else "generated"
        blank_lines = "\n" * (i % 3) if vary == "lines" else ""
        source = "def %s(probe):\n%s    return probe(size=1 << 14)\n" % (name, blank_lines)
        namespace = {}
        exec(compile(source, GENERATED, "exec"), namespace)
        function = namespace[name]
        at_freed_address = id(function.__code__) in addresses
        reused += at_freed_address
        addresses.add(id(function.__code__))
        seen, expected, _ = function(probe)
        if [row[:3] for row in seen] != expected:
            check("generated functions, %s vary: function %d of %d (its code object at %s address)"
                  % (vary, i + 1, count, "a freed one's" if at_freed_address else "a new"), seen, expected)
            return None
        del namespace, function, seen, expected
    print("ok generated functions, %s vary: %d freed and compiled again read as themselves, %d at a freed "
          "one's address" % (vary, count, reused))
    return reused


def call_sites_beyond_the_cache(count=1200):
    """More call sites than a thread's cache of them holds (1,024, four per
    set): functions of one generated file, each called in a first round
    (read, cached, most evicted again by those after it) and in a second
    (read again, or found in the cache); each must read as itself both
    times."""
    source = "".join("def site_%04d(probe):\n    return probe(size=1 << 14)\n" % i for i in range(count))
    namespace = {}
    exec(compile(source, "<call sites>", "exec"), namespace)
    for round_number in (1, 2):
        for i in range(count):
            seen, expected, _ = namespace["site_%04d" % i](probe)
            if [row[:3] for row in seen] != expected:
                check("call sites beyond the cache, round %d: function %d of %d" % (round_number, i + 1, count),
                      seen, expected)
                return
    print("ok call sites beyond the cache: %d functions read as themselves, twice each" % count)


def main():
    for vary in ("names", "lines"):
        if generated_functions_reusing_memory(vary) == 0:
            failures.append("generated functions")
            print("FAIL generated functions, %s vary: no code object took a freed one's address; the check "
                  "proves nothing" % vary)
    call_sites_beyond_the_cache()
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
