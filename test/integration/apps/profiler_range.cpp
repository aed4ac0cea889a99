// Copies before, inside and after a cudaProfilerStart/Stop range, for
// PROF_CAPTURE=cudaProfilerApi: only the 5 copies inside may be recorded.
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>

namespace {

cudaError_t copies(void* device, const char* host, size_t bytes, int count, const char* range) {
  nvtxRangePushA(range);
  cudaError_t status = cudaSuccess;
  for (int i = 0; status == cudaSuccess && i < count; ++i) {
    status = cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice);
  }
  nvtxRangePop();
  return status;
}

}  // namespace

int main() {
  static char host[1 << 16];
  void* device = nullptr;
  cudaError_t status = cudaMalloc(&device, sizeof(host));
  if (status == cudaSuccess) status = copies(device, host, sizeof(host), 3, "before");
  if (status == cudaSuccess) status = cudaProfilerStart();
  if (status == cudaSuccess) status = copies(device, host, sizeof(host), 5, "inside");
  if (status == cudaSuccess) status = cudaProfilerStop();
  if (status == cudaSuccess) status = copies(device, host, sizeof(host), 2, "after");
  if (device != nullptr) cudaFree(device);
  printf("status %d\n", static_cast<int>(status));
  return status == cudaSuccess ? 0 : 2;
}
