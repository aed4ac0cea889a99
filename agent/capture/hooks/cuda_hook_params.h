#pragma once
// Parameter structs for the wrapped functions that have none in the
// toolkit's generated_cuda*_meta.h. Laid out like the function's parameters,
// as NVIDIA's generated structs are, so read_call_args reads them alike.
#include <cuda_runtime_api.h>

struct NoParams {};

struct __cudaGetKernel_v13000_params {
  cudaKernel_t* kernel;
  const void* func;
};

struct __cudaLaunchKernel_v13000_params {
  cudaKernel_t kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
};
using __cudaLaunchKernel_ptsz_v13000_params = __cudaLaunchKernel_v13000_params;
