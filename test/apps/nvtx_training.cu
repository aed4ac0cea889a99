// A training-like loop annotated with NVTX: each step is a "ProfilerStep#N" range with
// a data-loading phase (host work + H2D copy), forward and backward kernels, an
// optimizer kernel and one synchronisation. Usage: nvtx_training [steps=5].
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <vector>

#include "app_common.h"

__global__ void forward_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f;
}

__global__ void backward_kernel(const float* y, float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) grad[i] = y[i] - 1.0f;
}

__global__ void optimizer_kernel(float* weights, const float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) weights[i] -= 0.01f * grad[i];
}

int main(int argc, char** argv) {
  long steps = arg_count(argc, argv, 1, 5);
  constexpr int kElements = 1 << 18;
  constexpr size_t kBytes = kElements * sizeof(float);
  float *batch, *activations, *grad, *weights;
  CHECK_CUDA(cudaMalloc(&batch, kBytes));
  CHECK_CUDA(cudaMalloc(&activations, kBytes));
  CHECK_CUDA(cudaMalloc(&grad, kBytes));
  CHECK_CUDA(cudaMalloc(&weights, kBytes));
  std::vector<float> host_batch(kElements), loaded(kElements);
  dim3 block(256), grid(kElements / 256);

  for (long step = 0; step < steps; ++step) {
    char step_name[48];
    std::snprintf(step_name, sizeof step_name, "ProfilerStep#%ld", step);
    nvtxRangePushA(step_name);

    nvtxRangePushA("data_loading");
    for (int i = 0; i < kElements; ++i) host_batch[i] = static_cast<float>((i + step) % 97);
    CHECK_CUDA(cudaMemcpy(batch, host_batch.data(), kBytes, cudaMemcpyHostToDevice));
    nvtxRangePop();

    nvtxRangePushA("forward");
    forward_kernel<<<grid, block>>>(batch, activations, kElements);
    nvtxRangePop();
    nvtxRangePushA("backward");
    backward_kernel<<<grid, block>>>(activations, grad, kElements);
    nvtxRangePop();
    nvtxRangePushA("optimizer_step");
    optimizer_kernel<<<grid, block>>>(weights, grad, kElements);
    nvtxRangePop();
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());

    nvtxRangePop();  // ProfilerStep#N
  }
  // The last batch must have reached the device intact.
  CHECK_CUDA(cudaMemcpy(loaded.data(), batch, kBytes, cudaMemcpyDeviceToHost));
  CHECK_TRUE(loaded == host_batch);
  CHECK_CUDA(cudaFree(batch));
  CHECK_CUDA(cudaFree(activations));
  CHECK_CUDA(cudaFree(grad));
  CHECK_CUDA(cudaFree(weights));
  std::printf("nvtx_training: %ld steps\n", steps);
  return 0;
}
