"""A Python CUDA program that forks while its threads are inside CUDA calls
(what a data loader's os.fork does), each child leaving at once with
sys.exit: the child must exit 0, whatever locks the parent's threads held.
Run under the agent by run_simcuda_lifecycle_tests.py. Usage:
fork_busy_threads.py [children=5]; prints one line, exits 0 unless a child failed."""
import ctypes
import os
import sys
import threading

RT = ctypes.CDLL("libcudart.so.13")
THREADS = 4


def copy_forever(started):
    pointer = ctypes.c_void_p()
    RT.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(1 << 16))
    host = ctypes.create_string_buffer(1 << 16)
    while True:  # ctypes releases the GIL around each call
        RT.cudaMemset(pointer, 7, ctypes.c_size_t(1 << 16))
        RT.cudaMemcpy(host, pointer, ctypes.c_size_t(1 << 16), 2)  # cudaMemcpyDeviceToHost
        started.set()


def main():
    children = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    RT.cudaFree(None)
    for _ in range(THREADS):
        started = threading.Event()
        threading.Thread(target=copy_forever, args=(started,), daemon=True).start()
        started.wait()
    failed = 0
    for _ in range(children):
        pid = os.fork()
        if pid == 0:
            sys.exit(0)
        _, status = os.waitpid(pid, 0)
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            print("child %d: status %d" % (pid, status), file=sys.stderr)
            failed += 1
    print("fork_busy_threads: %d children, %d failed" % (children, failed), flush=True)
    os._exit(0 if failed == 0 else 1)  # the daemon threads are still in CUDA calls


if __name__ == "__main__":
    main()
