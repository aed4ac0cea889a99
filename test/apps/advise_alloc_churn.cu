// Allocation churn: every step allocates a 1 MiB scratch buffer, computes, and
// frees it (cudaFree waits for the device).
// Usage: advise_alloc_churn [steps=10].
#include "advise_common.h"

__global__ void ac_compute_kernel(float* scratch) {}

__attribute__((noinline)) void step_with_scratch() {
  float* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch, 1 << 20));
  ac_compute_kernel<<<64, 256>>>(scratch);
  CHECK_CUDA(cudaFree(scratch));
}

int main(int argc, char** argv) {
  long steps = arg_count(argc, argv, 1, 10);
  for (long i = 0; i < steps; ++i) step_with_scratch();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::printf("advise_alloc_churn: %ld steps\n", steps);
  return 0;
}
