// Exported runtime API: versions, errors, devices.
#include <cudaProfiler.h>

#include <cstring>

#include "runtime_scope.h"
#include "runtime_state.h"

using namespace simcuda_rt;

namespace {

struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

// The real runtime's names and strings for the errors simcuda can produce.
constexpr ErrorText kErrors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

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
  return e ? e->text : "unrecognized error code";
}

const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  const ErrorText* e = find_error(error);
  return e ? e->name : "cudaErrorUnknown";
}

cudaError_t CUDARTAPI cudaGetLastError(void) {
  SIM_RUNTIME_API_NOARGS(cudaGetLastError, v3020);
  cudaError_t error = take_last_error();
  // Not through finish(): reporting the error must not set it again.
  return sim_scope_.finish_without_recording(error);
}

cudaError_t CUDARTAPI cudaPeekAtLastError(void) {
  SIM_RUNTIME_API_NOARGS(cudaPeekAtLastError, v3020);
  return sim_scope_.finish_without_recording(peek_last_error());
}

cudaError_t CUDARTAPI cudaDriverGetVersion(int* driverVersion) {
  SIM_RUNTIME_API(cudaDriverGetVersion, v3020, driverVersion);
  if (driverVersion == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  SIM_TRY(cuDriverGetVersion(driverVersion));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* runtimeVersion) {
  SIM_RUNTIME_API(cudaRuntimeGetVersion, v3020, runtimeVersion);
  if (runtimeVersion == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  *runtimeVersion = CUDART_VERSION;
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) {
  SIM_RUNTIME_API(cudaGetDeviceCount, v3020, count);
  if (count == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  *count = 0;
  if (cudaError_t error = ensure_driver()) SIM_RETURN(error);
  SIM_TRY(cuDeviceGetCount(count));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  SIM_RUNTIME_API(cudaGetDevice, v3020, device);
  if (device == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_driver()) SIM_RETURN(error);
  *device = current_device();
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaSetDevice(int device) {
  SIM_RUNTIME_API(cudaSetDevice, v3020, device);
  if (cudaError_t error = set_current_device(device)) SIM_RETURN(error);
  // Since CUDA 12 cudaSetDevice initialises the device's primary context.
  SIM_RETURN(ensure_context());
}

cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  SIM_RUNTIME_API(cudaInitDevice, v12000, device, deviceFlags, flags);
  int previous = current_device();
  if (cudaError_t error = set_current_device(device)) SIM_RETURN(error);
  cudaError_t error = ensure_context();
  set_current_device(previous);
  SIM_RETURN(error);
}

cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags) {
  SIM_RUNTIME_API(cudaSetDeviceFlags, v3020, flags);
  if (cudaError_t error = ensure_driver()) SIM_RETURN(error);
  SIM_TRY(cuDevicePrimaryCtxSetFlags(current_device(), flags & ~cudaDeviceMapHost));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaDeviceSynchronize(void) {
  SIM_RUNTIME_API_NOARGS(cudaDeviceSynchronize, v3020);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuCtxSynchronize());
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaDeviceReset(void) {
  SIM_RUNTIME_API_NOARGS(cudaDeviceReset, v3020);
  if (cudaError_t error = ensure_driver()) SIM_RETURN(error);
  int device = current_device();
  SIM_TRY(cuDevicePrimaryCtxReset(device));
  forget_context(device);
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  SIM_RUNTIME_API(cudaDeviceGetAttribute, v5000, value, attr, device);
  if (cudaError_t error = ensure_driver()) SIM_RETURN(error);
  // cudaDeviceAttr and CUdevice_attribute share their numbering.
  SIM_TRY(cuDeviceGetAttribute(value, static_cast<CUdevice_attribute>(attr), device));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  SIM_RUNTIME_API(cudaDeviceGetStreamPriorityRange, v5050, leastPriority, greatestPriority);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  SIM_RUNTIME_API(cudaGetDeviceProperties, v12000, prop, device);
  if (prop == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_driver()) SIM_RETURN(error);
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
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->ECCEnabled = attribute(CU_DEVICE_ATTRIBUTE_ECC_ENABLED, device);
  prop->pciBusID = attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, device);
  prop->asyncEngineCount = attribute(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, device);
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = attribute(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, device);
  prop->l2CacheSize = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
  prop->maxThreadsPerMultiProcessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, device);
  prop->streamPrioritiesSupported = 1;
  prop->sharedMemPerMultiprocessor =
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, device));
  prop->regsPerMultiprocessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, device);
  prop->managedMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->sharedMemPerBlockOptin =
      static_cast<size_t>(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device));
  prop->maxBlocksPerMultiProcessor = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, device);
  prop->memoryPoolsSupported = 1;
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaProfilerStart(void) {
  SIM_RUNTIME_API_NOARGS(cudaProfilerStart, v4000);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuProfilerStart());
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaProfilerStop(void) {
  SIM_RUNTIME_API_NOARGS(cudaProfilerStop, v4000);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuProfilerStop());
  SIM_RETURN(cudaSuccess);
}

}  // extern "C"
