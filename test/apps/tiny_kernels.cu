// A launch-bound loop: many tiny kernels back to back on the legacy default stream.
// Usage: tiny_kernels [iterations=1000]. Used by the 1M-launch overhead benchmark.
#include "app_common.h"

// The kernel writes only to scratch memory that is never checked: its effect differs
// between a GPU (which runs it) and simcuda (which does not).
__global__ void tiny_kernel(int* scratch, int iteration) {
  if (threadIdx.x == 0 && blockIdx.x == 0) scratch[iteration & 63] = iteration;
}

int main(int argc, char** argv) {
  long iterations = arg_count(argc, argv, 1, 1000);
  int* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch, 64 * sizeof(int)));
  for (long i = 0; i < iterations; ++i) {
    tiny_kernel<<<1, 32>>>(scratch, static_cast<int>(i));
  }
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(scratch));
  std::printf("tiny_kernels: launched %ld kernels\n", iterations);
  return 0;
}
