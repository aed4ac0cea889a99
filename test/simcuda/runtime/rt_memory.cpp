// Runtime API bodies (see runtime_impl.h): allocation, copies and memsets. Each one
// makes the driver call(s) the real runtime makes, so they nest under it in CUPTI
// and the truth log.
#include <mutex>
#include <unordered_map>

#include "driver_per_thread.h"
#include "runtime_impl.h"
#include "runtime_scope.h"

namespace simcuda_rt {
namespace {

CUdeviceptr dptr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

CUresult copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream,
              bool async, bool per_thread) {
  switch (kind) {
    case cudaMemcpyHostToDevice:
      return async ? SIM_PT(cuMemcpyHtoDAsync_v2, ptsz)(dptr(dst), src, count, stream)
                   : SIM_PT(cuMemcpyHtoD_v2, ptds)(dptr(dst), src, count);
    case cudaMemcpyDeviceToHost:
      return async ? SIM_PT(cuMemcpyDtoHAsync_v2, ptsz)(dst, dptr(src), count, stream)
                   : SIM_PT(cuMemcpyDtoH_v2, ptds)(dst, dptr(src), count);
    case cudaMemcpyDeviceToDevice:
      return async ? SIM_PT(cuMemcpyDtoDAsync_v2, ptsz)(dptr(dst), dptr(src), count, stream)
                   : SIM_PT(cuMemcpyDtoD_v2, ptds)(dptr(dst), dptr(src), count);
    case cudaMemcpyHostToHost:
    case cudaMemcpyDefault:
      return async ? SIM_PT(cuMemcpyAsync, ptsz)(dptr(dst), dptr(src), count, stream)
                   : SIM_PT(cuMemcpy, ptds)(dptr(dst), dptr(src), count);
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
  CUDA_MEMCPY2D c{};
  set_copy_ends(c, dst, src, kind);
  c.srcPitch = spitch;
  c.dstPitch = dpitch;
  c.WidthInBytes = width;
  c.Height = height;
  return from_driver(async ? SIM_PT(cuMemcpy2DAsync_v2, ptsz)(&c, stream) : SIM_PT(cuMemcpy2D_v2, ptds)(&c));
}

cudaError_t fill(void* dst, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream,
                 bool async, bool per_thread) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (cudaError_t error = ensure_context()) return error;
  auto byte = static_cast<unsigned char>(value);
  if (height == 1) {
    return from_driver(async ? SIM_PT(cuMemsetD8Async, ptsz)(dptr(dst), byte, width, stream)
                             : SIM_PT(cuMemsetD8_v2, ptds)(dptr(dst), byte, width));
  }
  return from_driver(async ? SIM_PT(cuMemsetD2D8Async, ptsz)(dptr(dst), pitch, byte, width, height, stream)
                           : SIM_PT(cuMemsetD2D8_v2, ptds)(dptr(dst), pitch, byte, width, height));
}

}  // namespace

namespace impl {

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (devPtr == nullptr) return cudaErrorInvalidValue;
  *devPtr = nullptr;
  if (cudaError_t error = ensure_context()) return error;
  if (size == 0) return cudaSuccess;  // the runtime returns a null pointer, no error
  SIM_TRY(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(devPtr), size));
  return cudaSuccess;
}

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (devPtr == nullptr || pitch == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_context()) return error;
  *pitch = (width + 511) / 512 * 512;  // the texture pitch alignment of the simulated device
  if (*pitch * height == 0) {
    *devPtr = nullptr;
    return cudaSuccess;
  }
  SIM_TRY(cuMemAlloc(reinterpret_cast<CUdeviceptr*>(devPtr), *pitch * height));
  return cudaSuccess;
}

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  if (devPtr == nullptr || size == 0) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuMemAllocManaged(reinterpret_cast<CUdeviceptr*>(devPtr), size, flags));
  return cudaSuccess;
}

cudaError_t cudaFree(void* devPtr) {
  // cudaFree(nullptr) is the classic way to force context creation.
  if (cudaError_t error = ensure_context()) return error;
  if (devPtr == nullptr) return cudaSuccess;
  SIM_TRY(cuMemFree(dptr(devPtr)));
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  if (ptr == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_context()) return error;
  if (size == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  SIM_TRY(cuMemAllocHost(ptr, size));
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  if (pHost == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuMemHostAlloc(pHost, size, flags));
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  if (cudaError_t error = ensure_context()) return error;
  if (ptr == nullptr) return cudaSuccess;
  SIM_TRY(cuMemFreeHost(ptr));
  return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuMemHostRegister(ptr, size, flags));
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuMemHostUnregister(ptr));
  return cudaSuccess;
}

cudaError_t cudaMallocAsync(bool per_thread, void** devPtr, size_t size, cudaStream_t hStream) {
  if (devPtr == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(SIM_PT(cuMemAllocAsync, ptsz)(reinterpret_cast<CUdeviceptr*>(devPtr), size, hStream));
  return cudaSuccess;
}

cudaError_t cudaFreeAsync(bool per_thread, void* devPtr, cudaStream_t hStream) {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(SIM_PT(cuMemFreeAsync, ptsz)(dptr(devPtr), hStream));
  return cudaSuccess;
}

cudaError_t cudaMallocFromPoolAsync(bool per_thread, void** ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream) {
  if (ptr == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(SIM_PT(cuMemAllocFromPoolAsync, ptsz)(reinterpret_cast<CUdeviceptr*>(ptr), size, memPool, stream));
  return cudaSuccess;
}

// cudaMemPool_t is CUmemoryPool; cudaMemPoolProps and cudaMemPoolAttr are the
// driver's CUmemPoolProps and CUmemPool_attribute.
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  if (cudaError_t error = ensure_driver()) return error;
  return from_driver(cuDeviceGetDefaultMemPool(memPool, device));
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* memPool, const struct cudaMemPoolProps* poolProps) {
  static_assert(sizeof(cudaMemPoolProps) == sizeof(CUmemPoolProps), "pool properties differ");
  if (cudaError_t error = ensure_driver()) return error;
  return from_driver(cuMemPoolCreate(memPool, reinterpret_cast<const CUmemPoolProps*>(poolProps)));
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) { return from_driver(cuMemPoolDestroy(memPool)); }

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  return from_driver(cuMemPoolSetAttribute(memPool, static_cast<CUmemPool_attribute>(attr), value));
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  return from_driver(cuMemPoolGetAttribute(memPool, static_cast<CUmemPool_attribute>(attr), value));
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
  return from_driver(cuMemPoolTrimTo(memPool, minBytesToKeep));
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (cudaError_t error = ensure_context()) return error;
  SIM_TRY(cuMemGetInfo(free, total));
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes* attributes, const void* ptr) {
  if (attributes == nullptr) return cudaErrorInvalidValue;
  if (cudaError_t error = ensure_context()) return error;
  *attributes = {};
  CUmemorytype type;
  int device = -1;
  if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dptr(ptr)) != CUDA_SUCCESS) {
    attributes->type = cudaMemoryTypeUnregistered;  // plain pageable host memory
    attributes->hostPointer = const_cast<void*>(ptr);
    return cudaSuccess;
  }
  cuPointerGetAttribute(&device, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dptr(ptr));
  attributes->type = type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice : cudaMemoryTypeHost;
  attributes->device = device;
  attributes->devicePointer = const_cast<void*>(ptr);
  attributes->hostPointer = type == CU_MEMORYTYPE_DEVICE ? nullptr : const_cast<void*>(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(bool per_thread, void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  return checked_copy(dst, src, count, kind, nullptr, false, per_thread);
}

cudaError_t cudaMemcpyAsync(bool per_thread, void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  return checked_copy(dst, src, count, kind, stream, true, per_thread);
}

cudaError_t cudaMemcpy2D(bool per_thread, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false, per_thread);
}

cudaError_t cudaMemcpy2DAsync(bool per_thread, void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, enum cudaMemcpyKind kind,
                                        cudaStream_t stream) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true, per_thread);
}

cudaError_t cudaMemset(bool per_thread, void* devPtr, int value, size_t count) {
  return fill(devPtr, 0, value, count, 1, nullptr, false, per_thread);
}

cudaError_t cudaMemsetAsync(bool per_thread, void* devPtr, int value, size_t count, cudaStream_t stream) {
  return fill(devPtr, 0, value, count, 1, stream, true, per_thread);
}

cudaError_t cudaMemset2D(bool per_thread, void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  return fill(devPtr, pitch, value, width, height, nullptr, false, per_thread);
}

cudaError_t cudaMemset2DAsync(bool per_thread, void* devPtr, size_t pitch, int value, size_t width, size_t height,
                                        cudaStream_t stream) {
  return fill(devPtr, pitch, value, width, height, stream, true, per_thread);
}


cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  return impl::cudaMemcpyPeerAsync(dst, dstDevice, src, srcDevice, count, nullptr);
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  SIM_NEED_CONTEXT();
  CUcontext dst_context = nullptr, src_context = nullptr;
  if (cudaError_t error = device_context(dstDevice, &dst_context)) return error;
  if (cudaError_t error = device_context(srcDevice, &src_context)) return error;
  return from_driver(stream ? cuMemcpyPeerAsync(dptr(dst), dst_context, dptr(src), src_context, count, stream)
                            : cuMemcpyPeer(dptr(dst), dst_context, dptr(src), src_context, count));
}

cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  if (pDevice == nullptr) return cudaErrorInvalidValue;
  SIM_NEED_CONTEXT();
  CUdeviceptr device = 0;
  SIM_TRY(cuMemHostGetDevicePointer(&device, pHost, flags));
  *pDevice = reinterpret_cast<void*>(device);
  return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(bool per_thread, const void* devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
  SIM_NEED_CONTEXT();
  CUmemLocation where{static_cast<CUmemLocationType>(location.type), location.id};
  return from_driver(SIM_PT(cuMemPrefetchAsync_v2, ptsz)(dptr(devPtr), count, where, flags, stream));
}

cudaError_t cudaMemcpyToSymbol(bool per_thread, const void* symbol, const void* src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  CUdeviceptr address = 0;
  size_t bytes = 0;
  if (cudaError_t error = variable_address(symbol, &address, &bytes)) return error;
  if (offset + count > bytes) return cudaErrorInvalidValue;
  return checked_copy(reinterpret_cast<void*>(address + offset), src, count, kind, nullptr, false, per_thread);
}

cudaError_t cudaMemcpyFromSymbol(bool per_thread, void* dst, const void* symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  CUdeviceptr address = 0;
  size_t bytes = 0;
  if (cudaError_t error = variable_address(symbol, &address, &bytes)) return error;
  if (offset + count > bytes) return cudaErrorInvalidValue;
  return checked_copy(dst, reinterpret_cast<const void*>(address + offset), count, kind, nullptr, false, per_thread);
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  if (devPtr == nullptr) return cudaErrorInvalidValue;
  CUdeviceptr address = 0;
  if (cudaError_t error = variable_address(symbol, &address, nullptr)) return error;
  *devPtr = reinterpret_cast<void*>(address);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
  if (size == nullptr) return cudaErrorInvalidValue;
  return variable_address(symbol, nullptr, size);
}

}  // namespace impl
}  // namespace simcuda_rt

// ---- CUDA arrays, texture and surface objects (assumed: the runtime makes an
// array with cuArray3DCreate_v2 and copies to and from it with cuMemcpy2D_v2).

namespace simcuda_rt {
namespace {

// A channel format (bits per channel x, y, z, w and their kind) as the driver's
// array format and channel count; false for one simcuda does not model.
bool driver_format(const cudaChannelFormatDesc& desc, CUarray_format* format, unsigned* channels) {
  int bits[] = {desc.x, desc.y, desc.z, desc.w};
  *channels = 0;
  for (int b : bits) {
    if (b == 0) break;
    if (b != desc.x) return false;
    ++*channels;
  }
  if (*channels == 0 || *channels == 3) return false;
  switch (desc.f) {
    case cudaChannelFormatKindSigned:
      *format = desc.x == 8 ? CU_AD_FORMAT_SIGNED_INT8 : desc.x == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
      return desc.x == 8 || desc.x == 16 || desc.x == 32;
    case cudaChannelFormatKindUnsigned:
      *format = desc.x == 8    ? CU_AD_FORMAT_UNSIGNED_INT8
                : desc.x == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
                               : CU_AD_FORMAT_UNSIGNED_INT32;
      return desc.x == 8 || desc.x == 16 || desc.x == 32;
    case cudaChannelFormatKindFloat:
      *format = desc.x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
      return desc.x == 16 || desc.x == 32;
    default: return false;
  }
}

// Bytes of one element of each live array (cudaMemcpy3DParms counts array
// extents and positions in elements).
struct ArrayElements {
  std::mutex mutex;
  std::unordered_map<const void*, size_t> bytes;
};
ArrayElements& array_elements() {
  static ArrayElements* elements = new ArrayElements;  // leaked: arrays may be freed during exit
  return *elements;
}

cudaError_t make_array(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                       size_t depth) {
  if (array == nullptr || desc == nullptr) return cudaErrorInvalidValue;
  CUDA_ARRAY3D_DESCRIPTOR shape{};
  if (!driver_format(*desc, &shape.Format, &shape.NumChannels)) return cudaErrorInvalidChannelDescriptor;
  shape.Width = width;
  shape.Height = height;
  shape.Depth = depth;
  SIM_NEED_CONTEXT();
  SIM_TRY(cuArray3DCreate_v2(reinterpret_cast<CUarray*>(array), &shape));
  ArrayElements& elements = array_elements();
  std::lock_guard<std::mutex> lock(elements.mutex);
  elements.bytes[*array] = static_cast<size_t>(desc->x / 8) * shape.NumChannels;
  return cudaSuccess;
}

cudaError_t array_copy(CUDA_MEMCPY2D& c, cudaMemcpyKind kind, bool per_thread) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (c.WidthInBytes == 0 || c.Height == 0) return cudaSuccess;
  SIM_NEED_CONTEXT();
  return from_driver(SIM_PT(cuMemcpy2D_v2, ptds)(&c));
}

cudaError_t driver_resource(const cudaResourceDesc* in, CUDA_RESOURCE_DESC* out) {
  if (in == nullptr) return cudaErrorInvalidValue;
  *out = {};
  unsigned channels = 0;
  switch (in->resType) {
    case cudaResourceTypeArray:
      out->resType = CU_RESOURCE_TYPE_ARRAY;
      out->res.array.hArray = reinterpret_cast<CUarray>(in->res.array.array);
      return cudaSuccess;
    case cudaResourceTypeLinear:
      out->resType = CU_RESOURCE_TYPE_LINEAR;
      out->res.linear.devPtr = reinterpret_cast<CUdeviceptr>(in->res.linear.devPtr);
      out->res.linear.sizeInBytes = in->res.linear.sizeInBytes;
      if (!driver_format(in->res.linear.desc, &out->res.linear.format, &channels)) return cudaErrorInvalidChannelDescriptor;
      out->res.linear.numChannels = channels;
      return cudaSuccess;
    case cudaResourceTypePitch2D:
      out->resType = CU_RESOURCE_TYPE_PITCH2D;
      out->res.pitch2D.devPtr = reinterpret_cast<CUdeviceptr>(in->res.pitch2D.devPtr);
      out->res.pitch2D.width = in->res.pitch2D.width;
      out->res.pitch2D.height = in->res.pitch2D.height;
      out->res.pitch2D.pitchInBytes = in->res.pitch2D.pitchInBytes;
      if (!driver_format(in->res.pitch2D.desc, &out->res.pitch2D.format, &channels)) {
        return cudaErrorInvalidChannelDescriptor;
      }
      out->res.pitch2D.numChannels = channels;
      return cudaSuccess;
    default: return cudaErrorNotSupported;  // mipmapped arrays
  }
}

}  // namespace

size_t array_element_bytes(const void* array) {
  ArrayElements& elements = array_elements();
  std::lock_guard<std::mutex> lock(elements.mutex);
  auto found = elements.bytes.find(array);
  return found == elements.bytes.end() ? 1 : found->second;
}

}  // namespace simcuda_rt

extern "C" struct cudaChannelFormatDesc CUDARTAPI cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                        enum cudaChannelFormatKind f) {
  return {x, y, z, w, f};  // not traced here
}

namespace simcuda_rt::impl {

cudaError_t cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int) {
  return make_array(array, desc, width, height, 0);
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, struct cudaExtent extent,
                              unsigned int) {
  return make_array(array, desc, extent.width, extent.height, extent.depth);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  if (array == nullptr) return cudaSuccess;
  SIM_NEED_CONTEXT();
  SIM_TRY(cuArrayDestroy(reinterpret_cast<CUarray>(array)));
  ArrayElements& elements = array_elements();
  std::lock_guard<std::mutex> lock(elements.mutex);
  elements.bytes.erase(array);
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(bool per_thread, cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
  CUDA_MEMCPY2D c{};
  set_copy_ends(c, nullptr, src, kind);
  c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c.dstArray = reinterpret_cast<CUarray>(dst);
  c.dstXInBytes = wOffset;
  c.dstY = hOffset;
  c.srcPitch = spitch;
  c.WidthInBytes = width;
  c.Height = height;
  return array_copy(c, kind, per_thread);
}

cudaError_t cudaMemcpy2DFromArray(bool per_thread, void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind) {
  CUDA_MEMCPY2D c{};
  set_copy_ends(c, dst, nullptr, kind);
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  c.srcArray = reinterpret_cast<CUarray>(const_cast<cudaArray*>(src));
  c.srcXInBytes = wOffset;
  c.srcY = hOffset;
  c.dstPitch = dpitch;
  c.WidthInBytes = width;
  c.Height = height;
  return array_copy(c, kind, per_thread);
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                    const struct cudaTextureDesc* pTexDesc, const struct cudaResourceViewDesc*) {
  if (pTexDesc == nullptr) return cudaErrorInvalidValue;
  CUDA_RESOURCE_DESC resource;
  if (cudaError_t error = driver_resource(pResDesc, &resource)) return error;
  CUDA_TEXTURE_DESC texture{};  // filtering and addressing change nothing without device code
  texture.filterMode = static_cast<CUfilter_mode>(pTexDesc->filterMode);
  for (int i = 0; i < 3; ++i) texture.addressMode[i] = static_cast<CUaddress_mode>(pTexDesc->addressMode[i]);
  SIM_IN_CONTEXT(cuTexObjectCreate(pTexObject, &resource, &texture, nullptr));
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  SIM_IN_CONTEXT(cuTexObjectDestroy(texObject));
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject, const struct cudaResourceDesc* pResDesc) {
  CUDA_RESOURCE_DESC resource;
  if (cudaError_t error = driver_resource(pResDesc, &resource)) return error;
  SIM_IN_CONTEXT(cuSurfObjectCreate(pSurfObject, &resource));
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  SIM_IN_CONTEXT(cuSurfObjectDestroy(surfObject));
}

}  // namespace simcuda_rt::impl
