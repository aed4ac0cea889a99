"""A Python program that uses CUDA as PyTorch users' programs do, run under
the agent by run_python_tests.py: through ctypes (which releases the GIL
around the call) from nested functions, from a threading.Thread, and through
a C extension (cudaext, built by the test) from Python and from a C thread.

Lines the test checks end with a "# at:NAME" marker; it reads them from this
file. Keep it runnable on 3.8."""
import ctypes
import sys
import threading

RT = ctypes.CDLL("libcudart.so.13")


def memset_via_ctypes(nbytes):
    pointer = ctypes.c_void_p()
    RT.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(nbytes))  # at:malloc
    RT.cudaMemset(pointer, 0, ctypes.c_size_t(nbytes))  # at:memset
    RT.cudaFree(pointer)


def layer(depth, nbytes):
    if depth == 0:
        return memset_via_ctypes(nbytes)  # at:leaf_layer
    return layer(depth - 1, nbytes)  # at:layer


def forward(nbytes):
    layer(2, nbytes)  # at:forward


def in_thread():
    forward(4096)  # at:thread_target


def via_extension():
    import cudaext
    cudaext.memset(8192)  # at:extension
    cudaext.memset_in_c_thread()


def main():
    RT.cudaFree(None)  # starts CUDA (not recorded: the agent starts inside it)
    forward(1024)  # at:main_forward
    thread = threading.Thread(target=in_thread, name="worker")
    thread.start()
    thread.join()
    if "--extension" in sys.argv:
        via_extension()  # at:main_extension
    RT.cudaDeviceSynchronize()


if __name__ == "__main__":
    main()  # at:module
