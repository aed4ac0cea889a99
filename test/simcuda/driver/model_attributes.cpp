// Function attributes, context limits and cache preferences: what programs set
// before launching (cudaFuncSetAttribute, cudaDeviceSetLimit...). They change no
// simulated time; a launch checks its dynamic shared memory against the
// function's maximum, as the real driver does.
#include <algorithm>

#include "model_internal.h"

namespace simcuda {
namespace {

constexpr int kMaxDynamicSharedOptIn = 227 * 1024;  // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN

// A CUfunction, or the CUkernel the runtime launches with passed as one.
CUfunc_st* function_locked(CUfunction handle) {
  const Model& m = model();
  if (handle == nullptr) return nullptr;
  if (m.functions.count(handle)) return handle;
  auto* as_kernel = reinterpret_cast<CUkern_st*>(handle);
  return m.kernels.count(as_kernel) ? as_kernel->function : nullptr;
}

bool valid_cache_config(CUfunc_cache config) {
  return config == CU_FUNC_CACHE_PREFER_NONE || config == CU_FUNC_CACHE_PREFER_SHARED ||
         config == CU_FUNC_CACHE_PREFER_L1 || config == CU_FUNC_CACHE_PREFER_EQUAL;
}

// The limits simcuda answers for; the others (the CIG ones) are unsupported here.
bool modelled_limit(CUlimit limit) { return limit >= CU_LIMIT_STACK_SIZE && limit <= CU_LIMIT_PERSISTING_L2_CACHE_SIZE; }

}  // namespace

void set_default_limits(CUctx_st* context) {
  // CUDA's documented defaults (cuCtxSetLimit); not measured on a GPU.
  context->limits[CU_LIMIT_STACK_SIZE] = 1024;
  context->limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 1 << 20;
  context->limits[CU_LIMIT_MALLOC_HEAP_SIZE] = 8 << 20;
  context->limits[CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2;
  context->limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
  context->limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64;
  context->limits[CU_LIMIT_PERSISTING_L2_CACHE_SIZE] = 0;
}

CUresult function_set_attribute(CUfunction handle, CUfunction_attribute attribute, int value) {
  Model& m = model();
  Lock lock(m.mutex);
  CUfunc_st* function = function_locked(handle);
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      if (value < 0 || value > kMaxDynamicSharedOptIn) return CUDA_ERROR_INVALID_VALUE;
      function->max_dynamic_shared_bytes = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
      function->preferred_carveout = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      if (value < 0 || value > 8) return CUDA_ERROR_INVALID_VALUE;
      function->required_cluster[attribute - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      if (value != 0 && value != 1) return CUDA_ERROR_INVALID_VALUE;
      function->non_portable_cluster_allowed = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      if (value < CU_CLUSTER_SCHEDULING_POLICY_DEFAULT || value > CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING) {
        return CUDA_ERROR_INVALID_VALUE;
      }
      function->cluster_scheduling_policy = value;
      return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;  // read-only attributes
  }
}

CUresult function_settable_attribute(CUfunction handle, CUfunction_attribute attribute, int* value) {
  Model& m = model();
  Lock lock(m.mutex);
  CUfunc_st* function = function_locked(handle);
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = function->max_dynamic_shared_bytes; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = function->preferred_carveout; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      *value = function->required_cluster[attribute - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
      break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED: *value = function->non_portable_cluster_allowed; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: *value = function->cluster_scheduling_policy; break;
    default: return CUDA_ERROR_NOT_FOUND;  // not a settable attribute
  }
  return CUDA_SUCCESS;
}

CUresult function_set_cache_config(CUfunction handle, CUfunc_cache config) {
  Model& m = model();
  Lock lock(m.mutex);
  CUfunc_st* function = function_locked(handle);
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (!valid_cache_config(config)) return CUDA_ERROR_INVALID_VALUE;
  function->cache_config = config;
  return CUDA_SUCCESS;
}

CUresult context_set_limit(CUlimit limit, size_t value) {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (!modelled_limit(limit)) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  if (limit == CU_LIMIT_MAX_L2_FETCH_GRANULARITY && value > 128) return CUDA_ERROR_INVALID_VALUE;
  if (limit == CU_LIMIT_PERSISTING_L2_CACHE_SIZE) {
    size_t most = m.devices[static_cast<size_t>(context->device)].info.l2_cache_bytes / 4 * 3;
    if (value > most) return CUDA_ERROR_INVALID_VALUE;
  }
  context->limits[limit] = value;
  return CUDA_SUCCESS;
}

CUresult context_get_limit(CUlimit limit, size_t* value) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (!modelled_limit(limit)) return CUDA_ERROR_UNSUPPORTED_LIMIT;
  *value = context->limits[limit];
  return CUDA_SUCCESS;
}

CUresult context_set_cache_config(CUfunc_cache config) {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (!valid_cache_config(config)) return CUDA_ERROR_INVALID_VALUE;
  context->cache_config = config;
  return CUDA_SUCCESS;
}

CUresult context_get_cache_config(CUfunc_cache* config) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *config = context->cache_config;
  return CUDA_SUCCESS;
}

}  // namespace simcuda
