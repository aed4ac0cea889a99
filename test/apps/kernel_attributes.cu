// What tensor-core GEMMs and other tuned kernels set before launching: a
// kernel's dynamic shared memory beyond the default 48 KiB (a launch asking
// for more without it fails), its shared-memory carveout and cache preference,
// the device's cache preference and its limits (stack, heap, printf FIFO,
// persisting L2). Usage: kernel_attributes. Prints one line.
#include <algorithm>

#include "app_common.h"

__global__ void attributed_kernel(float* out) {
  extern __shared__ float staged[];
  staged[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = staged[blockDim.x - 1];
}

constexpr int kBigShared = 96 * 1024;  // above the 48 KiB any kernel may use

int main() {
  float* out = nullptr;
  CHECK_CUDA(cudaMalloc(&out, 64 * sizeof(float)));

  cudaFuncAttributes attributes{};
  CHECK_CUDA(cudaFuncGetAttributes(&attributes, attributed_kernel));
  CHECK_TRUE(attributes.maxDynamicSharedSizeBytes <= 48 * 1024);
  CHECK_TRUE(attributes.maxThreadsPerBlock >= 256);

  // Too much dynamic shared memory before the opt-in: the launch fails.
  attributed_kernel<<<4, 256, kBigShared>>>(out);
  CHECK_TRUE(cudaGetLastError() != cudaSuccess);

  CHECK_CUDA(cudaFuncSetAttribute(attributed_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBigShared));
  CHECK_CUDA(cudaFuncSetAttribute(attributed_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 50));
  CHECK_CUDA(cudaFuncSetCacheConfig(attributed_kernel, cudaFuncCachePreferShared));
  CHECK_CUDA(cudaFuncGetAttributes(&attributes, attributed_kernel));
  CHECK_TRUE(attributes.maxDynamicSharedSizeBytes == kBigShared);
  CHECK_TRUE(attributes.preferredShmemCarveout == 50);
  // A read-only attribute cannot be set.
  CHECK_TRUE(cudaFuncSetAttribute(attributed_kernel, static_cast<cudaFuncAttribute>(cudaFuncAttributeMax), 1) !=
             cudaSuccess);
  CHECK_TRUE(cudaGetLastError() != cudaSuccess);

  CHECK_CUDA(cudaDeviceSetCacheConfig(cudaFuncCachePreferL1));
  cudaFuncCache cache = cudaFuncCachePreferNone;
  CHECK_CUDA(cudaDeviceGetCacheConfig(&cache));
  CHECK_TRUE(cache == cudaFuncCachePreferL1);

  size_t value = 0;
  CHECK_CUDA(cudaDeviceGetLimit(&value, cudaLimitStackSize));
  CHECK_TRUE(value > 0);
  CHECK_CUDA(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
  CHECK_CUDA(cudaDeviceGetLimit(&value, cudaLimitStackSize));
  CHECK_TRUE(value >= 4096);  // the driver may round up
  CHECK_CUDA(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
  CHECK_CUDA(cudaDeviceGetLimit(&value, cudaLimitMallocHeapSize));
  CHECK_TRUE(value >= (16 << 20));
  CHECK_CUDA(cudaDeviceGetLimit(&value, cudaLimitPrintfFifoSize));
  CHECK_TRUE(value > 0);

  int persisting_max = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&persisting_max, cudaDevAttrMaxPersistingL2CacheSize, 0));
  if (persisting_max > 0) {
    size_t set_aside = std::min<size_t>(4 << 20, static_cast<size_t>(persisting_max));
    CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside));
    CHECK_CUDA(cudaDeviceGetLimit(&value, cudaLimitPersistingL2CacheSize));
    CHECK_TRUE(value > 0 && value <= static_cast<size_t>(persisting_max));
    CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
  }

  attributed_kernel<<<4, 256, kBigShared>>>(out);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(out));
  std::printf("kernel_attributes: 1 launch with %d KiB of dynamic shared memory after the opt-in\n",
              kBigShared / 1024);
  return 0;
}
