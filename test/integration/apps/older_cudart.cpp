// A stand-in for a CUDA runtime older than the program (CUDA 8 had no
// cudaLaunchCooperativeKernel): a libcudart.so.13 with cudaMalloc and
// cudaFree and little else, in a folder of its own ahead of simcuda's on
// LD_LIBRARY_PATH. simcuda itself now has every runtime function the agent
// wraps, so the tests of an entry point the loaded runtime lacks
// (run_hostile_program_tests.py, item 8) need a runtime that lacks one.
// Like the real runtime it needs the driver (linked here, where the real
// one dlopens it), so the driver's names are found as before.
#include <cstddef>
#include <cstdlib>

extern "C" {

__attribute__((visibility("default"))) int cudaMalloc(void** pointer, size_t bytes) {
  *pointer = std::malloc(bytes);
  return *pointer != nullptr ? 0 : 2;  // cudaErrorMemoryAllocation
}

__attribute__((visibility("default"))) int cudaFree(void* pointer) {
  std::free(pointer);
  return 0;
}

}  // extern "C"
