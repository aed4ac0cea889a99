#pragma once
// The checks of the test apps written against the driver API (driver_api,
// driver_extras, module_loading, vmm_mapping, step_kernels): a failed call or
// condition ends the program with a message naming it.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CU(call)                                                                        \
  do {                                                                                        \
    CUresult check_cu_error_ = (call);                                                        \
    if (check_cu_error_ != CUDA_SUCCESS) {                                                    \
      const char* name = nullptr;                                                             \
      if (cuGetErrorName(check_cu_error_, &name) != CUDA_SUCCESS) name = "unknown";         \
      std::fprintf(stderr, "CUDA driver error %d (%s) at %s:%d: %s\n",                       \
                   static_cast<int>(check_cu_error_), name, __FILE__, __LINE__, #call);       \
      std::exit(2);                                                                           \
    }                                                                                         \
  } while (0)

#define CHECK_TRUE(condition)                                                       \
  do {                                                                              \
    if (!(condition)) {                                                             \
      std::fprintf(stderr, "check failed at %s:%d: %s\n", __FILE__, __LINE__, #condition); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)
