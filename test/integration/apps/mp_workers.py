"""Python multiprocessing (fork start method) workers calling CUDA through
ctypes, as a data-loading or evaluation pool does: each worker starts CUDA,
copies and sets memory, and ends the way multiprocessing workers do, with
os._exit. The parent starts CUDA only after its workers are done (CUDA does
not survive fork). Usage: mp_workers.py LIBCUDART WORKERS
"""
import ctypes
import multiprocessing
import sys

CUDART = sys.argv[1]
WORKERS = int(sys.argv[2])
BYTES = 1 << 16


def use_cuda(tag):
    cudart = ctypes.CDLL(CUDART)
    pointer = ctypes.c_void_p()
    assert cudart.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(BYTES)) == 0
    assert cudart.cudaMemset(pointer, ctypes.c_int(tag & 0xff), ctypes.c_size_t(BYTES)) == 0
    host = ctypes.create_string_buffer(BYTES)
    cudaMemcpyDeviceToHost = 2
    assert cudart.cudaMemcpy(host, pointer, ctypes.c_size_t(BYTES), cudaMemcpyDeviceToHost) == 0
    assert cudart.cudaDeviceSynchronize() == 0
    assert cudart.cudaFree(pointer) == 0
    return host.raw[0]


def worker(tag):
    if use_cuda(tag) != tag & 0xff:
        sys.exit(1)


def main():
    context = multiprocessing.get_context("fork")
    # A forked multiprocessing.Process ends in os._exit after its target
    # returns (multiprocessing/popen_fork.py), as a Pool's workers do.
    workers = [context.Process(target=worker, args=(tag,)) for tag in range(1, WORKERS + 1)]
    for process in workers:
        process.start()
    for process in workers:
        process.join()
    failed = sum(process.exitcode != 0 for process in workers)
    parent = use_cuda(0)
    print("mp_workers: %d workers, %d failed, parent %d" % (WORKERS, failed, parent))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
