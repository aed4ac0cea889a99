// Exported driver API: modules, kernel launches and the profiler control calls.
#include <cudaProfiler.h>

#include "api_trace.h"
#include "device_model.h"

using namespace simcuda;

namespace {

CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                unsigned bz, unsigned shared, CUstream stream, bool per_thread) {
  return enqueue_kernel({f, {gx, gy, gz}, {bx, by, bz}, shared, stream, per_thread});
}

CUresult launch_ex(const CUlaunchConfig* config, CUfunction f, bool per_thread) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return launch(f, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                config->blockDimY, config->blockDimZ, config->sharedMemBytes, config->hStream,
                per_thread);
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
  SIM_DRIVER_API(cuModuleLoadData, module, image);
  SIM_RETURN(module_load(module, image));
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                    CUjit_option* options, void** optionValues) {
  SIM_DRIVER_API(cuModuleLoadDataEx, module, image, numOptions, options, optionValues);
  SIM_RETURN(module_load(module, image));
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
  SIM_DRIVER_API(cuModuleUnload, hmod);
  SIM_RETURN(module_unload(hmod));
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  SIM_DRIVER_API(cuModuleGetFunction, hfunc, hmod, name);
  SIM_RETURN(module_function(hfunc, hmod, name));
}

CUresult CUDAAPI cuFuncGetName(const char** name, CUfunction hfunc) {
  SIM_DRIVER_API(cuFuncGetName, name, hfunc);
  if (name == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  *name = function_name(hfunc);
  SIM_RETURN(*name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE);
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream, void** kernelParams,
                                void** extra) {
  SIM_DRIVER_LAUNCH_API(cuLaunchKernel, function_name(f), f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                 sharedMemBytes, hStream, kernelParams, extra);
  SIM_RETURN(launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                    sharedMemBytes, hStream, false));
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX,
                                     unsigned int blockDimY, unsigned int blockDimZ,
                                     unsigned int sharedMemBytes, CUstream hStream,
                                     void** kernelParams, void** extra) {
  SIM_DRIVER_LAUNCH_API(cuLaunchKernel_ptsz, function_name(f), f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                 blockDimZ, sharedMemBytes, hStream, kernelParams, extra);
  SIM_RETURN(launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                    sharedMemBytes, hStream, true));
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** kernelParams,
                                  void** extra) {
  SIM_DRIVER_LAUNCH_API(cuLaunchKernelEx, function_name(f), config, f, kernelParams, extra);
  SIM_RETURN(launch_ex(config, f, false));
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                       void** kernelParams, void** extra) {
  SIM_DRIVER_LAUNCH_API(cuLaunchKernelEx_ptsz, function_name(f), config, f, kernelParams, extra);
  SIM_RETURN(launch_ex(config, f, true));
}

// Profiler start/stop only matter to an attached profiler; simcuda accepts them.
CUresult CUDAAPI cuProfilerStart(void) {
  SIM_DRIVER_API_NOARGS(cuProfilerStart);
  SIM_RETURN(require_init());
}

CUresult CUDAAPI cuProfilerStop(void) {
  SIM_DRIVER_API_NOARGS(cuProfilerStop);
  SIM_RETURN(require_init());
}

}  // extern "C"
