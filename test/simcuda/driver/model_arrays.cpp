// CUDA arrays, texture objects and surface objects. An array is device memory
// laid out row by row (pitch = width * element size); copies into and out of
// it are HtoA/AtoH/DtoA/AtoD/AtoA copies. Texture and surface objects are
// validated handles on an array or linear memory: nothing samples them, as no
// device code runs.
#include "model_internal.h"

namespace simcuda {
namespace {

size_t element_bytes(CUarray_format format) {
  switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0;  // block-compressed and the newer formats are not modelled
  }
}

// The resource a texture or surface object views: an array, or device memory.
CUresult check_resource_locked(const CUDA_RESOURCE_DESC* resource, bool surface) {
  const Model& m = model();
  if (resource == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (resource->resType) {
    case CU_RESOURCE_TYPE_ARRAY:
      return m.arrays.count(resource->res.array.hArray) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
    case CU_RESOURCE_TYPE_LINEAR:
    case CU_RESOURCE_TYPE_PITCH2D: {
      if (surface) return CUDA_ERROR_INVALID_VALUE;  // surfaces bind arrays only
      CUdeviceptr address = resource->resType == CU_RESOURCE_TYPE_LINEAR ? resource->res.linear.devPtr
                                                                        : resource->res.pitch2D.devPtr;
      auto found = m.allocations.upper_bound(static_cast<uintptr_t>(address));
      if (found == m.allocations.begin()) return CUDA_ERROR_INVALID_VALUE;
      --found;
      bool inside = address < found->first + found->second.bytes;
      return inside && found->second.kind != MemoryKind::Pageable ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    }
    default: return CUDA_ERROR_NOT_SUPPORTED;  // mipmapped arrays
  }
}

CUresult create_object(unsigned long long* out, const CUDA_RESOURCE_DESC* resource, bool surface) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (current_context_locked() == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (CUresult error = check_resource_locked(resource, surface)) return error;
  *out = m.next_object_id++;  // never 0, never reused
  (surface ? m.surfaces : m.textures).insert(*out);
  return CUDA_SUCCESS;
}

CUresult destroy_object(unsigned long long handle, bool surface) {
  Model& m = model();
  Lock lock(m.mutex);
  return (surface ? m.surfaces : m.textures).erase(handle) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

}  // namespace

CUresult array_create(CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR& shape) {
  size_t element = element_bytes(shape.Format);
  if (out == nullptr || shape.Width == 0) return CUDA_ERROR_INVALID_VALUE;
  if (element == 0) return CUDA_ERROR_NOT_SUPPORTED;
  if (shape.NumChannels != 1 && shape.NumChannels != 2 && shape.NumChannels != 4) return CUDA_ERROR_INVALID_VALUE;
  size_t pitch = shape.Width * element * shape.NumChannels;
  size_t slice_rows = shape.Height ? shape.Height : 1;
  size_t rows = slice_rows * (shape.Depth ? shape.Depth : 1);
  void* memory = nullptr;
  if (CUresult error = memory_allocate(&memory, pitch * rows, MemoryKind::Array, nullptr, false)) return error;
  Model& m = model();
  Lock lock(m.mutex);
  auto array = std::make_unique<CUarray_st>(CUarray_st{memory, pitch, rows, slice_rows});
  *out = array.get();
  m.arrays.insert(array.get());
  m.all_arrays.push_back(std::move(array));
  return CUDA_SUCCESS;
}

CUresult array_destroy(CUarray array) {
  void* memory = nullptr;
  {
    Model& m = model();
    Lock lock(m.mutex);
    if (array == nullptr || !m.arrays.erase(array)) return CUDA_ERROR_INVALID_HANDLE;
    memory = array->memory;
  }
  return memory_free(memory, MemoryKind::Array, nullptr, false);
}

CUresult array_rows(CUarray array, char** base, size_t* pitch, size_t* rows, size_t* slice_rows) {
  Model& m = model();
  Lock lock(m.mutex);
  if (array == nullptr || !m.arrays.count(array)) return CUDA_ERROR_INVALID_HANDLE;
  *base = static_cast<char*>(array->memory);
  *pitch = array->pitch;
  *rows = array->rows;
  if (slice_rows != nullptr) *slice_rows = array->slice_rows;
  return CUDA_SUCCESS;
}

CUresult texture_create(CUtexObject* out, const CUDA_RESOURCE_DESC* resource) {
  return create_object(out, resource, false);
}

CUresult texture_destroy(CUtexObject texture) { return destroy_object(texture, false); }

CUresult surface_create(CUsurfObject* out, const CUDA_RESOURCE_DESC* resource) {
  return create_object(out, resource, true);
}

CUresult surface_destroy(CUsurfObject surface) { return destroy_object(surface, true); }

}  // namespace simcuda
