// The exported driver functions, generated from driver_entry_points.h: each opens
// the call's API scope (correlation id, CUPTI callbacks, truth log) around its body
// in simcuda::impl, and a per-thread twin calls the same body with per_thread set.
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <generated_cuda_meta.h>

#include "device_model.h"
#include "driver_impl.h"

namespace {

template <typename Body>
CUresult traced(uint32_t cbid, const char* name, const void* params, const char* symbol, Body&& body) {
  return simcuda::traced_call<CUresult>(CUPTI_CB_DOMAIN_DRIVER_API, cbid, name, params, symbol, body);
}

}  // namespace

#define SIM_EXPORT(symbol, params, args, ...)                                                      \
  extern "C" CUresult CUDAAPI symbol params {                                                      \
    symbol##_params sim_params{SIM_UNPAREN args};                                                  \
    return traced(CUPTI_DRIVER_TRACE_CBID_##symbol, #symbol, &sim_params, nullptr,                 \
                  [&] { return simcuda::impl::__VA_ARGS__; });                                     \
  }
#define SIM_EXPORT_LAUNCH(symbol, params, args, function, ...)                                     \
  extern "C" CUresult CUDAAPI symbol params {                                                      \
    symbol##_params sim_params{SIM_UNPAREN args};                                                  \
    return traced(CUPTI_DRIVER_TRACE_CBID_##symbol, #symbol, &sim_params,                          \
                  simcuda::launched_name(function), [&] { return simcuda::impl::__VA_ARGS__; });   \
  }

#define SIM_FN(base, since, symbol, params, args) SIM_EXPORT(symbol, params, args, symbol args)
#define SIM_FN_PT(base, since, symbol, suffix, params, args)               \
  SIM_EXPORT(symbol, params, args, symbol(false, SIM_UNPAREN args))        \
  SIM_EXPORT(symbol##_##suffix, params, args, symbol(true, SIM_UNPAREN args))
#define SIM_FN_NOARGS(base, since, symbol)                                                        \
  extern "C" CUresult CUDAAPI symbol(void) {                                                      \
    return traced(CUPTI_DRIVER_TRACE_CBID_##symbol, #symbol, nullptr, nullptr,                    \
                  [] { return simcuda::impl::symbol(); });                                        \
  }
#define SIM_LAUNCH_PT(base, since, symbol, suffix, params, args, function)             \
  SIM_EXPORT_LAUNCH(symbol, params, args, function, symbol(false, SIM_UNPAREN args))   \
  SIM_EXPORT_LAUNCH(symbol##_##suffix, params, args, function, symbol(true, SIM_UNPAREN args))
#define SIM_PROC_ALIAS(base, since, symbol)
#include "driver_entry_points.h"
