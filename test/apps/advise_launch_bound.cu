// Launch-bound: after three pinned allocations during set-up, one tiny kernel
// launched in a loop, each shorter than the CPU time of its launch.
// Usage: advise_launch_bound [launches=300].
#include "advise_common.h"

__global__ void tiny_update_kernel(float* x) {
  if (threadIdx.x == 0) x[0] += 1.0f;
}

__attribute__((noinline)) void launch_update(float* x) {
  tiny_update_kernel<<<1, 32>>>(x);
  asm volatile("" ::: "memory");
}

int main(int argc, char** argv) {
  long launches = arg_count(argc, argv, 1, 300);
  void* staging[3];
  for (void*& s : staging) CHECK_CUDA(cudaHostAlloc(&s, 4096, cudaHostAllocDefault));
  float* x = nullptr;
  CHECK_CUDA(cudaMalloc(&x, sizeof(float)));
  for (long i = 0; i < launches; ++i) launch_update(x);
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(x));
  for (void* s : staging) CHECK_CUDA(cudaFreeHost(s));
  std::printf("advise_launch_bound: %ld launches\n", launches);
  return 0;
}
