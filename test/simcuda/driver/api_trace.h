// Every exported API function opens an ApiScope: it assigns the correlation id, times
// the call, and reports enter/exit to the installed tracer (simcuda's CUPTI) and to the
// truth log. A runtime call and the driver calls nested in it share one correlation id,
// so the work a runtime call launched correlates with both API records.
#pragma once

#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>

#include "simcuda/tracer_abi.h"

namespace simcuda {

void api_enter(SimApiCall& call);
void api_exit(SimApiCall& call);
// The correlation id of the innermost API call running on this thread (0 if none).
uint32_t current_correlation_id();
const SimTracer* current_tracer();

class DriverApiScope {
 public:
  DriverApiScope(uint32_t cbid, const char* name, const void* params, const char* symbol = nullptr)
      : result_(CUDA_SUCCESS) {
    call_.domain = CUPTI_CB_DOMAIN_DRIVER_API;
    call_.cbid = cbid;
    call_.function_name = name;
    call_.params = params;
    call_.symbol_name = symbol;
    call_.return_value = &result_;
    api_enter(call_);
  }
  DriverApiScope(const DriverApiScope&) = delete;
  DriverApiScope& operator=(const DriverApiScope&) = delete;
  // Every return path goes through here so the exit callback sees the result.
  CUresult finish(CUresult result) {
    result_ = result;
    call_.result = static_cast<int32_t>(result);
    api_exit(call_);
    return result_;
  }

 private:
  CUresult result_;
  SimApiCall call_{};
};

}  // namespace simcuda

// Opens the scope of driver function `fn`, whose params struct fields are the
// function's arguments in order (generated_cuda_meta.h).
#define SIM_DRIVER_API(fn, ...)                \
  fn##_params sim_params_{__VA_ARGS__};        \
  ::simcuda::DriverApiScope sim_scope_(CUPTI_DRIVER_TRACE_CBID_##fn, #fn, &sim_params_)
// For launches: the kernel name is known before the enter callback, as in CUPTI.
#define SIM_DRIVER_LAUNCH_API(fn, symbol, ...) \
  fn##_params sim_params_{__VA_ARGS__};        \
  ::simcuda::DriverApiScope sim_scope_(CUPTI_DRIVER_TRACE_CBID_##fn, #fn, &sim_params_, symbol)
// For functions that take no arguments (no params struct exists for them).
#define SIM_DRIVER_API_NOARGS(fn) \
  ::simcuda::DriverApiScope sim_scope_(CUPTI_DRIVER_TRACE_CBID_##fn, #fn, nullptr)
#define SIM_RETURN(expr) return sim_scope_.finish(expr)
