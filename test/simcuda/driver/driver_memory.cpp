// Driver API bodies (see driver_impl.h): allocation, copies and memsets.
#include "device_model.h"
#include "driver_impl.h"

using namespace simcuda;

namespace {

void* host_ptr(CUdeviceptr p) { return reinterpret_cast<void*>(p); }

// The stream a stream-ordered allocation or free is ordered on: a null handle is
// the legacy stream, or the per-thread one for the _ptsz forms.
CUstream ordered_on(CUstream stream, bool per_thread) {
  return stream != nullptr || per_thread ? stream : CU_STREAM_LEGACY;
}

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

// One end of a 2D copy: its first byte and pitch. An array end is its rows
// (the copy must lie within them).
CUresult copy_end(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array, size_t x, size_t y,
                  size_t pitch, size_t width, size_t height, char** start, size_t* start_pitch) {
  if (type == CU_MEMORYTYPE_ARRAY) {
    char* base = nullptr;
    size_t rows = 0;
    if (CUresult error = array_rows(array, &base, start_pitch, &rows)) return error;
    if (x + width > *start_pitch || y + height > rows) return CUDA_ERROR_INVALID_VALUE;
    *start = base + y * *start_pitch + x;
    return CUDA_SUCCESS;
  }
  char* base = type == CU_MEMORYTYPE_HOST ? static_cast<char*>(const_cast<void*>(host)) : reinterpret_cast<char*>(device);
  if (base == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *start = base + y * pitch + x;
  *start_pitch = pitch;
  return CUDA_SUCCESS;
}

CUresult copy_2d(const CUDA_MEMCPY2D* c, CUstream stream, bool per_thread, bool async) {
  if (c == nullptr) return CUDA_ERROR_INVALID_VALUE;
  char *src = nullptr, *dst = nullptr;
  size_t src_pitch = 0, dst_pitch = 0;
  if (CUresult error = copy_end(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes, c->srcY,
                                c->srcPitch, c->WidthInBytes, c->Height, &src, &src_pitch)) {
    return error;
  }
  if (CUresult error = copy_end(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY,
                                c->dstPitch, c->WidthInBytes, c->Height, &dst, &dst_pitch)) {
    return error;
  }
  CopyRequest request{dst, src, c->WidthInBytes, c->Height, dst_pitch, src_pitch, side_of(c->dstMemoryType),
                      side_of(c->srcMemoryType)};
  return enqueue_copy(request, stream, per_thread, async);
}

CUresult memset_2d(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned element_size, size_t width,
                   size_t height, CUstream stream, bool per_thread, bool async) {
  return enqueue_memset({dst, value, element_size, width, height, pitch}, stream, per_thread, async);
}

}  // namespace

namespace simcuda::impl {

CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
  return memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Device, nullptr, false);
}

CUresult cuMemFree_v2(CUdeviceptr dptr) {
  if (dptr == 0) return CUDA_SUCCESS;
  return memory_free(host_ptr(dptr), MemoryKind::Device, nullptr, false);
}

CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytesize, unsigned int) {
  return memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Managed, nullptr, false);
}

CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) {
  return memory_allocate(pp, bytesize, MemoryKind::Pinned, nullptr, false);
}

CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int) {
  return memory_allocate(pp, bytesize, MemoryKind::Pinned, nullptr, false);
}

CUresult cuMemFreeHost(void* p) {
  if (p == nullptr) return CUDA_SUCCESS;
  return memory_free(p, MemoryKind::Pinned, nullptr, false);
}

CUresult cuMemAllocAsync(bool per_thread, CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
  return memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Device, ordered_on(hStream, per_thread),
                         per_thread);
}

CUresult cuMemFreeAsync(bool per_thread, CUdeviceptr dptr, CUstream hStream) {
  return memory_free(host_ptr(dptr), MemoryKind::Device, ordered_on(hStream, per_thread), per_thread);
}

CUresult cuMemAllocFromPoolAsync(bool per_thread, CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream hStream) {
  if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return memory_allocate(reinterpret_cast<void**>(dptr), bytesize, MemoryKind::Device, ordered_on(hStream, per_thread),
                         per_thread, pool);
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool_out, CUdevice dev) { return pool_default(pool_out, dev); }

CUresult cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* poolProps) { return pool_create(pool, poolProps); }

CUresult cuMemPoolDestroy(CUmemoryPool pool) { return pool_destroy(pool); }

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  return pool_set_attribute(pool, attr, value);
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
  return pool_get_attribute(pool, attr, value);
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) { return pool_trim(pool, minBytesToKeep); }

CUresult cuMemGetAllocationGranularity(size_t* granularity, const CUmemAllocationProp* prop,
                                       CUmemAllocationGranularity_flags) {
  return vmm_granularity(granularity, prop);
}

CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                     unsigned long long) {
  return vmm_create(handle, size, prop);
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) { return vmm_release(handle); }

CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long) {
  return vmm_reserve(ptr, size, alignment, addr);
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) { return vmm_free(ptr, size); }

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return vmm_map(ptr, size, offset, handle);
}

CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
  return vmm_set_access(ptr, size, desc, count);
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) { return vmm_unmap(ptr, size); }

CUresult cuArrayCreate_v2(CUarray* pHandle, const CUDA_ARRAY_DESCRIPTOR* pAllocateArray) {
  if (pAllocateArray == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUDA_ARRAY3D_DESCRIPTOR shape{};
  shape.Width = pAllocateArray->Width;
  shape.Height = pAllocateArray->Height;
  shape.Format = pAllocateArray->Format;
  shape.NumChannels = pAllocateArray->NumChannels;
  return array_create(pHandle, shape);
}

CUresult cuArray3DCreate_v2(CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray) {
  if (pAllocateArray == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return array_create(pHandle, *pAllocateArray);
}

CUresult cuArrayDestroy(CUarray hArray) { return array_destroy(hArray); }

// The texture description (filtering, addressing) changes nothing without device code.
CUresult cuTexObjectCreate(CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc, const CUDA_TEXTURE_DESC* pTexDesc,
                           const CUDA_RESOURCE_VIEW_DESC*) {
  if (pTexDesc == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return texture_create(pTexObject, pResDesc);
}

CUresult cuTexObjectDestroy(CUtexObject texObject) { return texture_destroy(texObject); }

CUresult cuSurfObjectCreate(CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc) {
  return surface_create(pSurfObject, pResDesc);
}

CUresult cuSurfObjectDestroy(CUsurfObject surfObject) { return surface_destroy(surfObject); }

CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
  return memory_info(free, total);
}

CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int) {
  return host_register(p, bytesize);
}

CUresult cuMemHostUnregister(void* p) {
  return host_unregister(p);
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
  return address_range(pbase, psize, dptr);
}

namespace {

// One attribute of a pointer cuPointerGetAttribute(s) knows (`info` null: the
// pointer is not CUDA's, and cuPointerGetAttributes answers with NULL values).
CUresult pointer_attribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr, const PointerInfo* info) {
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *static_cast<CUmemorytype*>(data) = info ? info->type : CUmemorytype{}; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = info ? info->device : -2; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = info ? ptr : 0; break;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER: *static_cast<void**>(data) = info ? host_ptr(ptr) : nullptr; break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data) = info ? info->base : 0; break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<size_t*>(data) = info ? info->bytes : 0; break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<int*>(data) = info && info->managed; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

}  // namespace

CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  PointerInfo info{};
  if (CUresult error = pointer_info(ptr, &info)) return error;
  return pointer_attribute(data, attribute, ptr, &info);
}

// Unlike cuPointerGetAttribute, not an error for a pointer CUDA does not know
// (its documentation): every attribute gets its NULL value.
CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute* attributes, void** data,
                                CUdeviceptr ptr) {
  if (numAttributes == 0 || attributes == nullptr || data == nullptr) return CUDA_ERROR_INVALID_VALUE;
  PointerInfo info{};
  const bool known = pointer_info(ptr, &info) == CUDA_SUCCESS;
  for (unsigned i = 0; i < numAttributes; ++i) {
    if (data[i] == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult error = pointer_attribute(data[i], attributes[i], ptr, known ? &info : nullptr)) return error;
  }
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
  if (pdptr == nullptr || Flags != 0) return CUDA_ERROR_INVALID_VALUE;
  CUmemorytype type;
  CUdevice device;
  if (pointer_memory_type(reinterpret_cast<CUdeviceptr>(p), &type, &device) != CUDA_SUCCESS ||
      type != CU_MEMORYTYPE_HOST) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pdptr = reinterpret_cast<CUdeviceptr>(p);  // unified addressing: one address for host and device
  return CUDA_SUCCESS;
}

CUresult cuMemPrefetchAsync_v2(bool per_thread, CUdeviceptr devPtr, size_t count, CUmemLocation, unsigned int,
                               CUstream hStream) {
  return check_managed_range(devPtr, count, hStream, per_thread);
}

CUresult cuStreamAttachMemAsync(bool per_thread, CUstream hStream, CUdeviceptr dptr, size_t length, unsigned int) {
  return check_managed_range(dptr, length ? length : 1, hStream, per_thread);
}

// ---- copies
CUresult cuMemcpy(bool per_thread, CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return copy_linear(host_ptr(dst), Side::Any, host_ptr(src), Side::Any, ByteCount, nullptr, per_thread, false);
}
CUresult cuMemcpyAsync(bool per_thread, CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return copy_linear(host_ptr(dst), Side::Any, host_ptr(src), Side::Any, ByteCount, hStream, per_thread, true);
}

CUresult cuMemcpyHtoD_v2(bool per_thread, CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
  return copy_linear(host_ptr(dstDevice), Side::Device, srcHost, Side::Host, ByteCount, nullptr, per_thread, false);
}
CUresult cuMemcpyDtoH_v2(bool per_thread, void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy_linear(dstHost, Side::Host, host_ptr(srcDevice), Side::Device, ByteCount, nullptr, per_thread, false);
}
CUresult cuMemcpyDtoD_v2(bool per_thread, CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy_linear(host_ptr(dstDevice), Side::Device, host_ptr(srcDevice), Side::Device, ByteCount, nullptr, per_thread, false);
}
CUresult cuMemcpyHtoDAsync_v2(bool per_thread, CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount, CUstream hStream) {
  return copy_linear(host_ptr(dstDevice), Side::Device, srcHost, Side::Host, ByteCount, hStream, per_thread, true);
}
CUresult cuMemcpyDtoHAsync_v2(bool per_thread, void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return copy_linear(dstHost, Side::Host, host_ptr(srcDevice), Side::Device, ByteCount, hStream, per_thread, true);
}
CUresult cuMemcpyDtoDAsync_v2(bool per_thread, CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return copy_linear(host_ptr(dstDevice), Side::Device, host_ptr(srcDevice), Side::Device, ByteCount, hStream, per_thread, true);
}

CUresult cuMemcpy2D_v2(bool per_thread, const CUDA_MEMCPY2D* pCopy) {
  return copy_2d(pCopy, nullptr, per_thread, false);
}
CUresult cuMemcpy2DUnaligned_v2(bool per_thread, const CUDA_MEMCPY2D* pCopy) {
  return copy_2d(pCopy, nullptr, per_thread, false);
}
CUresult cuMemcpy2DAsync_v2(bool per_thread, const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  return copy_2d(pCopy, hStream, per_thread, true);
}

CUresult cuMemcpyPeer(bool per_thread, CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                      CUcontext srcContext, size_t ByteCount) {
  return enqueue_peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, nullptr, per_thread, false);
}
CUresult cuMemcpyPeerAsync(bool per_thread, CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
                           CUcontext srcContext, size_t ByteCount, CUstream hStream) {
  return enqueue_peer_copy(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, per_thread, true);
}

// ---- graph copy and memset nodes
namespace {

// One end of a 3D copy: its first byte, pitch and slice pitch. An array end
// is its rows, a slice its height's worth (the copy must lie within them).
CUresult copy_end_3d(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array, size_t x, size_t y,
                     size_t z, size_t pitch, size_t height, const CUDA_MEMCPY3D& c, char** start,
                     size_t* start_pitch, size_t* slice) {
  size_t rows_per_slice = c.Height ? c.Height : 1;
  if (type == CU_MEMORYTYPE_ARRAY) {
    char* base = nullptr;
    size_t rows = 0, slice_rows = 0;
    if (CUresult error = array_rows(array, &base, start_pitch, &rows, &slice_rows)) return error;
    size_t depth = c.Depth ? c.Depth : 1;
    if (x + c.WidthInBytes > *start_pitch || y + rows_per_slice > slice_rows || (z + depth) * slice_rows > rows) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    *slice = slice_rows * *start_pitch;
    *start = base + z * *slice + y * *start_pitch + x;
    return CUDA_SUCCESS;
  }
  char* base = type == CU_MEMORYTYPE_HOST ? static_cast<char*>(const_cast<void*>(host)) : reinterpret_cast<char*>(device);
  if (base == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *start_pitch = pitch ? pitch : c.WidthInBytes;
  *slice = *start_pitch * (height ? height : rows_per_slice);
  *start = base + z * *slice + y * *start_pitch + x;
  return CUDA_SUCCESS;
}

// A graph copy node's description (CUDA_MEMCPY3D: pointer or array ends, any depth).
CUresult copy_request_3d(const CUDA_MEMCPY3D* c, CopyRequest* request) {
  if (c == nullptr || c->WidthInBytes == 0) return CUDA_ERROR_INVALID_VALUE;
  char *src = nullptr, *dst = nullptr;
  size_t src_pitch = 0, dst_pitch = 0, src_slice = 0, dst_slice = 0;
  if (CUresult error = copy_end_3d(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes, c->srcY,
                                   c->srcZ, c->srcPitch, c->srcHeight, *c, &src, &src_pitch, &src_slice)) {
    return error;
  }
  if (CUresult error = copy_end_3d(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY,
                                   c->dstZ, c->dstPitch, c->dstHeight, *c, &dst, &dst_pitch, &dst_slice)) {
    return error;
  }
  *request = CopyRequest{dst, src, c->WidthInBytes, c->Height ? c->Height : 1, dst_pitch, src_pitch,
                         side_of(c->dstMemoryType), side_of(c->srcMemoryType)};
  request->depth = c->Depth ? c->Depth : 1;
  request->dst_slice = dst_slice;
  request->src_slice = src_slice;
  return CUDA_SUCCESS;
}

MemsetRequest memset_request(const CUDA_MEMSET_NODE_PARAMS& p) {
  return {p.dst, p.value, p.elementSize, p.width, p.height, p.pitch};
}

}  // namespace

CUresult cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                              size_t numDependencies, const CUDA_MEMCPY3D* c, CUcontext) {
  CopyRequest request{};
  if (CUresult error = copy_request_3d(c, &request)) return error;
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_copy(phGraphNode, hGraph, request, *c); });
}

CUresult cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                              size_t numDependencies, const CUDA_MEMSET_NODE_PARAMS* p, CUcontext) {
  if (p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_memset(phGraphNode, hGraph, memset_request(*p), *p); });
}

CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D* nodeParams) {
  CopyRequest request{};
  if (CUresult error = copy_request_3d(nodeParams, &request)) return error;
  return graph_set_copy(nullptr, hNode, request, *nodeParams);
}

CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D* nodeParams) {
  return graph_get_copy(hNode, nodeParams);
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_MEMCPY3D* copyParams,
                                        CUcontext) {
  CopyRequest request{};
  if (hGraphExec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = copy_request_3d(copyParams, &request)) return error;
  return graph_set_copy(hGraphExec, hNode, request, *copyParams);
}

CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_set_memset(nullptr, hNode, memset_request(*nodeParams), *nodeParams);
}

CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS* nodeParams) {
  return graph_get_memset(hNode, nodeParams);
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext) {
  if (memsetParams == nullptr || hGraphExec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_set_memset(hGraphExec, hNode, memset_request(*memsetParams), *memsetParams);
}

// ---- memsets
CUresult cuMemsetD8_v2(bool per_thread, CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memset_2d(dstDevice, 0, uc, 1, N, 1, nullptr, per_thread, false);
}
CUresult cuMemsetD16_v2(bool per_thread, CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memset_2d(dstDevice, 0, us, 2, N, 1, nullptr, per_thread, false);
}
CUresult cuMemsetD32_v2(bool per_thread, CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memset_2d(dstDevice, 0, ui, 4, N, 1, nullptr, per_thread, false);
}
CUresult cuMemsetD8Async(bool per_thread, CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return memset_2d(dstDevice, 0, uc, 1, N, 1, hStream, per_thread, true);
}
CUresult cuMemsetD16Async(bool per_thread, CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return memset_2d(dstDevice, 0, us, 2, N, 1, hStream, per_thread, true);
}
CUresult cuMemsetD32Async(bool per_thread, CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return memset_2d(dstDevice, 0, ui, 4, N, 1, hStream, per_thread, true);
}
CUresult cuMemsetD2D8_v2(bool per_thread, CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) {
  return memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, nullptr, per_thread, false);
}
CUresult cuMemsetD2D8Async(bool per_thread, CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream) {
  return memset_2d(dstDevice, dstPitch, uc, 1, Width, Height, hStream, per_thread, true);
}

}  // namespace simcuda::impl
