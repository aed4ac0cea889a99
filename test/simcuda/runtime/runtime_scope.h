// RuntimeApiScope: what DriverApiScope is to libcuda, for libcudart. It reports the
// call through libcuda's private simcuda_api_enter/exit, so that the runtime call and
// the driver calls it makes share a correlation id, and records the per-thread
// "last error" that cudaGetLastError returns.
#pragma once

#include <cuda_runtime_api.h>
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include "simcuda/tracer_abi.h"

namespace simcuda_rt {

void set_last_error(cudaError_t error);

class RuntimeApiScope {
 public:
  RuntimeApiScope(uint32_t cbid, const char* name, const void* params, const char* symbol = nullptr)
      : result_(cudaSuccess) {
    call_.domain = CUPTI_CB_DOMAIN_RUNTIME_API;
    call_.cbid = cbid;
    call_.function_name = name;
    call_.params = params;
    call_.symbol_name = symbol;
    call_.return_value = &result_;
    simcuda_api_enter(&call_);
  }
  RuntimeApiScope(const RuntimeApiScope&) = delete;
  RuntimeApiScope& operator=(const RuntimeApiScope&) = delete;
  cudaError_t finish(cudaError_t result) {
    result_ = result;
    call_.result = static_cast<int32_t>(result);
    if (result != cudaSuccess && result != cudaErrorNotReady) set_last_error(result);
    simcuda_api_exit(&call_);
    return result_;
  }
  // For cudaGetLastError/cudaPeekAtLastError, whose result is the error itself.
  cudaError_t finish_without_recording(cudaError_t result) {
    result_ = result;
    call_.result = static_cast<int32_t>(result);
    simcuda_api_exit(&call_);
    return result_;
  }

 private:
  cudaError_t result_;
  SimApiCall call_{};
};

}  // namespace simcuda_rt

// `fn` is the exported name, `ver` the CUPTI cbid suffix (cudaMalloc + v3020 ->
// CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020 and cudaMalloc_v3020_params).
#define SIM_RUNTIME_API(fn, ver, ...)                     \
  fn##_##ver##_params sim_params_{__VA_ARGS__};           \
  ::simcuda_rt::RuntimeApiScope sim_scope_(CUPTI_RUNTIME_TRACE_CBID_##fn##_##ver, #fn, &sim_params_)
#define SIM_RUNTIME_API_NOARGS(fn, ver) \
  ::simcuda_rt::RuntimeApiScope sim_scope_(CUPTI_RUNTIME_TRACE_CBID_##fn##_##ver, #fn, nullptr)
#define SIM_RETURN(expr) return sim_scope_.finish(expr)
// Evaluates a driver call and returns its error, translated, from the runtime call.
#define SIM_TRY(expr)                                                   \
  do {                                                                  \
    if (cudaError_t sim_error_ = ::simcuda_rt::from_driver(expr)) SIM_RETURN(sim_error_); \
  } while (0)
