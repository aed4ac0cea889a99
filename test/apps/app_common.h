// Shared by the test apps: error checks that exit non-zero with the CUDA error in
// the message, so that tests can tell "failed like CUDA without a driver" apart
// from a crash. Apps run unchanged on a real GPU, simcuda, or a driverless box.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// Exit status of an app that stopped on a CUDA error (a crash gives 128+signal).
constexpr int kCudaErrorExit = 2;

#define CHECK_CUDA(call)                                                                    \
  do {                                                                                      \
    cudaError_t check_cuda_error_ = (call);                                                 \
    if (check_cuda_error_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "CUDA error %d (%s) at %s:%d: %s\n",                             \
                   static_cast<int>(check_cuda_error_), cudaGetErrorName(check_cuda_error_), \
                   __FILE__, __LINE__, #call);                                              \
      std::exit(kCudaErrorExit);                                                            \
    }                                                                                       \
  } while (0)

// Checks an expectation on data read back from the device.
#define CHECK_TRUE(condition)                                                     \
  do {                                                                            \
    if (!(condition)) {                                                           \
      std::fprintf(stderr, "check failed at %s:%d: %s\n", __FILE__, __LINE__, #condition); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

// Reads a positive count from argv[index], or returns `fallback`.
inline long arg_count(int argc, char** argv, int index, long fallback) {
  if (argc <= index) return fallback;
  long value = std::strtol(argv[index], nullptr, 10);
  return value > 0 ? value : fallback;
}
