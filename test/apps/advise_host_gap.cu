// A data-loading gap: every step spends 1 ms of CPU loading a batch before it
// launches its two kernels (400 us of GPU work), so the GPU waits.
// Usage: advise_host_gap [steps=10].
#include "advise_common.h"

__global__ void hg_forward_kernel(float* x) {}
__global__ void hg_backward_kernel(float* x) {}

__attribute__((noinline)) void load_batch() { spin_us(1000); }

__attribute__((noinline)) void train_step(float* x) {
  hg_forward_kernel<<<64, 256>>>(x);
  hg_backward_kernel<<<64, 256>>>(x);
  asm volatile("" ::: "memory");
}

int main(int argc, char** argv) {
  long steps = arg_count(argc, argv, 1, 10);
  float* x = nullptr;
  CHECK_CUDA(cudaMalloc(&x, 1024));
  for (long i = 0; i < steps; ++i) {
    load_batch();
    train_step(x);
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(x));
  std::printf("advise_host_gap: %ld steps\n", steps);
  return 0;
}
