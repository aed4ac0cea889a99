// GPU work followed at once by the end of its context, as NVIDIA's
// vectorAddDrv and simpleDrvRuntime samples do: without CUPTI the agent
// times the work with events, which die with the context.
// Usage: context_teardown driver|runtime
//   driver:  cuCtxCreate, two copies in, one kernel, one copy out, cuCtxDestroy
//   runtime: three asynchronous copies, then cudaDeviceReset
// Prints the number of GPU operations it enqueued.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_app_check.h"

namespace {

const char kModulePtx[] = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .entry teardown_kernel(.param .u64 data, .param .u32 n)
{
  ret;
}
)";

int driver() {
  check(cuInit(0), "cuInit");
  CUdevice device = 0;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context = nullptr;
  check(cuCtxCreate(&context, nullptr, 0, device), "cuCtxCreate");
  CUfunction kernel = load_ptx_function(kModulePtx, "teardown_kernel");
  constexpr size_t kBytes = 1 << 20;
  std::vector<char> host(kBytes, 1);
  CUdeviceptr a = 0, b = 0;
  check(cuMemAlloc(&a, kBytes), "cuMemAlloc");
  check(cuMemAlloc(&b, kBytes), "cuMemAlloc");
  check(cuMemcpyHtoD(a, host.data(), kBytes), "cuMemcpyHtoD");
  check(cuMemcpyHtoD(b, host.data(), kBytes), "cuMemcpyHtoD");
  unsigned n = 1024;
  void* args[] = {&a, &n};
  check(cuLaunchKernel(kernel, 4, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr), "cuLaunchKernel");
  check(cuMemcpyDtoH(host.data(), a, kBytes), "cuMemcpyDtoH");
  check(cuCtxDestroy(context), "cuCtxDestroy");
  std::printf("4 operations\n");
  return 0;
}

int runtime() {
  constexpr size_t kBytes = 1 << 20;
  std::vector<char> host(kBytes, 1);
  void* device = nullptr;
  check(cudaMalloc(&device, kBytes), "cudaMalloc");
  check(cudaMemcpyAsync(device, host.data(), kBytes, cudaMemcpyHostToDevice, nullptr), "cudaMemcpyAsync");
  check(cudaMemcpyAsync(device, host.data(), kBytes, cudaMemcpyHostToDevice, nullptr), "cudaMemcpyAsync");
  check(cudaMemcpyAsync(host.data(), device, kBytes, cudaMemcpyDeviceToHost, nullptr), "cudaMemcpyAsync");
  check(cudaDeviceReset(), "cudaDeviceReset");
  std::printf("3 operations\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc == 2 && std::strcmp(argv[1], "driver") == 0) return driver();
  if (argc == 2 && std::strcmp(argv[1], "runtime") == 0) return runtime();
  std::fprintf(stderr, "usage: %s driver|runtime\n", argv[0]);
  return 2;
}
