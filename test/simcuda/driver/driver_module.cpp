// Driver API bodies (see driver_impl.h): modules, kernel launches and the profiler
// control calls.
#include <algorithm>

#include "device_model.h"
#include "driver_impl.h"

namespace simcuda::impl {

CUresult cuModuleLoadData(CUmodule* module, const void* image) { return module_load(module, image); }

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*, void**) {
  return module_load(module, image);
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) { return module_load(module, fatCubin); }

// simcuda loads modules, not libraries: a CUlibrary is the CUmodule it stands for.
CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**, unsigned int,
                           CUlibraryOption*, void**, unsigned int) {
  if (library == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return module_load(reinterpret_cast<CUmodule*>(library), code);
}

CUresult cuLibraryUnload(CUlibrary library) { return module_unload(reinterpret_cast<CUmodule>(library)); }

CUresult cuModuleUnload(CUmodule hmod) { return module_unload(hmod); }

CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
  return module_function(hfunc, hmod, name);
}

CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *name = function_name(hfunc);
  return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// simcuda loads modules, not libraries: a CUlibrary is the CUmodule it
// stands for (the runtime passes its per-device module).
CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
  if (kernel == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUfunction function = nullptr;
  if (CUresult error = module_function(&function, reinterpret_cast<CUmodule>(library), name)) return error;
  *kernel = function_kernel(function);
  return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char** name, CUkernel hfunc) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *name = kernel_name(hfunc);
  return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuLaunchKernel(bool per_thread, CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void**, void**) {
  return enqueue_kernel({f, {gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ}, sharedMemBytes,
                         hStream, per_thread});
}

CUresult cuLaunchCooperativeKernel(bool per_thread, CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                   unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void**) {
  LaunchRequest request{f, {gridDimX, gridDimY, gridDimZ}, {blockDimX, blockDimY, blockDimZ}, sharedMemBytes,
                        hStream, per_thread};
  request.cooperative = true;
  return enqueue_kernel(request);
}

// The launch attributes simcuda models: cooperative and the cluster shape.
// Others (priority, access policy, programmatic serialisation...) are accepted
// and have no simulated effect.
CUresult cuLaunchKernelEx(bool per_thread, const CUlaunchConfig* config, CUfunction f, void**, void**) {
  if (config == nullptr || (config->numAttrs > 0 && config->attrs == nullptr)) return CUDA_ERROR_INVALID_VALUE;
  LaunchRequest request{f, {config->gridDimX, config->gridDimY, config->gridDimZ},
                        {config->blockDimX, config->blockDimY, config->blockDimZ}, config->sharedMemBytes,
                        config->hStream, per_thread};
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute& attribute = config->attrs[i];
    if (attribute.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
      request.cooperative = attribute.value.cooperative != 0;
    } else if (attribute.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      request.cluster[0] = attribute.value.clusterDim.x;
      request.cluster[1] = attribute.value.clusterDim.y;
      request.cluster[2] = attribute.value.clusterDim.z;
    }
  }
  return enqueue_kernel(request);
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod, const char* name) {
  return module_global(dptr, bytes, hmod, name);
}

// What simcuda tells about every kernel: 32 registers a thread, no static shared,
// constant or local memory, compiled for sm_90.
constexpr int kRegistersPerThread = 32;

CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
  if (pi == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (function_name(hfunc) == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (function_settable_attribute(hfunc, attrib, pi) == CUDA_SUCCESS) return CUDA_SUCCESS;
  switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = kRegistersPerThread; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: *pi = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The JIT linker: PTX inputs are joined into one module image (simcuda reads
// PTX's declarations, so linking is concatenation); a single cubin or fatbin
// input is the image itself. Unresolved externals are not checked.
CUresult cuLinkCreate_v2(unsigned int, CUjit_option*, void**, CUlinkState* stateOut) {
  if (stateOut == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return link_create(stateOut);
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data, size_t size, const char*, unsigned int,
                          CUjit_option*, void**) {
  return link_add(state, type, data, size);
}

CUresult cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) {
  return link_complete(state, cubinOut, sizeOut);
}

CUresult cuLinkDestroy(CUlinkState state) { return link_destroy(state); }

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  return function_set_attribute(hfunc, attrib, value);
}

CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) { return function_set_cache_config(hfunc, config); }

CUresult cuCtxSetLimit(CUlimit limit, size_t value) { return context_set_limit(limit, value); }

CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit) { return context_get_limit(limit, pvalue); }

CUresult cuCtxSetCacheConfig(CUfunc_cache config) { return context_set_cache_config(config); }

CUresult cuCtxGetCacheConfig(CUfunc_cache* pconfig) { return context_get_cache_config(pconfig); }

// Blocks of `block_size` threads resident on one SM of the simulated H100, limited
// by its threads (2048), registers (65536), shared memory and block slots (32).
int resident_blocks(int block_size, size_t dynamic_shared) {
  int by_threads = 2048 / block_size;
  int by_registers = 65536 / (kRegistersPerThread * block_size);
  int by_shared = dynamic_shared ? static_cast<int>(228 * 1024 / dynamic_shared) : 32;
  return std::max(0, std::min({32, by_threads, by_registers, by_shared}));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, CUfunction func, int blockSize,
                                                              size_t dynamicSMemSize, unsigned int) {
  if (numBlocks == nullptr || blockSize <= 0 || blockSize > 1024) return CUDA_ERROR_INVALID_VALUE;
  if (function_name(func) == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  *numBlocks = resident_blocks(blockSize, dynamicSMemSize);
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
  return impl::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

CUresult cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
                                          int blockSizeLimit) {
  if (minGridSize == nullptr || blockSize == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (function_name(func) == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  int limit = blockSizeLimit > 0 ? std::min(blockSizeLimit, 1024) : 1024;
  int best_size = 0, best_threads = -1;
  for (int size = 32; size <= limit; size += 32) {  // the largest block of the highest occupancy
    size_t shared = blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(size) : dynamicSMemSize;
    int threads = resident_blocks(size, shared) * size;
    if (threads >= best_threads) best_threads = threads, best_size = size;
  }
  int multiprocessors = 0;
  CUdevice device = 0;
  if (context_device(&device) == CUDA_SUCCESS) multiprocessors = device_info(device)->multiprocessors;
  *blockSize = best_size;
  *minGridSize = best_size ? best_threads / best_size * multiprocessors : 0;
  return CUDA_SUCCESS;
}

// Profiler start/stop only matter to an attached profiler; simcuda accepts them.
CUresult cuProfilerStart() { return require_init(); }

CUresult cuProfilerStop() { return require_init(); }

}  // namespace simcuda::impl
