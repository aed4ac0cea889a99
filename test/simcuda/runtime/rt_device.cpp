// Runtime API bodies (see runtime_impl.h): versions, errors, devices; and the
// untraced error strings.
#include <cudaProfiler.h>

#include <cstring>

#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>

#include "runtime_impl.h"
#include "runtime_scope.h"

using namespace simcuda_rt;

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

// Every cudaError_t of the CUDA headers, with the real runtime's name and text
// (generated at build time by gen_error_table.py).
constexpr ErrorText kErrors[] = {
#include "cuda_error_table.inc"
};

constexpr const char* kUnrecognized = "unrecognized error code";

const ErrorText* find_error(cudaError_t code) {
  for (const ErrorText& e : kErrors) {
    if (e.code == code) return &e;
  }
  return nullptr;
}

int attribute(CUdevice_attribute attr, int device) {
  int value = 0;
  cuDeviceGetAttribute(&value, attr, device);
  return value;
}

}  // namespace

extern "C" {

const char* CUDARTAPI cudaGetErrorString(cudaError_t error) {
  const ErrorText* e = find_error(error);
  return e ? e->text : kUnrecognized;
}

const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  const ErrorText* e = find_error(error);
  return e ? e->name : kUnrecognized;  // the real runtime's answer for both
}

// Traced without the rows' last-error bookkeeping: reporting the error must not
// set it again.
cudaError_t CUDARTAPI cudaGetLastError(void) {
  return simcuda::traced_call<cudaError_t>(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
                                           "cudaGetLastError", nullptr, nullptr, take_last_error);
}

cudaError_t CUDARTAPI cudaPeekAtLastError(void) {
  return simcuda::traced_call<cudaError_t>(CUPTI_CB_DOMAIN_RUNTIME_API,
                                           CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
                                           "cudaPeekAtLastError", nullptr, nullptr, peek_last_error);
}

}  // extern "C"

namespace simcuda_rt::impl {

cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (driverVersion == nullptr) return cudaErrorInvalidValue;
  SIM_TRY(cuDriverGetVersion(driverVersion));
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (runtimeVersion == nullptr) return cudaErrorInvalidValue;
  *runtimeVersion = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return cudaErrorInvalidValue;
  *count = 0;
  if (cudaError_t error = ensure_driver()) return error;
  SIM_TRY(cuDeviceGetCount(count));
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_driver()) return error;
  *device = current_device();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (cudaError_t error = set_current_device(device)) return error;
  // Since CUDA 12 cudaSetDevice initialises the device's primary context.
  return ensure_context();
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  int previous = current_device();
  if (cudaError_t error = set_current_device(device)) return error;
  cudaError_t error = ensure_context();
  set_current_device(previous);
  return error;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  if (cudaError_t error = ensure_driver()) return error;
  SIM_TRY(cuDevicePrimaryCtxSetFlags(current_device(), flags & ~cudaDeviceMapHost));
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuCtxSynchronize());
  return cudaSuccess;
}

cudaError_t cudaDeviceReset() {
  if (cudaError_t error = ensure_driver()) return error;
  int device = current_device();
  SIM_TRY(cuDevicePrimaryCtxReset(device));
  forget_context(device);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (cudaError_t error = ensure_driver()) return error;
  // cudaDeviceAttr and CUdevice_attribute share their numbering.
  SIM_TRY(cuDeviceGetAttribute(value, static_cast<CUdevice_attribute>(attr), device));
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
  return cudaSuccess;
}

// cudaLimit and cudaFuncCache have the driver's values (CUlimit, CUfunc_cache).
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
  SIM_IN_CONTEXT(cuCtxSetLimit(static_cast<CUlimit>(limit), value));
}

cudaError_t cudaDeviceGetLimit(size_t* pValue, enum cudaLimit limit) {
  SIM_IN_CONTEXT(cuCtxGetLimit(pValue, static_cast<CUlimit>(limit)));
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
  SIM_IN_CONTEXT(cuCtxSetCacheConfig(static_cast<CUfunc_cache>(cacheConfig)));
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache* pCacheConfig) {
  SIM_IN_CONTEXT(cuCtxGetCacheConfig(reinterpret_cast<CUfunc_cache*>(pCacheConfig)));
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_driver()) return error;
  std::memset(prop, 0, sizeof *prop);
  SIM_TRY(cuDeviceGetName(prop->name, sizeof prop->name, device));
  CUuuid uuid;
  SIM_TRY(cuDeviceGetUuid(&uuid, device));
  std::memcpy(&prop->uuid, &uuid, sizeof uuid);
  SIM_TRY(cuDeviceTotalMem(&prop->totalGlobalMem, device));
  prop->sharedMemPerBlock = static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, device));
  prop->regsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, device);
  prop->warpSize = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE, device);
  prop->memPitch = static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH, device));
  prop->maxThreadsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, device);
  prop->maxThreadsDim[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, device);
  prop->maxThreadsDim[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, device);
  prop->maxThreadsDim[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, device);
  prop->maxGridSize[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, device);
  prop->maxGridSize[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, device);
  prop->maxGridSize[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, device);
  prop->totalConstMem = static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY, device));
  prop->major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  prop->minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  prop->textureAlignment = static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, device));
  prop->multiProcessorCount = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
  // Every field from the attribute it mirrors, so that the two never disagree.
  prop->texturePitchAlignment = static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT, device));
  prop->integrated = attribute(CU_DEVICE_ATTRIBUTE_INTEGRATED, device);
  prop->canMapHostMemory = attribute(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, device);
  prop->concurrentKernels = attribute(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS, device);
  prop->pciDeviceID = attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, device);
  prop->pciDomainID = attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, device);
  prop->tccDriver = attribute(CU_DEVICE_ATTRIBUTE_TCC_DRIVER, device);
  prop->globalL1CacheSupported = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, device);
  prop->localL1CacheSupported = attribute(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED, device);
  prop->isMultiGpuBoard = attribute(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD, device);
  prop->computePreemptionSupported = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, device);
  prop->canUseHostPointerForRegisteredMem =
      attribute(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, device);
  prop->cooperativeLaunch = attribute(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, device);
  prop->hostRegisterSupported = attribute(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, device);
  prop->ECCEnabled = attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, device);
  prop->pciBusID = attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device);
  prop->asyncEngineCount = attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, device);
  prop->unifiedAddressing = attribute(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, device);
  prop->memoryBusWidth = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, device);
  prop->l2CacheSize = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
  prop->maxThreadsPerMultiProcessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device);
  prop->streamPrioritiesSupported = attribute(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, device);
  prop->sharedMemPerMultiprocessor =
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, device));
  prop->regsPerMultiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, device);
  prop->managedMemory = attribute(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, device);
  prop->concurrentManagedAccess = attribute(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, device);
  prop->sharedMemPerBlockOptin =
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device));
  prop->maxBlocksPerMultiProcessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, device);
  prop->memoryPoolsSupported = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device);
  return cudaSuccess;
}

cudaError_t cudaProfilerStart() {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuProfilerStart());
  return cudaSuccess;
}

cudaError_t cudaProfilerStop() {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuProfilerStop());
  return cudaSuccess;
}


cudaError_t cudaDeviceGetP2PAttribute(int* value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice) {
  if (cudaError_t error = ensure_driver()) return error;
  return from_driver(cuDeviceGetP2PAttribute(value, static_cast<CUdevice_P2PAttribute>(attr), srcDevice, dstDevice));
}

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  if (cudaError_t error = ensure_driver()) return error;
  return from_driver(cuDeviceCanAccessPeer(canAccessPeer, device, peerDevice));
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  SIM_NEED_CONTEXT();
  CUcontext peer = nullptr;
  if (cudaError_t error = device_context(peerDevice, &peer)) return error;
  return from_driver(cuCtxEnablePeerAccess(peer, flags));
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  SIM_NEED_CONTEXT();
  CUcontext peer = nullptr;
  if (cudaError_t error = device_context(peerDevice, &peer)) return error;
  return from_driver(cuCtxDisablePeerAccess(peer));
}

}  // namespace simcuda_rt::impl
