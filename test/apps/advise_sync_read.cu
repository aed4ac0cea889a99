// A blocking read in every step: three kernels, then the loss read back with a
// blocking cudaMemcpy (an .item()) and logged on the host.
// Usage: advise_sync_read [steps=20].
#include "advise_common.h"

__global__ void sr_forward_kernel(float* x) {}
__global__ void sr_backward_kernel(float* x) {}
__global__ void sr_update_kernel(float* x) {}

__attribute__((noinline)) float read_loss(const float* loss) {
  float value = 0;
  CHECK_CUDA(cudaMemcpy(&value, loss, sizeof value, cudaMemcpyDeviceToHost));
  return value;
}

int main(int argc, char** argv) {
  long steps = arg_count(argc, argv, 1, 20);
  float* x = nullptr;
  CHECK_CUDA(cudaMalloc(&x, 1024));
  CHECK_CUDA(cudaMemset(x, 0, 1024));
  double sum = 0;
  for (long i = 0; i < steps; ++i) {
    sr_forward_kernel<<<4, 128>>>(x);
    sr_backward_kernel<<<4, 128>>>(x);
    sr_update_kernel<<<4, 128>>>(x);
    sum += read_loss(x);
    spin_us(50);  // logging the loss
  }
  CHECK_CUDA(cudaFree(x));
  std::printf("advise_sync_read: %ld steps, loss sum %g\n", steps, sum);
  return 0;
}
