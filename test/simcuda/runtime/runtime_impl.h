// The bodies of the traced runtime functions, one per row of
// runtime_entry_points.h, named after the function they implement.
// rt_entry_points.cpp wraps each in its traced export; a row's per-thread twin
// calls the same body with per_thread = true.
#pragma once

#include <cuda_runtime_api.h>

#include "simcuda/api_scope.h"

namespace simcuda_rt {

// CUPTI's symbolName of a launch: the kernel of a cudaKernel_t handle or of a host
// stub, or nullptr when it names none.
const char* stub_symbol(const void* func);

namespace impl {

#define SIM_RT(name, ver, params, args) cudaError_t name params;
#define SIM_RT_PT(name, ver, suffix, pt_ver, params, args) cudaError_t name(bool per_thread, SIM_UNPAREN params);
#define SIM_RT_NOARGS(name, ver) cudaError_t name();
#define SIM_RT_LAUNCH_PT(name, ver, suffix, pt_ver, params, args, symbol) \
  cudaError_t name(bool per_thread, SIM_UNPAREN params);
#include "runtime_entry_points.h"

}  // namespace impl
}  // namespace simcuda_rt
