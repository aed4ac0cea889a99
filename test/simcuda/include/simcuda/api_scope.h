// The one way an exported simcuda function is traced, driver and runtime alike:
// enter callback, the call's body, exit callback with its result. It reports
// through libcuda's simcuda_api_enter/exit, so a runtime call and the driver calls
// it makes share a correlation id, and CUPTI and the truth log see both.
#pragma once

#include <stdint.h>

#include "simcuda/tracer_abi.h"

namespace simcuda {

// `Result` is CUresult or cudaError_t; the tracer reads it through return_value.
template <typename Result>
class ApiScope {
 public:
  ApiScope(uint32_t domain, uint32_t cbid, const char* name, const void* params, const char* symbol) {
    call_.domain = domain;
    call_.cbid = cbid;
    call_.function_name = name;
    call_.params = params;
    call_.symbol_name = symbol;
    call_.return_value = &result_;
    simcuda_api_enter(&call_);
  }
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;
  Result finish(Result result) {
    result_ = result;
    call_.result = static_cast<int32_t>(result);
    simcuda_api_exit(&call_);
    return result_;
  }

 private:
  Result result_{};
  SimApiCall call_{};
};

// Runs `body` inside the call's scope and returns what it returned.
template <typename Result, typename Body>
Result traced_call(uint32_t domain, uint32_t cbid, const char* name, const void* params, const char* symbol,
                   Body&& body) {
  ApiScope<Result> scope(domain, cbid, name, params, symbol);
  return scope.finish(body());
}

}  // namespace simcuda

// Helpers for the X-macro tables: `SIM_UNPAREN (a, b)` is `a, b`.
#define SIM_UNPAREN(...) __VA_ARGS__
