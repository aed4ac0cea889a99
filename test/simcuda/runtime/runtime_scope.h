// Helpers for the bodies of the runtime's entry points (rt_*.cpp): each body runs
// inside the call's ApiScope (rt_entry_points.cpp) and returns its cudaError_t.
#pragma once

#include <cuda_runtime_api.h>

#include "runtime_state.h"

namespace simcuda_rt {

void set_last_error(cudaError_t error);

// Every error but "not ready" becomes the thread's last error; returns `error`.
inline cudaError_t record_error(cudaError_t error) {
  if (error != cudaSuccess && error != cudaErrorNotReady) set_last_error(error);
  return error;
}

}  // namespace simcuda_rt

// Evaluates a driver call and returns its error, translated, from the body.
#define SIM_TRY(expr)                                                               \
  do {                                                                              \
    if (cudaError_t sim_error_ = ::simcuda_rt::from_driver(expr)) return sim_error_; \
  } while (0)
// The whole body of most runtime calls: make the device's primary context current,
// then return the (translated) result of the one driver call `expr`.
#define SIM_IN_CONTEXT(expr)                                                 \
  do {                                                                       \
    SIM_NEED_CONTEXT();                                                      \
    return ::simcuda_rt::from_driver(expr);                                  \
  } while (0)
// Returns the error of making the device's primary context current, if any.
#define SIM_NEED_CONTEXT()                                                    \
  do {                                                                        \
    if (cudaError_t sim_error_ = ::simcuda_rt::ensure_context()) return sim_error_; \
  } while (0)
