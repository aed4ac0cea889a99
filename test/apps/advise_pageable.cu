// Pageable copies: every step uploads a 4 MiB batch from malloc'd host memory
// with cudaMemcpyAsync (which cannot overlap anything from pageable memory),
// then computes on it; one synchronization at the end.
// Usage: advise_pageable [steps=10].
#include <vector>

#include "advise_common.h"

__global__ void pg_compute_kernel(float* x) {}

__attribute__((noinline)) void upload_batch(float* device, const std::vector<float>& host) {
  CHECK_CUDA(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
}

int main(int argc, char** argv) {
  long steps = arg_count(argc, argv, 1, 10);
  std::vector<float> batch(1 << 20, 1.0f);  // 4 MiB, pageable
  float* x = nullptr;
  CHECK_CUDA(cudaMalloc(&x, batch.size() * sizeof(float)));
  for (long i = 0; i < steps; ++i) {
    upload_batch(x, batch);
    pg_compute_kernel<<<64, 256>>>(x);
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(x));
  std::printf("advise_pageable: %ld steps\n", steps);
  return 0;
}
