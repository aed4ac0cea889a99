// GPU work still running when the program ends: one asynchronous operation,
// then main returns without synchronising, as NVIDIA's simpleAWBarrier does
// with its 40 MB copy. How long the work runs is simcuda's to say
// (SIMCUDA_KERNEL_NS, SIMCUDA_PAGEABLE_GBPS).
// Usage: unsynchronized_exit kernel|copy|captured
//   kernel:   one kernel (a PTX module through the driver API, on the
//             runtime's primary context)
//   copy:     one 40 MB asynchronous copy from pageable memory to the device
//   captured: the kernel launched into a stream capture: made part of a
//             graph that never runs, so no GPU work is left at all
// Prints what it launched.
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

.visible .entry long_kernel(.param .u64 data)
{
  ret;
}
)";

CUfunction long_kernel() {
  check(cudaFree(nullptr), "cudaFree");  // the runtime's context, current
  return load_ptx_function(kModulePtx, "long_kernel");
}

void launch(CUfunction function, CUstream stream) {
  CUdeviceptr data = 0;
  void* args[] = {&data};
  check(cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel");
}

int kernel() {
  launch(long_kernel(), nullptr);
  std::printf("launched long_kernel\n");
  return 0;
}

int captured() {
  CUfunction function = long_kernel();
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), "cudaStreamBeginCapture");
  launch(function, stream);
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  std::printf("captured long_kernel\n");
  return 0;
}

int copy() {
  constexpr size_t kBytes = 40u << 20;
  // Never freed: the copy may still be reading it as the process ends.
  static std::vector<char> host(kBytes, 1);
  void* device = nullptr;
  check(cudaMalloc(&device, kBytes), "cudaMalloc");
  check(cudaMemcpyAsync(device, host.data(), kBytes, cudaMemcpyHostToDevice, nullptr), "cudaMemcpyAsync");
  std::printf("launched a %zu-byte copy\n", kBytes);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc == 2 && std::strcmp(argv[1], "kernel") == 0) return kernel();
  if (argc == 2 && std::strcmp(argv[1], "copy") == 0) return copy();
  if (argc == 2 && std::strcmp(argv[1], "captured") == 0) return captured();
  std::fprintf(stderr, "usage: %s kernel|copy|captured\n", argv[0]);
  return 2;
}
