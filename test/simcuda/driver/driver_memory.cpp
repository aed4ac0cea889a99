// Exported driver API: allocation, copies and memsets (with their _ptds/_ptsz forms).
#include "api_trace.h"
#include "device_model.h"

using namespace simcuda;

namespace {

void* host_ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

CUresult copy_linear(void* dst, Side dst_side, const void* src, Side src_side, size_t bytes,
                     CUstream stream, bool per_thread, bool async) {
  CopyRequest request{dst, src, bytes};
  request.dst_side = dst_side;
  request.src_side = src_side;
  return enqueue_copy(request, stream, per_thread, async);
}

Side side_of(CUmemorytype type) {
  switch (type) {
    case CU_MEMORYTYPE_HOST: return Side::Host;
    case CU_MEMORYTYPE_DEVICE: return Side::Device;
    default: return Side::Any;  // UNIFIED: inferred from the pointer
  }
}

CUresult copy_2d(const CUDA_MEMCPY2D* c, CUstream stream, bool per_thread, bool async) {
  if (c == nullptr || c->srcMemoryType == CU_MEMORYTYPE_ARRAY || c->dstMemoryType == CU_MEMORYTYPE_ARRAY) {
    return CUDA_ERROR_INVALID_VALUE;  // CUDA arrays are not modelled
  }
  const char* src = c->srcMemoryType == CU_MEMORYTYPE_HOST ? static_cast<const char*>(c->srcHost)
                                                            : reinterpret_cast<const char*>(c->srcDevice);
  char* dst = c->dstMemoryType == CU_MEMORYTYPE_HOST ? static_cast<char*>(c->dstHost)
                                                      : reinterpret_cast<char*>(c->dstDevice);
  if (src == nullptr || dst == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CopyRequest request{dst + c->dstY * c->dstPitch + c->dstXInBytes,
                      src + c->srcY * c->srcPitch + c->srcXInBytes, c->WidthInBytes, c->Height,
                      c->dstPitch, c->srcPitch, side_of(c->dstMemoryType), side_of(c->srcMemoryType)};
  return enqueue_copy(request, stream, per_thread, async);
}

CUresult memset_2d(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned element_size, size_t width,
                   size_t height, CUstream stream, bool per_thread, bool async) {
  return enqueue_memset({dst, value, element_size, width, height, pitch}, stream, per_thread, async);
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  SIM_DRIVER_API(cuMemAlloc_v2, dptr, bytesize);
  SIM_RETURN(memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Device, nullptr, false));
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr) {
  SIM_DRIVER_API(cuMemFree_v2, dptr);
  if (dptr == 0) SIM_RETURN(CUDA_SUCCESS);
  SIM_RETURN(memory_free(host_ptr(dptr), MemoryKind::Device, nullptr, false));
}

CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int flags) {
  SIM_DRIVER_API(cuMemAllocManaged, dptr, bytesize, flags);
  SIM_RETURN(memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Managed, nullptr, false));
}

CUresult CUDAAPI cuMemAllocHost_v2(void** pp, size_t bytesize) {
  SIM_DRIVER_API(cuMemAllocHost_v2, pp, bytesize);
  SIM_RETURN(memory_allocate(pp, bytesize, MemoryKind::Pinned, nullptr, false));
}

CUresult CUDAAPI cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
  SIM_DRIVER_API(cuMemHostAlloc, pp, bytesize, Flags);
  SIM_RETURN(memory_allocate(pp, bytesize, MemoryKind::Pinned, nullptr, false));
}

CUresult CUDAAPI cuMemFreeHost(void* p) {
  SIM_DRIVER_API(cuMemFreeHost, p);
  if (p == nullptr) SIM_RETURN(CUDA_SUCCESS);
  SIM_RETURN(memory_free(p, MemoryKind::Pinned, nullptr, false));
}

CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  SIM_DRIVER_API(cuMemAllocAsync, dptr, bytesize, hStream);
  SIM_RETURN(memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Device,
                             hStream ? hStream : CU_STREAM_LEGACY, false));
}

CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  SIM_DRIVER_API(cuMemAllocAsync_ptsz, dptr, bytesize, hStream);
  SIM_RETURN(memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Device, hStream, true));
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  SIM_DRIVER_API(cuMemFreeAsync, dptr, hStream);
  SIM_RETURN(memory_free(host_ptr(dptr), MemoryKind::Device, hStream ? hStream : CU_STREAM_LEGACY, false));
}

CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) {
  SIM_DRIVER_API(cuMemFreeAsync_ptsz, dptr, hStream);
  SIM_RETURN(memory_free(host_ptr(dptr), MemoryKind::Device, hStream, true));
}

CUresult CUDAAPI cuMemGetInfo_v2(size_t* free, size_t* total) {
  SIM_DRIVER_API(cuMemGetInfo_v2, free, total);
  SIM_RETURN(memory_info(free, total));
}

CUresult CUDAAPI cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
  SIM_DRIVER_API(cuMemHostRegister_v2, p, bytesize, Flags);
  SIM_RETURN(host_register(p, bytesize));
}

CUresult CUDAAPI cuMemHostUnregister(void* p) {
  SIM_DRIVER_API(cuMemHostUnregister, p);
  SIM_RETURN(host_unregister(p));
}

CUresult CUDAAPI cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
  SIM_DRIVER_API(cuMemGetAddressRange_v2, pbase, psize, dptr);
  SIM_RETURN(address_range(pbase, psize, dptr));
}

CUresult CUDAAPI cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  SIM_DRIVER_API(cuPointerGetAttribute, data, attribute, ptr);
  if (data == nullptr) SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  CUmemorytype type;
  CUdevice device;
  if (CUresult error = pointer_memory_type(ptr, &type, &device)) SIM_RETURN(error);
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<CUmemorytype*>(data) = type; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = device; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = ptr; break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER: *static_cast<void**>(data) = host_ptr(ptr); break;
    default: SIM_RETURN(CUDA_ERROR_INVALID_VALUE);
  }
  SIM_RETURN(CUDA_SUCCESS);
}

// ---- copies
CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpy, dst, src, ByteCount);
  SIM_RETURN(copy_linear(host_ptr(dst), Side::Any, host_ptr(src), Side::Any, ByteCount, nullptr, false, false));
}
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpy_ptds, dst, src, ByteCount);
  SIM_RETURN(copy_linear(host_ptr(dst), Side::Any, host_ptr(src), Side::Any, ByteCount, nullptr, true, false));
}
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyAsync, dst, src, ByteCount, hStream);
  SIM_RETURN(copy_linear(host_ptr(dst), Side::Any, host_ptr(src), Side::Any, ByteCount, hStream, false, true));
}
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyAsync_ptsz, dst, src, ByteCount, hStream);
  SIM_RETURN(copy_linear(host_ptr(dst), Side::Any, host_ptr(src), Side::Any, ByteCount, hStream, true, true));
}

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpyHtoD_v2, dstDevice, srcHost, ByteCount);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, srcHost, Side::Host, ByteCount, nullptr, false, false));
}
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpyHtoD_v2_ptds, dstDevice, srcHost, ByteCount);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, srcHost, Side::Host, ByteCount, nullptr, true, false));
}
CUresult CUDAAPI cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpyDtoH_v2, dstHost, srcDevice, ByteCount);
  SIM_RETURN(copy_linear(dstHost, Side::Host, host_ptr(srcDevice), Side::Device, ByteCount, nullptr, false, false));
}
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpyDtoH_v2_ptds, dstHost, srcDevice, ByteCount);
  SIM_RETURN(copy_linear(dstHost, Side::Host, host_ptr(srcDevice), Side::Device, ByteCount, nullptr, true, false));
}
CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpyDtoD_v2, dstDevice, srcDevice, ByteCount);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, host_ptr(srcDevice), Side::Device, ByteCount, nullptr, false, false));
}
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  SIM_DRIVER_API(cuMemcpyDtoD_v2_ptds, dstDevice, srcDevice, ByteCount);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, host_ptr(srcDevice), Side::Device, ByteCount, nullptr, true, false));
}
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyHtoDAsync_v2, dstDevice, srcHost, ByteCount, hStream);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, srcHost, Side::Host, ByteCount, hStream, false, true));
}
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyHtoDAsync_v2_ptsz, dstDevice, srcHost, ByteCount, hStream);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, srcHost, Side::Host, ByteCount, hStream, true, true));
}
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyDtoHAsync_v2, dstHost, srcDevice, ByteCount, hStream);
  SIM_RETURN(copy_linear(dstHost, Side::Host, host_ptr(srcDevice), Side::Device, ByteCount, hStream, false, true));
}
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyDtoHAsync_v2_ptsz, dstHost, srcDevice, ByteCount, hStream);
  SIM_RETURN(copy_linear(dstHost, Side::Host, host_ptr(srcDevice), Side::Device, ByteCount, hStream, true, true));
}
CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyDtoDAsync_v2, dstDevice, srcDevice, ByteCount, hStream);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, host_ptr(srcDevice), Side::Device, ByteCount, hStream, false, true));
}
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpyDtoDAsync_v2_ptsz, dstDevice, srcDevice, ByteCount, hStream);
  SIM_RETURN(copy_linear(host_ptr(dstDevice), Side::Device, host_ptr(srcDevice), Side::Device, ByteCount, hStream, true, true));
}

CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy) {
  SIM_DRIVER_API(cuMemcpy2D_v2, pCopy);
  SIM_RETURN(copy_2d(pCopy, nullptr, false, false));
}
CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D* pCopy) {
  SIM_DRIVER_API(cuMemcpy2D_v2_ptds, pCopy);
  SIM_RETURN(copy_2d(pCopy, nullptr, true, false));
}
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* pCopy) {
  SIM_DRIVER_API(cuMemcpy2DUnaligned_v2, pCopy);
  SIM_RETURN(copy_2d(pCopy, nullptr, false, false));
}
CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D* pCopy) {
  SIM_DRIVER_API(cuMemcpy2DUnaligned_v2_ptds, pCopy);
  SIM_RETURN(copy_2d(pCopy, nullptr, true, false));
}
CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpy2DAsync_v2, pCopy, hStream);
  SIM_RETURN(copy_2d(pCopy, hStream, false, true));
}
CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  SIM_DRIVER_API(cuMemcpy2DAsync_v2_ptsz, pCopy, hStream);
  SIM_RETURN(copy_2d(pCopy, hStream, true, true));
}

// ---- memsets
CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  SIM_DRIVER_API(cuMemsetD8_v2, dstDevice, uc, N);
  SIM_RETURN(memset_2d(dstDevice, 0, uc, 1, N, 1, nullptr, false, false));
}
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  SIM_DRIVER_API(cuMemsetD8_v2_ptds, dstDevice, uc, N);
  SIM_RETURN(memset_2d(dstDevice, 0, uc, 1, N, 1, nullptr, true, false));
}
CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  SIM_DRIVER_API(cuMemsetD16_v2, dstDevice, us, N);
  SIM_RETURN(memset_2d(dstDevice, 0, us, 2, N, 1, nullptr, false, false));
}
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  SIM_DRIVER_API(cuMemsetD16_v2_ptds, dstDevice, us, N);
  SIM_RETURN(memset_2d(dstDevice, 0, us, 2, N, 1, nullptr, true, false));
}
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  SIM_DRIVER_API(cuMemsetD32_v2, dstDevice, ui, N);
  SIM_RETURN(memset_2d(dstDevice, 0, ui, 4, N, 1, nullptr, false, false));
}
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  SIM_DRIVER_API(cuMemsetD32_v2_ptds, dstDevice, ui, N);
  SIM_RETURN(memset_2d(dstDevice, 0, ui, 4, N, 1, nullptr, true, false));
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD8Async, dstDevice, uc, N, hStream);
  SIM_RETURN(memset_2d(dstDevice, 0, uc, 1, N, 1, hStream, false, true));
}
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD8Async_ptsz, dstDevice, uc, N, hStream);
  SIM_RETURN(memset_2d(dstDevice, 0, uc, 1, N, 1, hStream, true, true));
}
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD16Async, dstDevice, us, N, hStream);
  SIM_RETURN(memset_2d(dstDevice, 0, us, 2, N, 1, hStream, false, true));
}
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD16Async_ptsz, dstDevice, us, N, hStream);
  SIM_RETURN(memset_2d(dstDevice, 0, us, 2, N, 1, hStream, true, true));
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD32Async, dstDevice, ui, N, hStream);
  SIM_RETURN(memset_2d(dstDevice, 0, ui, 4, N, 1, hStream, false, true));
}
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD32Async_ptsz, dstDevice, ui, N, hStream);
  SIM_RETURN(memset_2d(dstDevice, 0, ui, 4, N, 1, hStream, true, true));
}
CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) {
  SIM_DRIVER_API(cuMemsetD2D8_v2, dstDevice, dstPitch, uc, Width, Height);
  SIM_RETURN(memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, nullptr, false, false));
}
CUresult CUDAAPI cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) {
  SIM_DRIVER_API(cuMemsetD2D8_v2_ptds, dstDevice, dstPitch, uc, Width, Height);
  SIM_RETURN(memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, nullptr, true, false));
}
CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD2D8Async, dstDevice, dstPitch, uc, Width, Height, hStream);
  SIM_RETURN(memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, hStream, false, true));
}
CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream) {
  SIM_DRIVER_API(cuMemsetD2D8Async_ptsz, dstDevice, dstPitch, uc, Width, Height, hStream);
  SIM_RETURN(memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, hStream, true, true));
}

}  // extern "C"
