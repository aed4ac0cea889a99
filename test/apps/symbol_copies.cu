// __constant__ and __device__ variables written and read from the host with
// cudaMemcpyToSymbol / cudaMemcpyFromSymbol (the module's globals).
#include "app_common.h"

__constant__ float coefficients[16];
__device__ int counter;

__global__ void use_symbols_kernel(float* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = coefficients[threadIdx.x] * static_cast<float>(counter);
}

int main() {
  float host[16];
  for (int i = 0; i < 16; ++i) host[i] = 0.5f * static_cast<float>(i);
  CHECK_CUDA(cudaMemcpyToSymbol(coefficients, host, sizeof host));
  int start = 7;
  CHECK_CUDA(cudaMemcpyToSymbol(counter, &start, sizeof start));
  float tail[4] = {100, 101, 102, 103};
  CHECK_CUDA(cudaMemcpyToSymbol(coefficients, tail, sizeof tail, 12 * sizeof(float)));

  float* out = nullptr;
  CHECK_CUDA(cudaMalloc(&out, 16 * sizeof(float)));
  use_symbols_kernel<<<1, 32>>>(out);
  CHECK_CUDA(cudaGetLastError());

  float back[16] = {};
  int counter_back = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(back, coefficients, sizeof back));
  CHECK_CUDA(cudaMemcpyFromSymbol(&counter_back, counter, sizeof counter_back));
  for (int i = 0; i < 12; ++i) CHECK_TRUE(back[i] == host[i]);
  for (int i = 0; i < 4; ++i) CHECK_TRUE(back[12 + i] == tail[i]);
  CHECK_TRUE(counter_back == 7);
  size_t size = 0;
  CHECK_CUDA(cudaGetSymbolSize(&size, coefficients));
  CHECK_TRUE(size == sizeof host);
  CHECK_TRUE(cudaMemcpyToSymbol(counter, host, sizeof host) == cudaErrorInvalidValue);  // too large
  CHECK_TRUE(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK_CUDA(cudaFree(out));
  std::printf("symbol_copies: __constant__ and __device__ variables round trip\n");
  return 0;
}
