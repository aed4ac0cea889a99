// Runtime state: the current device per thread, lazy initialisation of the driver and
// of each device's primary context, and the kernels registered by nvcc's static
// constructors (__cudaRegisterFatBinary / __cudaRegisterFunction).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

namespace simcuda_rt {

// The runtime's error codes match the driver's numerically for every error simcuda
// produces (cudaErrorInvalidValue = CUDA_ERROR_INVALID_VALUE = 1, ... 400, 700, 900).
cudaError_t from_driver(CUresult result);

// cuInit once per process; its failure is remembered like the real runtime does.
cudaError_t ensure_driver();
// Makes the primary context of the thread's current device current on this thread.
cudaError_t ensure_context();
int current_device();
cudaError_t set_current_device(int device);
void forget_context(int device);  // after cudaDeviceReset
cudaError_t take_last_error();
cudaError_t peek_last_error();

// The primary context of `device`, retained once by the runtime (peer copies and
// peer access name the other device's context).
cudaError_t device_context(int device, CUcontext* out);

// Fills the memory types and ends of a driver copy description (CUDA_MEMCPY2D or
// CUDA_MEMCPY3D) from a runtime copy kind; cudaMemcpyDefault lets the driver
// infer each end from its pointer.
template <typename Copy>
void set_copy_ends(Copy& c, void* dst, const void* src, cudaMemcpyKind kind) {
  bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  c.srcMemoryType = kind == cudaMemcpyDefault ? CU_MEMORYTYPE_UNIFIED : src_device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  c.dstMemoryType = kind == cudaMemcpyDefault ? CU_MEMORYTYPE_UNIFIED : dst_device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  c.srcHost = src;
  c.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  c.dstHost = dst;
  c.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
}

// ---- registered __device__ / __constant__ variables
void register_variable(void* fatbin, const void* host_shadow, const char* device_name, size_t bytes);
// The device address of the variable whose host shadow is `host_shadow`, on the
// current device (loading its module on first use); cudaErrorInvalidSymbol if none.
cudaError_t variable_address(const void* host_shadow, CUdeviceptr* address, size_t* bytes);

// ---- registered kernels
struct RegisteredKernel;
void* register_fatbinary();
void register_function(void* fatbin, const void* host_stub, const char* device_name);
// The kernel a host stub was registered for, or nullptr.
RegisteredKernel* kernel_for_stub(const void* host_stub);
const char* kernel_name(const RegisteredKernel* kernel);
const void* kernel_stub(const RegisteredKernel* kernel);  // the host stub it was registered for
// Bytes of one element of a live array of cudaMallocArray/cudaMalloc3DArray (1: unknown).
size_t array_element_bytes(const void* array);
// The host stub of the kernel a CUfunction of the runtime's modules is (nullptr: none).
const void* stub_of_function(CUfunction function);
// The driver function of `kernel` on the current device, loading its module on
// first use (CUDA's lazy loading); nests cuModuleLoadData/cuModuleGetFunction.
cudaError_t kernel_function(RegisteredKernel* kernel, CUfunction* out);
// What the real runtime launches with: the kernel's CUkernel handle
// (cuLibraryGetKernel, once per kernel and device).
cudaError_t kernel_launch_handle(RegisteredKernel* kernel, CUkernel* out);

}  // namespace simcuda_rt
