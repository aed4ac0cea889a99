#pragma once
// The checks of the test apps written against the driver API (driver_api,
// driver_extras, module_loading, vmm_mapping, step_kernels): a failed call or
// condition ends the program with a message naming it.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>

#include "app_common.h"  // CHECK_TRUE, kCudaErrorExit

#define CHECK_CU(call)                                                                        \
  do {                                                                                        \
    CUresult check_cu_error_ = (call);                                                        \
    if (check_cu_error_ != CUDA_SUCCESS) {                                                    \
      const char* name = nullptr;                                                             \
      if (cuGetErrorName(check_cu_error_, &name) != CUDA_SUCCESS) name = "unknown";         \
      std::fprintf(stderr, "CUDA driver error %d (%s) at %s:%d: %s\n",                       \
                   static_cast<int>(check_cu_error_), name, __FILE__, __LINE__, #call);       \
      std::exit(kCudaErrorExit);                                                              \
    }                                                                                         \
  } while (0)
