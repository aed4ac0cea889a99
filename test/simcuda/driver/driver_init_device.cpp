// Exported driver API: initialisation, version, errors, devices and contexts.
#include <cstdio>
#include <cstring>

#include "api_trace.h"
#include "device_model.h"

using namespace simcuda;

#undef cuCtxCreate
#undef cuCtxSynchronize

namespace {

struct ErrorText {
  CUresult code;
  const char* name;
  const char* text;
};

// The strings the real driver returns for the errors simcuda can produce.
constexpr ErrorText kErrors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_PROFILER_DISABLED, "CUDA_ERROR_PROFILER_DISABLED", "profiler disabled while using external profiling tool"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* find_error(CUresult code) {
  for (const ErrorText& e : kErrors) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuInit(unsigned int Flags) {
  SIM_DRIVER_API(cuInit, Flags);
  SIM_RETURN(model_init(Flags));
}

CUresult CUDAAPI cuDriverGetVersion(int* driverVersion) {
  SIM_DRIVER_API(cuDriverGetVersion, driverVersion);
  if (driverVersion == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  *driverVersion = CUDA_VERSION;
  SIM_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
  SIM_DRIVER_API(cuGetErrorString, error, pStr);
  if (pStr == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  const ErrorText* e = find_error(error);
  *pStr = e ? e->text : nullptr;
  SIM_RETURN(e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
  SIM_DRIVER_API(cuGetErrorName, error, pStr);
  if (pStr == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  const ErrorText* e = find_error(error);
  *pStr = e ? e->name : nullptr;
  SIM_RETURN(e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
  SIM_DRIVER_API(cuDeviceGet, device, ordinal);
  if (device == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  CUresult error = check_device(ordinal);
  if (error == CUDA_SUCCESS) *device = ordinal;
  SIM_RETURN(error);
}

CUresult CUDAAPI cuDeviceGetCount(int* count) {
  SIM_DRIVER_API(cuDeviceGetCount, count);
  if (count == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  CUresult error = require_init();
  if (error == CUDA_ERROR_NOT_INITIALIZED) SIM_RETURN(error);
  *count = device_count();
  SIM_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
  SIM_DRIVER_API(cuDeviceGetName, name, len, dev);
  if (name == nullptr || len <= 0) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  if (CUresult error = check_device(dev)) SIM_RETURN(error);
  std::snprintf(name, static_cast<size_t>(len), "%s", device_info(dev)->name);
  SIM_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  SIM_DRIVER_API(cuDeviceGetAttribute, pi, attrib, dev);
  SIM_RETURN(device_attribute(pi, attrib, dev));
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  SIM_DRIVER_API(cuDeviceTotalMem_v2, bytes, dev);
  if (bytes == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  if (CUresult error = check_device(dev)) SIM_RETURN(error);
  *bytes = device_info(dev)->global_memory_bytes;
  SIM_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  SIM_DRIVER_API(cuDeviceGetUuid, uuid, dev);
  if (uuid == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  if (CUresult error = check_device(dev)) SIM_RETURN(error);
  *uuid = device_info(dev)->uuid;
  SIM_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
  SIM_DRIVER_API(cuDeviceGetUuid_v2, uuid, dev);
  if (uuid == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  if (CUresult error = check_device(dev)) SIM_RETURN(error);
  *uuid = device_info(dev)->uuid;
  SIM_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  SIM_DRIVER_API(cuDeviceComputeCapability, major, minor, dev);
  if (major == nullptr || minor == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  if (CUresult error = check_device(dev)) SIM_RETURN(error);
  *major = device_info(dev)->compute_major;
  *minor = device_info(dev)->compute_minor;
  SIM_RETURN(CUDA_SUCCESS);
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  SIM_DRIVER_API(cuDevicePrimaryCtxRetain, pctx, dev);
  SIM_RETURN(primary_context_retain(dev, pctx));
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  SIM_DRIVER_API(cuDevicePrimaryCtxRelease_v2, dev);
  SIM_RETURN(primary_context_release(dev));
}

CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  SIM_DRIVER_API(cuDevicePrimaryCtxReset_v2, dev);
  SIM_RETURN(primary_context_reset(dev));
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  SIM_DRIVER_API(cuDevicePrimaryCtxGetState, dev, flags, active);
  SIM_RETURN(primary_context_state(dev, flags, active));
}

CUresult CUDAAPI cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  SIM_DRIVER_API(cuDevicePrimaryCtxSetFlags_v2, dev, flags);
  SIM_RETURN(primary_context_set_flags(dev, flags));
}

CUresult CUDAAPI cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  SIM_DRIVER_API(cuCtxCreate_v2, pctx, flags, dev);
  SIM_RETURN(context_create(dev, flags, pctx));
}

CUresult CUDAAPI cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* ctxCreateParams,
                                unsigned int flags, CUdevice dev) {
  SIM_DRIVER_API(cuCtxCreate_v4, pctx, ctxCreateParams, flags, dev);
  SIM_RETURN(context_create(dev, flags, pctx));
}

CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx) {
  SIM_DRIVER_API(cuCtxDestroy_v2, ctx);
  SIM_RETURN(context_destroy(ctx));
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  SIM_DRIVER_API(cuCtxSetCurrent, ctx);
  SIM_RETURN(context_set_current(ctx));
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx) {
  SIM_DRIVER_API(cuCtxGetCurrent, pctx);
  SIM_RETURN(context_get_current(pctx));
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx) {
  SIM_DRIVER_API(cuCtxPushCurrent_v2, ctx);
  SIM_RETURN(context_push(ctx));
}

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext* pctx) {
  SIM_DRIVER_API(cuCtxPopCurrent_v2, pctx);
  SIM_RETURN(context_pop(pctx));
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  SIM_DRIVER_API(cuCtxGetDevice, device);
  SIM_RETURN(context_device(device));
}

CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long* ctxId) {
  SIM_DRIVER_API(cuCtxGetId, ctx, ctxId);
  if (ctxId == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  uint32_t id = 0;
  CUresult error = context_ids(ctx, &id, nullptr);
  *ctxId = id;
  SIM_RETURN(error);
}

CUresult CUDAAPI cuCtxSynchronize(void) {
  SIM_DRIVER_API_NOARGS(cuCtxSynchronize);
  SIM_RETURN(context_synchronize());
}

CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx) {
  SIM_DRIVER_API(cuCtxSynchronize_v2, ctx);
  // Synchronising another context than the current one is not modelled.
  if (ctx != nullptr && ctx != current_context_handle()) SIM_RETURN(CUDA_ERROR_NOT_SUPPORTED);
  SIM_RETURN(context_synchronize());
}

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  SIM_DRIVER_API(cuCtxGetStreamPriorityRange, leastPriority, greatestPriority);
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = -5;
  SIM_RETURN(CUDA_SUCCESS);
}

}  // extern "C"
