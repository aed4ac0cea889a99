// A well-behaved loop: pinned buffers allocated once, an async upload and two
// long kernels per step queued ahead on one stream, one synchronization at the
// end. advise must find no problem here. Usage: advise_well_behaved [steps=20].
#include "advise_common.h"

__global__ void wb_forward_kernel(float* x) {}
__global__ void wb_backward_kernel(float* x) {}

int main(int argc, char** argv) {
  long steps = arg_count(argc, argv, 1, 20);
  const size_t bytes = 64 * 1024;
  float* host = nullptr;
  float* x = nullptr;
  cudaStream_t stream;
  CHECK_CUDA(cudaMallocHost(&host, bytes));
  CHECK_CUDA(cudaMalloc(&x, bytes));
  CHECK_CUDA(cudaStreamCreate(&stream));
  for (long i = 0; i < steps; ++i) {
    CHECK_CUDA(cudaMemcpyAsync(x, host, bytes, cudaMemcpyHostToDevice, stream));
    wb_forward_kernel<<<64, 256, 0, stream>>>(x);
    wb_backward_kernel<<<64, 256, 0, stream>>>(x);
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(x));
  CHECK_CUDA(cudaFreeHost(host));
  std::printf("advise_well_behaved: %ld steps\n", steps);
  return 0;
}
