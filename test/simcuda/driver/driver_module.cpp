// Driver API bodies (see driver_impl.h): modules, kernel launches and the profiler
// control calls.
#include "device_model.h"
#include "driver_impl.h"

namespace simcuda::impl {

CUresult cuModuleLoadData(CUmodule* module, const void* image) { return module_load(module, image); }

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*, void**) {
  return module_load(module, image);
}

CUresult cuModuleUnload(CUmodule hmod) { return module_unload(hmod); }

CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  return module_function(hfunc, hmod, name);
}

CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *name = function_name(hfunc);
  return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// simcuda has no context-less kernels: a CUkernel is the CUfunction it stands for.
CUresult cuKernelGetName(const char** name, CUkernel hfunc) {
  return impl::cuFuncGetName(name, reinterpret_cast<CUfunction>(hfunc));
}

CUresult cuLaunchKernel(bool per_thread, CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void**, void**) {
  return enqueue_kernel({f, {gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ}, sharedMemBytes,
                         hStream, per_thread});
}

CUresult cuLaunchKernelEx(bool per_thread, const CUlaunchConfig* config, CUfunction f, void**, void**) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return enqueue_kernel({f, {config->gridDimX, config->gridDimY, config->gridDimZ},
                         {config->blockDimX, config->blockDimY, config->blockDimZ}, config->sharedMemBytes,
                         config->hStream, per_thread});
}

// Profiler start/stop only matter to an attached profiler; simcuda accepts them.
CUresult cuProfilerStart() { return require_init(); }

CUresult cuProfilerStop() { return require_init(); }

}  // namespace simcuda::impl
