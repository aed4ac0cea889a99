// One of two ranks slower: run twice, RANK=0 and RANK=1; rank 1 launches four
// kernels per step where rank 0 launches two, and each step ends in a
// synchronization (as an all-reduce would).
// Usage: RANK=r advise_ranks [steps=10].
#include <cstdlib>

#include "advise_common.h"

__global__ void rk_work_kernel(float* x) {}

int main(int argc, char** argv) {
  long steps = arg_count(argc, argv, 1, 10);
  const char* rank_text = std::getenv("RANK");
  const int rank = rank_text ? std::atoi(rank_text) : 0;
  const int kernels = rank == 1 ? 4 : 2;
  float* x = nullptr;
  CHECK_CUDA(cudaMalloc(&x, 1024));
  for (long i = 0; i < steps; ++i) {
    for (int k = 0; k < kernels; ++k) rk_work_kernel<<<64, 256>>>(x);
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  CHECK_CUDA(cudaFree(x));
  std::printf("advise_ranks: rank %d, %ld steps of %d kernels\n", rank, steps, kernels);
  return 0;
}
