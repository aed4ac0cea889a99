// Exported runtime API: allocation, copies and memsets. Each one makes the driver
// call(s) the real runtime makes, so they nest under it in CUPTI and the truth log.
#include "driver_per_thread.h"
#include "runtime_scope.h"
#include "runtime_state.h"

using namespace simcuda_rt;

namespace {

CUdeviceptr dptr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

CUresult copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream,
              bool async, bool per_thread) {
  switch (kind) {
    case cudaMemcpyHostToDevice:
      if (async) {
        return per_thread ? cuMemcpyHtoDAsync_v2_ptsz(dptr(dst), src, count, stream)
                          : cuMemcpyHtoDAsync(dptr(dst), src, count, stream);
      }
      return per_thread ? cuMemcpyHtoD_v2_ptds(dptr(dst), src, count) : cuMemcpyHtoD(dptr(dst), src, count);
    case cudaMemcpyDeviceToHost:
      if (async) {
        return per_thread ? cuMemcpyDtoHAsync_v2_ptsz(dst, dptr(src), count, stream)
                          : cuMemcpyDtoHAsync(dst, dptr(src), count, stream);
      }
      return per_thread ? cuMemcpyDtoH_v2_ptds(dst, dptr(src), count) : cuMemcpyDtoH(dst, dptr(src), count);
    case cudaMemcpyDeviceToDevice:
      if (async) {
        return per_thread ? cuMemcpyDtoDAsync_v2_ptsz(dptr(dst), dptr(src), count, stream)
                          : cuMemcpyDtoDAsync(dptr(dst), dptr(src), count, stream);
      }
      return per_thread ? cuMemcpyDtoD_v2_ptds(dptr(dst), dptr(src), count)
                        : cuMemcpyDtoD(dptr(dst), dptr(src), count);
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
      if (async) {
        return per_thread ? cuMemcpyAsync_ptsz(dptr(dst), dptr(src), count, stream)
                          : cuMemcpyAsync(dptr(dst), dptr(src), count, stream);
      }
      return per_thread ? cuMemcpy_ptds(dptr(dst), dptr(src), count) : cuMemcpy(dptr(dst), dptr(src), count);
  }
  return CUDA_ERROR_INVALID_VALUE;
}

cudaError_t checked_copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                         cudaStream_t stream, bool async, bool per_thread) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (count == 0) return cudaSuccess;
  if (cudaError_t error = ensure_context()) return error;
  return from_driver(copy(dst, src, count, kind, stream, async, per_thread));
}

cudaError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                    cudaMemcpyKind kind, cudaStream_t stream, bool async, bool per_thread) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  if (width == 0 || height == 0) return cudaSuccess;
  if (cudaError_t error = ensure_context()) return error;
  bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = kind == cudaMemcpyDefault ? CU_MEMORYTYPE_UNIFIED : src_device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  c.dstMemoryType = kind == cudaMemcpyDefault ? CU_MEMORYTYPE_UNIFIED : dst_device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  c.srcHost = src;
  c.srcDevice = dptr(src);
  c.srcPitch = spitch;
  c.dstHost = dst;
  c.dstDevice = dptr(dst);
  c.dstPitch = dpitch;
  c.WidthInBytes = width;
  c.Height = height;
  CUresult result;
  if (async) {
    result = per_thread ? cuMemcpy2DAsync_v2_ptsz(&c, stream) : cuMemcpy2DAsync(&c, stream);
  } else {
    result = per_thread ? cuMemcpy2D_v2_ptds(&c) : cuMemcpy2D(&c);
  }
  return from_driver(result);
}

cudaError_t fill(void* dst, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream,
                 bool async, bool per_thread) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (cudaError_t error = ensure_context()) return error;
  auto byte = static_cast<unsigned char>(value);
  CUresult result;
  if (height == 1) {
    if (async) {
      result = per_thread ? cuMemsetD8Async_ptsz(dptr(dst), byte, width, stream)
                          : cuMemsetD8Async(dptr(dst), byte, width, stream);
    } else {
      result = per_thread ? cuMemsetD8_v2_ptds(dptr(dst), byte, width) : cuMemsetD8(dptr(dst), byte, width);
    }
  } else if (async) {
    result = per_thread ? cuMemsetD2D8Async_ptsz(dptr(dst), pitch, byte, width, height, stream)
                        : cuMemsetD2D8Async(dptr(dst), pitch, byte, width, height, stream);
  } else {
    result = per_thread ? cuMemsetD2D8_v2_ptds(dptr(dst), pitch, byte, width, height)
                        : cuMemsetD2D8(dptr(dst), pitch, byte, width, height);
  }
  return from_driver(result);
}

}  // namespace

extern "C" {

cudaError_t CUDARTAPI cudaMalloc(void** devPtr, size_t size) {
  SIM_RUNTIME_API(cudaMalloc, v3020, devPtr, size);
  if (devPtr == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  *devPtr = nullptr;
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  if (size == 0) SIM_RETURN(cudaSuccess);  // the runtime returns a null pointer, no error
  SIM_TRY(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(devPtr), size));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  SIM_RUNTIME_API(cudaMallocPitch, v3020, devPtr, pitch, width, height);
  if (devPtr == nullptr || pitch == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  *pitch = (width + 511) / 512 * 512;  // the texture pitch alignment of the simulated device
  if (*pitch * height == 0) {
    *devPtr = nullptr;
    SIM_RETURN(cudaSuccess);
  }
  SIM_TRY(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(devPtr), *pitch * height));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  SIM_RUNTIME_API(cudaMallocManaged, v6000, devPtr, size, flags);
  if (devPtr == nullptr || size == 0) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemAllocManaged(reinterpret_cast<CUdeviceptr*>(devPtr), size, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFree(void* devPtr) {
  SIM_RUNTIME_API(cudaFree, v3020, devPtr);
  // cudaFree(nullptr) is the classic way to force context creation.
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  if (devPtr == nullptr) SIM_RETURN(cudaSuccess);
  SIM_TRY(cuMemFree(dptr(devPtr)));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size) {
  SIM_RUNTIME_API(cudaMallocHost, v3020, ptr, size);
  if (ptr == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  if (size == 0) {
    *ptr = nullptr;
    SIM_RETURN(cudaSuccess);
  }
  SIM_TRY(cuMemAllocHost(ptr, size));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  SIM_RUNTIME_API(cudaHostAlloc, v3020, pHost, size, flags);
  if (pHost == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemHostAlloc(pHost, size, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  SIM_RUNTIME_API(cudaFreeHost, v3020, ptr);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  if (ptr == nullptr) SIM_RETURN(cudaSuccess);
  SIM_TRY(cuMemFreeHost(ptr));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  SIM_RUNTIME_API(cudaHostRegister, v4000, ptr, size, flags);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemHostRegister(ptr, size, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaHostUnregister(void* ptr) {
  SIM_RUNTIME_API(cudaHostUnregister, v4000, ptr);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemHostUnregister(ptr));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMallocAsync(void** devPtr, size_t size, cudaStream_t hStream) {
  SIM_RUNTIME_API(cudaMallocAsync, v11020, devPtr, size, hStream);
  if (devPtr == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemAllocAsync(reinterpret_cast<CUdeviceptr*>(devPtr), size, hStream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t hStream) {
  SIM_RUNTIME_API(cudaMallocAsync_ptsz, v11020, devPtr, size, hStream);
  if (devPtr == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemAllocAsync_ptsz(reinterpret_cast<CUdeviceptr*>(devPtr), size, hStream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFreeAsync(void* devPtr, cudaStream_t hStream) {
  SIM_RUNTIME_API(cudaFreeAsync, v11020, devPtr, hStream);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemFreeAsync(dptr(devPtr), hStream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaFreeAsync_ptsz(void* devPtr, cudaStream_t hStream) {
  SIM_RUNTIME_API(cudaFreeAsync_ptsz, v11020, devPtr, hStream);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemFreeAsync_ptsz(dptr(devPtr), hStream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free, size_t* total) {
  SIM_RUNTIME_API(cudaMemGetInfo, v3020, free, total);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  SIM_TRY(cuMemGetInfo(free, total));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  SIM_RUNTIME_API(cudaPointerGetAttributes, v4000, attributes, ptr);
  if (attributes == nullptr) SIM_RETURN(cudaErrorInvalidValue);
  if (cudaError_t error = ensure_context()) SIM_RETURN(error);
  *attributes = {};
  CUmemorytype type;
  int device = -1;
  if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr(ptr)) != CUDA_SUCCESS) {
    attributes->type = cudaMemoryTypeUnregistered;  // plain pageable host memory
    attributes->hostPointer = const_cast<void*>(ptr);
    SIM_RETURN(cudaSuccess);
  }
  cuPointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dptr(ptr));
  attributes->type = type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice : cudaMemoryTypeHost;
  attributes->device = device;
  attributes->devicePointer = const_cast<void*>(ptr);
  attributes->hostPointer = type == CU_MEMORYTYPE_DEVICE ? nullptr : const_cast<void*>(ptr);
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  SIM_RUNTIME_API(cudaMemcpy, v3020, dst, src, count, kind);
  SIM_RETURN(checked_copy(dst, src, count, kind, nullptr, false, false));
}

cudaError_t CUDARTAPI cudaMemcpy_ptds(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  SIM_RUNTIME_API(cudaMemcpy_ptds, v7000, dst, src, count, kind);
  SIM_RETURN(checked_copy(dst, src, count, kind, nullptr, false, true));
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemcpyAsync, v3020, dst, src, count, kind, stream);
  SIM_RETURN(checked_copy(dst, src, count, kind, stream, true, false));
}

cudaError_t CUDARTAPI cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                           cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemcpyAsync_ptsz, v7000, dst, src, count, kind, stream);
  SIM_RETURN(checked_copy(dst, src, count, kind, stream, true, true));
}

cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind) {
  SIM_RUNTIME_API(cudaMemcpy2D, v3020, dst, dpitch, src, spitch, width, height, kind);
  SIM_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false, false));
}

cudaError_t CUDARTAPI cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, enum cudaMemcpyKind kind) {
  SIM_RUNTIME_API(cudaMemcpy2D_ptds, v7000, dst, dpitch, src, spitch, width, height, kind);
  SIM_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false, true));
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, enum cudaMemcpyKind kind,
                                        cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemcpy2DAsync, v3020, dst, dpitch, src, spitch, width, height, kind, stream);
  SIM_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true, false));
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync_ptsz(void* dst, size_t dpitch, const void* src, size_t spitch,
                                             size_t width, size_t height, enum cudaMemcpyKind kind,
                                             cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemcpy2DAsync_ptsz, v7000, dst, dpitch, src, spitch, width, height, kind, stream);
  SIM_RETURN(copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true, true));
}

cudaError_t CUDARTAPI cudaMemset(void* devPtr, int value, size_t count) {
  SIM_RUNTIME_API(cudaMemset, v3020, devPtr, value, count);
  SIM_RETURN(fill(devPtr, 0, value, count, 1, nullptr, false, false));
}

cudaError_t CUDARTAPI cudaMemset_ptds(void* devPtr, int value, size_t count) {
  SIM_RUNTIME_API(cudaMemset_ptds, v7000, devPtr, value, count);
  SIM_RETURN(fill(devPtr, 0, value, count, 1, nullptr, false, true));
}

cudaError_t CUDARTAPI cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemsetAsync, v3020, devPtr, value, count, stream);
  SIM_RETURN(fill(devPtr, 0, value, count, 1, stream, true, false));
}

cudaError_t CUDARTAPI cudaMemsetAsync_ptsz(void* devPtr, int value, size_t count, cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemsetAsync_ptsz, v7000, devPtr, value, count, stream);
  SIM_RETURN(fill(devPtr, 0, value, count, 1, stream, true, true));
}

cudaError_t CUDARTAPI cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  SIM_RUNTIME_API(cudaMemset2D, v3020, devPtr, pitch, value, width, height);
  SIM_RETURN(fill(devPtr, pitch, value, width, height, nullptr, false, false));
}

cudaError_t CUDARTAPI cudaMemset2D_ptds(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  SIM_RUNTIME_API(cudaMemset2D_ptds, v7000, devPtr, pitch, value, width, height);
  SIM_RETURN(fill(devPtr, pitch, value, width, height, nullptr, false, true));
}

cudaError_t CUDARTAPI cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height,
                                        cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemset2DAsync, v3020, devPtr, pitch, value, width, height, stream);
  SIM_RETURN(fill(devPtr, pitch, value, width, height, stream, true, false));
}

cudaError_t CUDARTAPI cudaMemset2DAsync_ptsz(void* devPtr, size_t pitch, int value, size_t width,
                                             size_t height, cudaStream_t stream) {
  SIM_RUNTIME_API(cudaMemset2DAsync_ptsz, v7000, devPtr, pitch, value, width, height, stream);
  SIM_RETURN(fill(devPtr, pitch, value, width, height, stream, true, true));
}

}  // extern "C"
