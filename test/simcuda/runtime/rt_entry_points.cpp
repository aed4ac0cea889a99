// The exported runtime functions, generated from runtime_entry_points.h: each opens
// the call's API scope around its body in simcuda_rt::impl and records the
// per-thread last error; a per-thread twin calls the same body with per_thread set.
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include "runtime_impl.h"
#include "runtime_scope.h"

namespace {

template <typename Body>
cudaError_t traced(uint32_t cbid, const char* name, const void* params, const char* symbol, Body&& body) {
  return simcuda::traced_call<cudaError_t>(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, name, params, symbol,
                                           [&] { return simcuda_rt::record_error(body()); });
}

}  // namespace

#define SIM_RT_EXPORT(symbol, traced_as, params, args, symbol_name, ...)                          \
  extern "C" cudaError_t CUDARTAPI symbol params {                                                 \
    traced_as##_params sim_params{SIM_UNPAREN args};                                               \
    return traced(CUPTI_RUNTIME_TRACE_CBID_##traced_as, #symbol, &sim_params, symbol_name,         \
                  [&] { return simcuda_rt::impl::__VA_ARGS__; });                                  \
  }

#define SIM_RT(name, ver, params, args) SIM_RT_EXPORT(name, name##_##ver, params, args, nullptr, name args)
#define SIM_RT_PT(name, ver, suffix, pt_ver, params, args)                                          \
  SIM_RT_EXPORT(name, name##_##ver, params, args, nullptr, name(false, SIM_UNPAREN args))         \
  SIM_RT_EXPORT(name##_##suffix, name##_##suffix##_##pt_ver, params, args, nullptr,                \
                name(true, SIM_UNPAREN args))
#define SIM_RT_NOARGS(name, ver)                                                                    \
  extern "C" cudaError_t CUDARTAPI name(void) {                                                     \
    return traced(CUPTI_RUNTIME_TRACE_CBID_##name##_##ver, #name, nullptr, nullptr,                \
                  [] { return simcuda_rt::impl::name(); });                                         \
  }
#define SIM_RT_LAUNCH_PT(name, ver, suffix, pt_ver, params, args, symbol)                             \
  SIM_RT_EXPORT(name, name##_##ver, params, args, simcuda_rt::symbol, name(false, SIM_UNPAREN args)) \
  SIM_RT_EXPORT(name##_##suffix, name##_##suffix##_##pt_ver, params, args, simcuda_rt::symbol,       \
                name(true, SIM_UNPAREN args))
#include "runtime_entry_points.h"
