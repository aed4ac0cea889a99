// A driver-API program: explicit context, a module loaded from PTX text, launches with
// cuLaunchKernel and cuLaunchKernelEx, and one launch through a pointer obtained from
// cuGetProcAddress (the route statically linked runtimes take). Linked against the
// toolkit's stub libcuda.so; LD_LIBRARY_PATH picks the real driver or simcuda.
#include <cuda.h>

#include "driver_app_common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

// Two empty kernels; valid PTX for any GPU of sm_75 or newer, JIT-compiled by a
// real driver, and read for its .entry names by simcuda.
const char kModulePtx[] = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .entry driver_scale_kernel(.param .u64 data, .param .u32 n)
{
  ret;
}

.visible .entry driver_reduce_kernel(.param .u64 data, .param .u32 n)
{
  ret;
}
)";

using LaunchKernelFn = CUresult(CUDAAPI*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                          unsigned, unsigned, CUstream, void**, void**);

}  // namespace

int main() {
  CHECK_CU(cuInit(0));
  int device_count = 0;
  CHECK_CU(cuDeviceGetCount(&device_count));
  CHECK_TRUE(device_count >= 1);
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK_CU(cuCtxCreate(&context, nullptr, 0, device));

  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, kModulePtx));
  CUfunction scale, reduce;
  CHECK_CU(cuModuleGetFunction(&scale, module, "driver_scale_kernel"));
  CHECK_CU(cuModuleGetFunction(&reduce, module, "driver_reduce_kernel"));
  CUfunction missing;
  CHECK_TRUE(cuModuleGetFunction(&missing, module, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);

  constexpr unsigned kElements = 1 << 16;
  std::vector<float> host(kElements), back(kElements);
  for (unsigned i = 0; i < kElements; ++i) host[i] = static_cast<float>(i);
  CUdeviceptr data;
  CHECK_CU(cuMemAlloc(&data, kElements * sizeof(float)));
  CHECK_CU(cuMemcpyHtoD(data, host.data(), kElements * sizeof(float)));

  CUstream stream;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUevent start, stop;
  CHECK_CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));

  unsigned n = kElements;
  void* args[] = {&data, &n};
  CHECK_CU(cuEventRecord(start, stream));
  CHECK_CU(cuLaunchKernel(scale, kElements / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));

  CUlaunchConfig config{};
  config.gridDimX = 64;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 128;
  config.blockDimY = config.blockDimZ = 1;
  config.hStream = stream;
  CHECK_CU(cuLaunchKernelEx(&config, reduce, args, nullptr));

  void* launch_pointer = nullptr;
  CUdriverProcAddressQueryResult status;
  CHECK_CU(cuGetProcAddress("cuLaunchKernel", &launch_pointer, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  CHECK_TRUE(status == CU_GET_PROC_ADDRESS_SUCCESS && launch_pointer != nullptr);
  auto launch = reinterpret_cast<LaunchKernelFn>(launch_pointer);
  CHECK_CU(launch(scale, 16, 1, 1, 64, 1, 1, 0, stream, args, nullptr));
  void* unknown = nullptr;
  // Not an error on driver 580: success, a null pointer and the reason in the status.
  CHECK_TRUE(cuGetProcAddress("cuNoSuchFunction", &unknown, 12000, 0, &status) == CUDA_SUCCESS);
  CHECK_TRUE(status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND && unknown == nullptr);

  CHECK_CU(cuEventRecord(stop, stream));
  CHECK_CU(cuEventSynchronize(stop));
  float ms = 0;
  CHECK_CU(cuEventElapsedTime(&ms, start, stop));
  CHECK_TRUE(ms > 0);

  CHECK_CU(cuMemcpyDtoH(back.data(), data, kElements * sizeof(float)));
  CHECK_TRUE(std::memcmp(back.data(), host.data(), kElements * sizeof(float)) == 0);

  CHECK_CU(cuEventDestroy(start));
  CHECK_CU(cuEventDestroy(stop));
  CHECK_CU(cuStreamDestroy(stream));
  CHECK_CU(cuMemFree(data));
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuCtxDestroy(context));
  std::printf("driver_api: 3 launches (cuLaunchKernel, cuLaunchKernelEx, via cuGetProcAddress)\n");
  return 0;
}
