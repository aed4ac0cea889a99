// The driver's per-thread-default-stream entry points. cuda.h declares them only
// when CUDA_API_PER_THREAD_DEFAULT_STREAM is set, which would also rename every
// legacy call in the including file; the runtime needs both forms side by side, so
// they are declared here from the driver's own table.
#pragma once

#include <cuda.h>

#include "simcuda/api_scope.h"

extern "C" {
#define SIM_FN(base, since, symbol, params, args)
#define SIM_FN_PT(base, since, symbol, suffix, params, args) CUresult CUDAAPI symbol##_##suffix params;
#define SIM_FN_NOARGS(base, since, symbol)
#define SIM_LAUNCH_PT(base, since, symbol, suffix, params, args, function) \
  CUresult CUDAAPI symbol##_##suffix params;
#define SIM_PROC_ALIAS(base, since, symbol)
#include "../driver/driver_entry_points.h"
}

// The driver function `fn` or its per-thread twin fn_suffix, as `per_thread` says.
#define SIM_PT(fn, suffix) (per_thread ? fn##_##suffix : fn)
