// cuGetProcAddress(_v2): the driver's (base name, CUDA version, flags) lookup.
//
// A caller asks for a base name ("cuMemcpyHtoD") as of a CUDA version (e.g. 12000);
// the driver returns the newest ABI variant introduced at or before that version
// ("cuMemcpyHtoD_v2", introduced in 3020). With CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
// it returns the _ptds/_ptsz variant where one exists. Entries below are only the
// variants simcuda implements; an older variant it lacks reads as "version not sufficient".
#include <dlfcn.h>

#include <cstring>

#include "api_trace.h"
#include "device_model.h"

using namespace simcuda;

#undef cuGetProcAddress

namespace {

struct ProcEntry {
  const char* base;
  int version;             // CUDA version that introduced this variant
  const char* symbol;      // exported symbol
  const char* per_thread;  // its per-thread-default-stream form, or nullptr
};

constexpr ProcEntry kProcs[] = {
    {"cuInit", 2000, "cuInit", nullptr},
    {"cuDriverGetVersion", 2020, "cuDriverGetVersion", nullptr},
    {"cuGetErrorString", 6000, "cuGetErrorString", nullptr},
    {"cuGetErrorName", 6000, "cuGetErrorName", nullptr},
    {"cuGetProcAddress", 11030, "cuGetProcAddress", nullptr},
    {"cuGetProcAddress", 12000, "cuGetProcAddress_v2", nullptr},
    {"cuDeviceGet", 2000, "cuDeviceGet", nullptr},
    {"cuDeviceGetCount", 2000, "cuDeviceGetCount", nullptr},
    {"cuDeviceGetName", 2000, "cuDeviceGetName", nullptr},
    {"cuDeviceGetAttribute", 2000, "cuDeviceGetAttribute", nullptr},
    {"cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2", nullptr},
    {"cuDeviceGetUuid", 9020, "cuDeviceGetUuid", nullptr},
    {"cuDeviceGetUuid", 11040, "cuDeviceGetUuid_v2", nullptr},
    {"cuDeviceComputeCapability", 2000, "cuDeviceComputeCapability", nullptr},
    {"cuDevicePrimaryCtxRetain", 7000, "cuDevicePrimaryCtxRetain", nullptr},
    {"cuDevicePrimaryCtxRelease", 11000, "cuDevicePrimaryCtxRelease_v2", nullptr},
    {"cuDevicePrimaryCtxReset", 11000, "cuDevicePrimaryCtxReset_v2", nullptr},
    {"cuDevicePrimaryCtxGetState", 7000, "cuDevicePrimaryCtxGetState", nullptr},
    {"cuDevicePrimaryCtxSetFlags", 11000, "cuDevicePrimaryCtxSetFlags_v2", nullptr},
    {"cuCtxCreate", 3020, "cuCtxCreate_v2", nullptr},
    {"cuCtxCreate", 12050, "cuCtxCreate_v4", nullptr},
    {"cuCtxDestroy", 4000, "cuCtxDestroy_v2", nullptr},
    {"cuCtxSetCurrent", 4000, "cuCtxSetCurrent", nullptr},
    {"cuCtxGetCurrent", 4000, "cuCtxGetCurrent", nullptr},
    {"cuCtxPushCurrent", 4000, "cuCtxPushCurrent_v2", nullptr},
    {"cuCtxPopCurrent", 4000, "cuCtxPopCurrent_v2", nullptr},
    {"cuCtxGetDevice", 2000, "cuCtxGetDevice", nullptr},
    {"cuCtxGetId", 12000, "cuCtxGetId", nullptr},
    {"cuCtxSynchronize", 2000, "cuCtxSynchronize", nullptr},
    {"cuCtxSynchronize", 13000, "cuCtxSynchronize_v2", nullptr},
    {"cuCtxGetStreamPriorityRange", 5050, "cuCtxGetStreamPriorityRange", nullptr},
    {"cuModuleLoadData", 2000, "cuModuleLoadData", nullptr},
    {"cuModuleLoadDataEx", 2010, "cuModuleLoadDataEx", nullptr},
    {"cuModuleUnload", 2000, "cuModuleUnload", nullptr},
    {"cuModuleGetFunction", 2000, "cuModuleGetFunction", nullptr},
    {"cuFuncGetName", 12030, "cuFuncGetName", nullptr},
    {"cuLaunchKernel", 4000, "cuLaunchKernel", "cuLaunchKernel_ptsz"},
    {"cuLaunchKernelEx", 11060, "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz"},
    {"cuMemAlloc", 3020, "cuMemAlloc_v2", nullptr},
    {"cuMemFree", 3020, "cuMemFree_v2", nullptr},
    {"cuMemAllocManaged", 6000, "cuMemAllocManaged", nullptr},
    {"cuMemAllocHost", 3020, "cuMemAllocHost_v2", nullptr},
    {"cuMemHostAlloc", 2020, "cuMemHostAlloc", nullptr},
    {"cuMemFreeHost", 2000, "cuMemFreeHost", nullptr},
    {"cuMemAllocAsync", 11020, "cuMemAllocAsync", "cuMemAllocAsync_ptsz"},
    {"cuMemFreeAsync", 11020, "cuMemFreeAsync", "cuMemFreeAsync_ptsz"},
    {"cuMemGetInfo", 3020, "cuMemGetInfo_v2", nullptr},
    {"cuMemHostRegister", 6050, "cuMemHostRegister_v2", nullptr},
    {"cuMemHostUnregister", 4000, "cuMemHostUnregister", nullptr},
    {"cuMemGetAddressRange", 3020, "cuMemGetAddressRange_v2", nullptr},
    {"cuPointerGetAttribute", 4000, "cuPointerGetAttribute", nullptr},
    {"cuMemcpy", 4000, "cuMemcpy", "cuMemcpy_ptds"},
    {"cuMemcpyAsync", 4000, "cuMemcpyAsync", "cuMemcpyAsync_ptsz"},
    {"cuMemcpyHtoD", 3020, "cuMemcpyHtoD_v2", "cuMemcpyHtoD_v2_ptds"},
    {"cuMemcpyDtoH", 3020, "cuMemcpyDtoH_v2", "cuMemcpyDtoH_v2_ptds"},
    {"cuMemcpyDtoD", 3020, "cuMemcpyDtoD_v2", "cuMemcpyDtoD_v2_ptds"},
    {"cuMemcpyHtoDAsync", 3020, "cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync_v2_ptsz"},
    {"cuMemcpyDtoHAsync", 3020, "cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync_v2_ptsz"},
    {"cuMemcpyDtoDAsync", 3020, "cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync_v2_ptsz"},
    {"cuMemcpy2D", 3020, "cuMemcpy2D_v2", "cuMemcpy2D_v2_ptds"},
    {"cuMemcpy2DUnaligned", 3020, "cuMemcpy2DUnaligned_v2", "cuMemcpy2DUnaligned_v2_ptds"},
    {"cuMemcpy2DAsync", 3020, "cuMemcpy2DAsync_v2", "cuMemcpy2DAsync_v2_ptsz"},
    {"cuMemsetD8", 3020, "cuMemsetD8_v2", "cuMemsetD8_v2_ptds"},
    {"cuMemsetD16", 3020, "cuMemsetD16_v2", "cuMemsetD16_v2_ptds"},
    {"cuMemsetD32", 3020, "cuMemsetD32_v2", "cuMemsetD32_v2_ptds"},
    {"cuMemsetD8Async", 3020, "cuMemsetD8Async", "cuMemsetD8Async_ptsz"},
    {"cuMemsetD16Async", 3020, "cuMemsetD16Async", "cuMemsetD16Async_ptsz"},
    {"cuMemsetD32Async", 3020, "cuMemsetD32Async", "cuMemsetD32Async_ptsz"},
    {"cuMemsetD2D8", 3020, "cuMemsetD2D8_v2", "cuMemsetD2D8_v2_ptds"},
    {"cuMemsetD2D8Async", 3020, "cuMemsetD2D8Async", "cuMemsetD2D8Async_ptsz"},
    {"cuStreamCreate", 2000, "cuStreamCreate", nullptr},
    {"cuStreamCreateWithPriority", 5050, "cuStreamCreateWithPriority", nullptr},
    {"cuStreamDestroy", 4000, "cuStreamDestroy_v2", nullptr},
    {"cuStreamSynchronize", 2000, "cuStreamSynchronize", "cuStreamSynchronize_ptsz"},
    {"cuStreamQuery", 2000, "cuStreamQuery", "cuStreamQuery_ptsz"},
    {"cuStreamWaitEvent", 3020, "cuStreamWaitEvent", "cuStreamWaitEvent_ptsz"},
    {"cuStreamGetFlags", 5050, "cuStreamGetFlags", "cuStreamGetFlags_ptsz"},
    {"cuStreamGetPriority", 5050, "cuStreamGetPriority", "cuStreamGetPriority_ptsz"},
    {"cuStreamGetId", 12000, "cuStreamGetId", "cuStreamGetId_ptsz"},
    {"cuStreamBeginCapture", 10010, "cuStreamBeginCapture_v2", "cuStreamBeginCapture_v2_ptsz"},
    {"cuStreamEndCapture", 10000, "cuStreamEndCapture", "cuStreamEndCapture_ptsz"},
    {"cuStreamIsCapturing", 10000, "cuStreamIsCapturing", "cuStreamIsCapturing_ptsz"},
    {"cuEventCreate", 2000, "cuEventCreate", nullptr},
    {"cuEventDestroy", 4000, "cuEventDestroy_v2", nullptr},
    {"cuEventRecord", 2000, "cuEventRecord", "cuEventRecord_ptsz"},
    {"cuEventRecordWithFlags", 11010, "cuEventRecordWithFlags", "cuEventRecordWithFlags_ptsz"},
    {"cuEventSynchronize", 2000, "cuEventSynchronize", nullptr},
    {"cuEventQuery", 2000, "cuEventQuery", nullptr},
    {"cuEventElapsedTime", 2000, "cuEventElapsedTime", nullptr},
    {"cuEventElapsedTime", 12080, "cuEventElapsedTime_v2", nullptr},
    {"cuGraphInstantiate", 12000, "cuGraphInstantiateWithFlags", nullptr},
    {"cuGraphInstantiateWithFlags", 11040, "cuGraphInstantiateWithFlags", nullptr},
    {"cuGraphLaunch", 10000, "cuGraphLaunch", "cuGraphLaunch_ptsz"},
    {"cuGraphExecDestroy", 10000, "cuGraphExecDestroy", nullptr},
    {"cuGraphDestroy", 10000, "cuGraphDestroy", nullptr},
    {"cuProfilerStart", 4000, "cuProfilerStart", nullptr},
    {"cuProfilerStop", 4000, "cuProfilerStop", nullptr},
};

// Resolves our own exports through this library's handle, so an LD_PRELOADed
// definition of the same name is not returned (the real driver hands out its own
// entry points too).
void* own_symbol(const char* name) {
  static void* self = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&own_symbol), &info);
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  }();
  return self ? dlsym(self, name) : nullptr;
}

CUresult lookup(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                CUdriverProcAddressQueryResult* status) {
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  bool known = false;
  const ProcEntry* best = nullptr;
  for (const ProcEntry& entry : kProcs) {
    if (std::strcmp(entry.base, symbol) != 0) continue;
    known = true;
    if (entry.version <= cuda_version && (best == nullptr || entry.version > best->version)) best = &entry;
  }
  if (best == nullptr) {
    if (status) *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
  }
  bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const char* name = per_thread && best->per_thread ? best->per_thread : best->symbol;
  *pfn = own_symbol(name);
  if (status) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  SIM_DRIVER_API(cuGetProcAddress, symbol, pfn, cudaVersion, flags);
  SIM_RETURN(lookup(symbol, pfn, cudaVersion, flags, nullptr));
}

CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion,
                                     cuuint64_t flags, CUdriverProcAddressQueryResult* symbolStatus) {
  SIM_DRIVER_API(cuGetProcAddress_v2, symbol, pfn, cudaVersion, flags, symbolStatus);
  SIM_RETURN(lookup(symbol, pfn, cudaVersion, flags, symbolStatus));
}

}  // extern "C"
