// Driver API bodies (see driver_impl.h): initialisation, version, errors, devices
// and contexts.
#include <cstdio>
#include <cstring>

#include "device_model.h"
#include "driver_impl.h"

using namespace simcuda;

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
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
    {CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* find_error(CUresult code) {
  for (const ErrorText& e : kErrors) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

}  // namespace

namespace simcuda::impl {

CUresult cuInit(unsigned int Flags) {
  return model_init(Flags);
}

CUresult cuDriverGetVersion(int* driverVersion) {
  if (driverVersion == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *driverVersion = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** pStr) {
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorText* e = find_error(error);
  *pStr = e ? e->text : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult error, const char** pStr) {
  if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ErrorText* e = find_error(error);
  *pStr = e ? e->name : nullptr;
  return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult error = check_device(ordinal);
  if (error == CUDA_SUCCESS) *device = ordinal;
  return error;
}

CUresult cuDeviceGetCount(int* count) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult error = require_init();
  if (error == CUDA_ERROR_NOT_INITIALIZED) return error;
  *count = device_count();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(dev)) return error;
  std::snprintf(name, static_cast<size_t>(len), "%s", device_info(dev)->name);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
  return device_attribute(pi, attrib, dev);
}

CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(dev)) return error;
  *bytes = device_info(dev)->global_memory_bytes;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
  if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(dev)) return error;
  *uuid = device_info(dev)->uuid;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) { return impl::cuDeviceGetUuid(uuid, dev); }

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  if (major == nullptr || minor == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(dev)) return error;
  *major = device_info(dev)->compute_major;
  *minor = device_info(dev)->compute_minor;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
  return primary_context_retain(dev, pctx);
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  return primary_context_release(dev);
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  return primary_context_reset(dev);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  return primary_context_state(dev, flags, active);
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  return primary_context_set_flags(dev, flags);
}

CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  return context_create(dev, flags, pctx);
}

CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams*, unsigned int flags, CUdevice dev) {
  return context_create(dev, flags, pctx);
}

CUresult cuCtxDestroy_v2(CUcontext ctx) {
  return context_destroy(ctx);
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  return context_set_current(ctx);
}

CUresult cuCtxGetCurrent(CUcontext* pctx) {
  return context_get_current(pctx);
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  return context_push(ctx);
}

CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
  return context_pop(pctx);
}

CUresult cuCtxGetDevice(CUdevice* device) {
  return context_device(device);
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long* ctxId) {
  if (ctxId == nullptr) return CUDA_ERROR_INVALID_VALUE;
  uint32_t id = 0;
  CUresult error = context_ids(ctx, &id, nullptr);
  *ctxId = id;
  return error;
}

CUresult cuCtxSynchronize() {
  return context_synchronize();
}

CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  // Synchronising another context than the current one is not modelled.
  if (ctx != nullptr && ctx != current_context_handle()) return CUDA_ERROR_NOT_SUPPORTED;
  return context_synchronize();
}

CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
  if (canAccessPeer == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(dev)) return error;
  if (CUresult error = check_device(peerDev)) return error;
  *canAccessPeer = dev != peerDev;  // every pair of simulated devices is linked
  return CUDA_SUCCESS;
}

// Every pair of simulated devices is linked as an NVLink pair of H100s would
// be (assumed, not measured: rank 0, every atomic native, arrays accessible).
CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attrib, CUdevice srcDevice, CUdevice dstDevice) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(srcDevice)) return error;
  if (CUresult error = check_device(dstDevice)) return error;
  if (srcDevice == dstDevice) return CUDA_ERROR_INVALID_DEVICE;
  switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK: *value = 0; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED: *value = 1; break;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED: *value = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
  if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return context_enable_peer(peerContext);
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext) { return context_disable_peer(peerContext); }

CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = -5;
  return CUDA_SUCCESS;
}

}  // namespace simcuda::impl
