// The bodies of the exported driver functions, one per row of
// driver_entry_points.h, named after the symbol they implement (so the table can
// name them). entry_points.cpp wraps each in its traced export; a row's per-thread
// twin calls the same body with per_thread = true.
#pragma once

#include <cuda.h>
#include <cudaProfiler.h>

#include "simcuda/api_scope.h"

namespace simcuda::impl {

#define SIM_FN(base, since, symbol, params, args) CUresult symbol params;
#define SIM_FN_PT(base, since, symbol, suffix, params, args) CUresult symbol(bool per_thread, SIM_UNPAREN params);
#define SIM_FN_NOARGS(base, since, symbol) CUresult symbol();
#define SIM_LAUNCH_PT(base, since, symbol, suffix, params, args, function) \
  CUresult symbol(bool per_thread, SIM_UNPAREN params);
#define SIM_PROC_ALIAS(base, since, symbol)
#include "driver_entry_points.h"

}  // namespace simcuda::impl
