// Kernel registration and launch: the entry points nvcc's generated host code calls
// (__cudaRegisterFatBinary ... __cudaLaunchKernel) and the explicit launch API.
#include <functional>
#include <vector>

#include "driver_per_thread.h"
#include <cupti_callbacks.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>

#include "runtime_impl.h"
#include "runtime_scope.h"

using namespace simcuda_rt;

namespace {

struct CallConfiguration {
  dim3 grid;
  dim3 block;
  size_t shared_bytes;
  cudaStream_t stream;
};
thread_local std::vector<CallConfiguration> t_call_configurations;

// CUDA 13's headers have no params struct for __cudaGetKernel; CUPTI callbacks get
// one laid out like the function's arguments.
struct GetKernelParams {
  cudaKernel_t* kernel;
  const void* func;
};

RegisteredKernel* as_kernel(cudaKernel_t handle) { return reinterpret_cast<RegisteredKernel*>(handle); }

// The driver launch a runtime launch makes, given the kernel's handle.
using DriverLaunch = std::function<CUresult(CUfunction launched)>;

// The real runtime launches with the kernel's CUkernel handle (passed as a
// CUfunction), and asks its name before every launch.
cudaError_t launch_through(RegisteredKernel* kernel, const DriverLaunch& driver_launch) {
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;
  CUkernel handle = nullptr;
  if (cudaError_t error = kernel_launch_handle(kernel, &handle)) return error;
  const char* name = nullptr;
  cuKernelGetName(&name, handle);
  CUresult result = driver_launch(reinterpret_cast<CUfunction>(handle));
  // The runtime reports a bad launch configuration as its own error code.
  if (result == CUDA_ERROR_INVALID_VALUE) return cudaErrorInvalidConfiguration;
  return from_driver(result);
}

cudaError_t launch(RegisteredKernel* kernel, dim3 grid, dim3 block, void** args, size_t shared_bytes,
                   cudaStream_t stream, bool per_thread) {
  return launch_through(kernel, [&](CUfunction launched) {
    return SIM_PT(cuLaunchKernel, ptsz)(launched, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                        static_cast<unsigned>(shared_bytes), stream, args, nullptr);
  });
}

const char* name_or_null(const RegisteredKernel* kernel) { return kernel ? kernel_name(kernel) : nullptr; }

// cudaLaunchKernelExC goes to cuLaunchKernelEx with the same attributes
// (cudaLaunchAttribute and CUlaunchAttribute share ids and layout). Assumed,
// not measured: which driver call the real runtime makes here.
cudaError_t launch_ex(const cudaLaunchConfig_t* config, const void* func, void** args, bool per_thread) {
  if (config == nullptr || (config->numAttrs > 0 && config->attrs == nullptr)) return cudaErrorInvalidValue;
  static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute), "launch attribute layouts differ");
  return launch_through(kernel_for_stub(func), [&](CUfunction launched) {
    CUlaunchConfig driver_config{};
    driver_config.gridDimX = config->gridDim.x;
    driver_config.gridDimY = config->gridDim.y;
    driver_config.gridDimZ = config->gridDim.z;
    driver_config.blockDimX = config->blockDim.x;
    driver_config.blockDimY = config->blockDim.y;
    driver_config.blockDimZ = config->blockDim.z;
    driver_config.sharedMemBytes = static_cast<unsigned>(config->dynamicSmemBytes);
    driver_config.hStream = config->stream;
    driver_config.attrs = reinterpret_cast<CUlaunchAttribute*>(config->attrs);
    driver_config.numAttrs = config->numAttrs;
    return SIM_PT(cuLaunchKernelEx, ptsz)(&driver_config, launched, args, nullptr);
  });
}

}  // namespace

extern "C" {

void** CUDARTAPI __cudaRegisterFatBinary(void* fatCubin) {
  (void)fatCubin;  // a real fatbin holds cubins simcuda does not execute
  return static_cast<void**>(register_fatbinary());
}

void CUDARTAPI __cudaRegisterFatBinaryEnd(void** fatCubinHandle) { (void)fatCubinHandle; }

void CUDARTAPI __cudaUnregisterFatBinary(void** fatCubinHandle) {
  // Kept registered: other static destructors may still launch during exit.
  (void)fatCubinHandle;
}

char CUDARTAPI __cudaInitModule(void** fatCubinHandle) {
  (void)fatCubinHandle;
  return 1;
}

void CUDARTAPI __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun,
                                      const char* deviceName, int thread_limit, uint3* tid, uint3* bid,
                                      dim3* bDim, dim3* gDim, int* wSize) {
  (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
  register_function(fatCubinHandle, hostFun, deviceName);
}

// A __device__ or __constant__ variable: device memory in its module, reached from
// the host through its shadow's address (cudaMemcpyToSymbol and friends).
void CUDARTAPI __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress,
                                 const char* deviceName, int ext, size_t size, int constant, int global) {
  (void)deviceAddress, (void)ext, (void)constant, (void)global;
  register_variable(fatCubinHandle, hostVar, deviceName, size);
}

void CUDARTAPI __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress,
                                        const char* deviceName, int ext, size_t size, int constant,
                                        int global) {
  (void)fatCubinHandle, (void)hostVarPtrAddress, (void)deviceAddress, (void)deviceName, (void)ext,
      (void)size, (void)constant, (void)global;
}

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                               struct CUstream_st* stream) {
  t_call_configurations.push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem,
                                                 void* stream) {
  if (t_call_configurations.empty()) return cudaErrorMissingConfiguration;
  CallConfiguration c = t_call_configurations.back();
  t_call_configurations.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared_bytes;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* func) {
  GetKernelParams params{kernel, func};
  RegisteredKernel* found = kernel_for_stub(func);
  return simcuda::traced_call<cudaError_t>(
      CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000, "__cudaGetKernel", &params,
      name_or_null(found), [&] {
        if (kernel == nullptr) return record_error(cudaErrorInvalidValue);
        *kernel = reinterpret_cast<cudaKernel_t>(found);
        return found ? cudaSuccess : record_error(cudaErrorInvalidDeviceFunction);
      });
}

}  // extern "C"

// CUDA 13's <<<>>> calls __cudaLaunchKernel(_ptsz) with a cudaKernel_t. The real
// runtime reports it to CUPTI as cudaLaunchKernel(_ptsz) (callback id 211 / 214),
// with the kernel's host stub as `func` (seen on an H100, driver 580).
#define SIM_HANDLE_LAUNCH(symbol, traced_as, name, per_thread)                                               \
  extern "C" cudaError_t CUDARTAPI symbol(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args,     \
                                          size_t sharedMem, cudaStream_t stream) {                           \
    RegisteredKernel* registered = as_kernel(kernel);                                                        \
    traced_as##_params params{registered ? kernel_stub(registered) : nullptr, gridDim, blockDim, args,       \
                              sharedMem, stream};                                                            \
    return simcuda::traced_call<cudaError_t>(                                                                \
        CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_##traced_as, name, &params,                    \
        name_or_null(registered),                                                                            \
        [&] { return record_error(launch(registered, gridDim, blockDim, args, sharedMem, stream, per_thread)); }); \
  }
SIM_HANDLE_LAUNCH(__cudaLaunchKernel, cudaLaunchKernel_v7000, "cudaLaunchKernel", false)
SIM_HANDLE_LAUNCH(__cudaLaunchKernel_ptsz, cudaLaunchKernel_ptsz_v7000, "cudaLaunchKernel_ptsz", true)

namespace simcuda_rt {

const char* stub_symbol(const void* func) { return name_or_null(kernel_for_stub(func)); }

namespace impl {

cudaError_t cudaLaunchKernel(bool per_thread, const void* func, dim3 gridDim, dim3 blockDim, void** args,
                             size_t sharedMem, cudaStream_t stream) {
  return launch(kernel_for_stub(func), gridDim, blockDim, args, sharedMem, stream, per_thread);
}

namespace {

// The driver function of the kernel whose host stub is `func`, on the current device.
cudaError_t function_of(const void* func, CUfunction* out) {
  RegisteredKernel* kernel = kernel_for_stub(func);
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;
  return kernel_function(kernel, out);
}

}  // namespace

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr) return cudaErrorInvalidValue;
  CUfunction function = nullptr;
  if (cudaError_t error = function_of(func, &function)) return error;
  *attr = {};
  SIM_TRY(cuFuncGetAttribute(&attr->maxThreadsPerBlock, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function));
  SIM_TRY(cuFuncGetAttribute(&attr->numRegs, CU_FUNC_ATTRIBUTE_NUM_REGS, function));
  SIM_TRY(cuFuncGetAttribute(&attr->ptxVersion, CU_FUNC_ATTRIBUTE_PTX_VERSION, function));
  SIM_TRY(cuFuncGetAttribute(&attr->binaryVersion, CU_FUNC_ATTRIBUTE_BINARY_VERSION, function));
  SIM_TRY(cuFuncGetAttribute(&attr->maxDynamicSharedSizeBytes, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             function));
  SIM_TRY(cuFuncGetAttribute(&attr->preferredShmemCarveout, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                             function));
  SIM_TRY(cuFuncGetAttribute(&attr->requiredClusterWidth, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, function));
  SIM_TRY(cuFuncGetAttribute(&attr->requiredClusterHeight, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT, function));
  SIM_TRY(cuFuncGetAttribute(&attr->requiredClusterDepth, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH, function));
  SIM_TRY(cuFuncGetAttribute(&attr->nonPortableClusterSizeAllowed, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                             function));
  SIM_TRY(cuFuncGetAttribute(&attr->clusterSchedulingPolicyPreference,
                             CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, function));
  return cudaSuccess;
}

// The runtime's function attributes and cache preference are the driver's, of
// the kernel's function on the current device (assumed: cuFuncSet*, where a
// CUDA 12 runtime may use cuKernelSet* instead).
cudaError_t cudaFuncSetAttribute(const void* func, enum cudaFuncAttribute attr, int value) {
  CUfunction function = nullptr;
  if (cudaError_t error = function_of(func, &function)) return error;
  return from_driver(cuFuncSetAttribute(function, static_cast<CUfunction_attribute>(attr), value));
}

cudaError_t cudaFuncSetCacheConfig(const void* func, enum cudaFuncCache cacheConfig) {
  CUfunction function = nullptr;
  if (cudaError_t error = function_of(func, &function)) return error;
  return from_driver(cuFuncSetCacheConfig(function, static_cast<CUfunc_cache>(cacheConfig)));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags) {
  CUfunction function = nullptr;
  if (cudaError_t error = function_of(func, &function)) return error;
  return from_driver(
      cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, function, blockSize, dynamicSMemSize, flags));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  return impl::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaError_t cudaLaunchCooperativeKernel(bool per_thread, const void* func, dim3 gridDim, dim3 blockDim, void** args,
                                        size_t sharedMem, cudaStream_t stream) {
  return launch_through(kernel_for_stub(func), [&](CUfunction launched) {
    return SIM_PT(cuLaunchCooperativeKernel, ptsz)(launched, gridDim.x, gridDim.y, gridDim.z, blockDim.x, blockDim.y,
                                                   blockDim.z, static_cast<unsigned>(sharedMem), stream, args);
  });
}

cudaError_t cudaLaunchKernelExC(bool per_thread, const cudaLaunchConfig_t* config, const void* func, void** args) {
  return launch_ex(config, func, args, per_thread);
}

}  // namespace impl
}  // namespace simcuda_rt
