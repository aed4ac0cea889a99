#include "capture/cuda_call_kind.h"

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

}  // namespace

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
