#include "capture/cuda_call_kind.h"

#include <cupti.h>

#include <cstring>
#include <string_view>

namespace prof {
namespace {

bool starts_with(std::string_view name, std::string_view prefix) { return name.starts_with(prefix); }
bool contains(std::string_view name, std::string_view part) { return name.find(part) != std::string_view::npos; }

// Calls a program makes thousands of times to ask something, not to do
// something; nsys and torch.profiler leave them out of their summaries too.
constexpr std::string_view kQueries[] = {
    "cudaGetDevice", "cudaGetDeviceCount", "cudaGetLastError", "cudaPeekAtLastError",
    "cudaDeviceGetAttribute", "cudaGetDeviceProperties", "cudaDriverGetVersion",
    "cudaRuntimeGetVersion", "cudaGetDriverEntryPoint", "cudaFuncGetAttributes",
    "cudaPointerGetAttributes", "cudaStreamGetPriority", "cudaStreamGetFlags",
    "cudaGetErrorString", "cudaGetErrorName", "__cudaGetKernel",
    "__cudaPushCallConfiguration", "__cudaPopCallConfiguration",
    "cuCtxGetCurrent", "cuCtxSetCurrent", "cuCtxGetDevice", "cuCtxGetId", "cuDeviceGet",
    "cuDeviceGetAttribute", "cuDeviceGetCount", "cuDriverGetVersion", "cuGetProcAddress",
    "cuGetExportTable", "cuDevicePrimaryCtxGetState", "cuPointerGetAttribute",
    "cuFuncGetAttribute", "cuKernelGetFunction", "cuStreamGetCtx", "cuGetErrorString",
    "cuGetErrorName", "cuCtxGetStreamPriorityRange", "cuStreamGetPriority",
    "cuStreamGetFlags", "cuStreamGetId", "cuCtxGetFlags",
    // Seen on an H100 with driver 580: the runtime asks the kernel's name on
    // every launch, and once for the loading mode.
    "cuKernelGetName", "cuFuncGetName", "cuKernelGetAttribute", "cuModuleGetLoadingMode",
};

bool is_query(std::string_view name) {
  for (std::string_view query : kQueries) {
    // Versioned variants (cudaGetDeviceProperties_v2, cuGetProcAddress_v2) too.
    if (name == query || (name.starts_with(query) && name[query.size()] == '_')) return true;
  }
  return false;
}

// The same calls by CUPTI callback id, switched off at subscription so that
// CUPTI does not even call the agent for them (its dispatch costs more than
// the agent's own filter). Ids absent from a CUPTI release are never sent.
constexpr CUpti_CallbackId kRuntimeQueryIds[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v12000,
    CUPTI_RUNTIME_TRACE_CBID_cudaDriverGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDriverEntryPoint_ptsz_v11030,
    CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetPriority_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetFlags_v5050,
    CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetFlags_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorName_v6050,
    CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaPopCallConfiguration_v13000,
};
constexpr CUpti_CallbackId kDriverQueryIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice_v2,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetFlags,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetId,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetStreamPriorityRange,
    CUPTI_DRIVER_TRACE_CBID_cuCtxSetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,
    CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetName,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorName,
    CUPTI_DRIVER_TRACE_CBID_cuGetErrorString,
    CUPTI_DRIVER_TRACE_CBID_cuGetExportTable,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetFunction,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
    CUPTI_DRIVER_TRACE_CBID_cuModuleGetLoadingMode,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx_v2,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetFlags,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetFlags_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetId,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetId_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetPriority,
    CUPTI_DRIVER_TRACE_CBID_cuStreamGetPriority_ptsz,
};

}  // namespace

std::span<const CUpti_CallbackId> query_callback_ids(CUpti_CallbackDomain domain) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) return kRuntimeQueryIds;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) return kDriverQueryIds;
  return {};
}

CudaCallKind classify_cuda_call(const char* function_name) {
  if (function_name == nullptr) return CudaCallKind::other;
  const std::string_view name(function_name);
  if (is_query(name)) return CudaCallKind::query;
  if (name == "cudaProfilerStart" || name == "cuProfilerStart") return CudaCallKind::profiler_start;
  if (name == "cudaProfilerStop" || name == "cuProfilerStop") return CudaCallKind::profiler_stop;
  if (contains(name, "Launch")) return CudaCallKind::launch;
  if (starts_with(name, "cudaMemcpy") || starts_with(name, "cuMemcpy")) return CudaCallKind::copy;
  if (starts_with(name, "cudaMemset") || starts_with(name, "cuMemset")) return CudaCallKind::memset;
  if (contains(name, "Synchronize") || contains(name, "WaitEvent")) return CudaCallKind::synchronization;
  if (starts_with(name, "cudaMalloc") || starts_with(name, "cudaFree") ||
      starts_with(name, "cudaHostAlloc") || starts_with(name, "cuMemAlloc") ||
      starts_with(name, "cuMemFree") || starts_with(name, "cuMemHostAlloc") ||
      starts_with(name, "cuMemCreate") || starts_with(name, "cuMemRelease")) {
    return CudaCallKind::allocation;
  }
  return CudaCallKind::other;
}

}  // namespace prof
