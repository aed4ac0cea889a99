// Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap...):
// device pointers are host addresses, so a physical allocation is a memory
// file, a reserved range an inaccessible mapping, and cuMemMap maps the file
// there; cuMemSetAccess makes it readable and writable. A mapped range is
// device memory of its device to copies and memsets while it is mapped.
// Granularity 2 MiB (assumed, as an H100 is documented to answer).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "model_internal.h"

namespace simcuda {
namespace {

constexpr size_t kGranularity = 2 << 20;

struct PhysicalAllocation {
  int fd;
  size_t bytes;
  int device;
};

struct VmmState {
  std::map<CUmemGenericAllocationHandle, PhysicalAllocation> physical;  // live handles
  std::map<uintptr_t, size_t> reserved;  // reserved ranges by start
  CUmemGenericAllocationHandle next_handle = 1;
};

VmmState& vmm() {
  static VmmState* state = new VmmState;  // never destroyed: used until exit
  return *state;
}

bool in_reservation(uintptr_t start, size_t bytes) {
  auto& reserved = vmm().reserved;
  auto it = reserved.upper_bound(start);
  if (it == reserved.begin()) return false;
  --it;
  return start + bytes <= it->first + it->second;
}

}  // namespace

CUresult vmm_granularity(size_t* granularity, const CUmemAllocationProp* prop) {
  if (granularity == nullptr || prop == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *granularity = kGranularity;
  return CUDA_SUCCESS;
}

CUresult vmm_create(CUmemGenericAllocationHandle* handle, size_t bytes, const CUmemAllocationProp* prop) {
  if (handle == nullptr || prop == nullptr || bytes == 0 || bytes % kGranularity != 0) return CUDA_ERROR_INVALID_VALUE;
  if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (prop->location.id < 0 || prop->location.id >= static_cast<int>(m.devices.size())) return CUDA_ERROR_INVALID_DEVICE;
  Device& device = m.devices[static_cast<size_t>(prop->location.id)];
  if (device.allocated_bytes + bytes > device.info.global_memory_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  int fd = memfd_create("simcuda-vmm", MFD_CLOEXEC);
  if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  device.allocated_bytes += bytes;
  *handle = vmm().next_handle++;
  vmm().physical[*handle] = {fd, bytes, prop->location.id};
  return CUDA_SUCCESS;
}

CUresult vmm_release(CUmemGenericAllocationHandle handle) {
  Model& m = model();
  Lock lock(m.mutex);
  auto found = vmm().physical.find(handle);
  if (found == vmm().physical.end()) return CUDA_ERROR_INVALID_VALUE;
  close(found->second.fd);  // mappings keep the memory until unmapped
  m.devices[static_cast<size_t>(found->second.device)].allocated_bytes -= found->second.bytes;
  vmm().physical.erase(found);
  return CUDA_SUCCESS;
}

CUresult vmm_reserve(CUdeviceptr* out, size_t bytes, size_t alignment, CUdeviceptr wanted) {
  if (out == nullptr || bytes == 0 || bytes % kGranularity != 0) return CUDA_ERROR_INVALID_VALUE;
  size_t align = alignment ? alignment : kGranularity;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  // The address asked for is a hint, as for the real driver.
  void* area = mmap(reinterpret_cast<void*>(wanted), bytes + align, PROT_NONE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (area == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  uintptr_t start = (reinterpret_cast<uintptr_t>(area) + align - 1) / align * align;
  // Give back what alignment left over on either side.
  if (start > reinterpret_cast<uintptr_t>(area)) munmap(area, start - reinterpret_cast<uintptr_t>(area));
  uintptr_t end = reinterpret_cast<uintptr_t>(area) + bytes + align;
  if (end > start + bytes) munmap(reinterpret_cast<void*>(start + bytes), end - start - bytes);
  vmm().reserved[start] = bytes;
  *out = start;
  return CUDA_SUCCESS;
}

CUresult vmm_free(CUdeviceptr address, size_t bytes) {
  Model& m = model();
  Lock lock(m.mutex);
  auto found = vmm().reserved.find(static_cast<uintptr_t>(address));
  if (found == vmm().reserved.end() || found->second != bytes) return CUDA_ERROR_INVALID_VALUE;
  munmap(reinterpret_cast<void*>(address), bytes);
  vmm().reserved.erase(found);
  return CUDA_SUCCESS;
}

CUresult vmm_map(CUdeviceptr address, size_t bytes, size_t offset, CUmemGenericAllocationHandle handle) {
  Model& m = model();
  Lock lock(m.mutex);
  auto physical = vmm().physical.find(handle);
  if (physical == vmm().physical.end() || offset + bytes > physical->second.bytes ||
      !in_reservation(static_cast<uintptr_t>(address), bytes) || m.allocations.count(static_cast<uintptr_t>(address))) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  void* mapped = mmap(reinterpret_cast<void*>(address), bytes, PROT_NONE, MAP_SHARED | MAP_FIXED, physical->second.fd,
                      static_cast<off_t>(offset));
  if (mapped == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
  CUctx_st* context = nullptr;
  for (CUctx_st* candidate : m.contexts) {
    if (candidate->device == physical->second.device && (context == nullptr || candidate->is_primary)) context = candidate;
  }
  // Mapped ranges next to each other on one device are one buffer to copies.
  uintptr_t start = static_cast<uintptr_t>(address);
  size_t length = bytes;
  auto joins = [&](const Allocation& a) { return a.mapped && a.device == physical->second.device; };
  auto before = m.allocations.lower_bound(start);
  if (before != m.allocations.begin()) {
    --before;
    if (joins(before->second) && before->first + before->second.bytes == start) {
      start = before->first;
      length += before->second.bytes;
      m.allocations.erase(before);
    }
  }
  auto after = m.allocations.find(static_cast<uintptr_t>(address) + bytes);
  if (after != m.allocations.end() && joins(after->second)) {
    length += after->second.bytes;
    m.allocations.erase(after);
  }
  Allocation range{length, MemoryKind::Device, physical->second.device, context ? context->id : 0, false};
  range.mapped = true;
  m.allocations[start] = range;
  return CUDA_SUCCESS;
}

CUresult vmm_set_access(CUdeviceptr address, size_t bytes, const CUmemAccessDesc* desc, size_t count) {
  if (desc == nullptr || count == 0) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!in_reservation(static_cast<uintptr_t>(address), bytes)) return CUDA_ERROR_INVALID_VALUE;
  int protection = PROT_NONE;
  for (size_t i = 0; i < count; ++i) {
    if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE) protection = PROT_READ | PROT_WRITE;
    if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ && protection == PROT_NONE) protection = PROT_READ;
  }
  return mprotect(reinterpret_cast<void*>(address), bytes, protection) == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult vmm_unmap(CUdeviceptr address, size_t bytes) {
  Model& m = model();
  Lock lock(m.mutex);
  uintptr_t start = static_cast<uintptr_t>(address);
  auto found = m.allocations.upper_bound(start);
  if (found == m.allocations.begin()) return CUDA_ERROR_INVALID_VALUE;
  --found;
  if (!found->second.mapped || start + bytes > found->first + found->second.bytes) return CUDA_ERROR_INVALID_VALUE;
  // The device finishes the work that may use the range first.
  uint64_t idle_at = 0;
  for (CUctx_st* context : m.contexts) {
    if (context->device == found->second.device) idle_at = std::max(idle_at, context_frontier_locked(context));
  }
  wait_until(lock, idle_at);
  found = m.allocations.upper_bound(start);
  if (found == m.allocations.begin() || !(--found)->second.mapped) return CUDA_ERROR_INVALID_VALUE;  // unmapped meanwhile
  // What stays mapped on either side of the hole stays one range each.
  Allocation range = found->second;
  uintptr_t range_start = found->first, range_end = found->first + range.bytes;
  m.allocations.erase(found);
  if (range_start < start) {
    Allocation left = range;
    left.bytes = start - range_start;
    m.allocations[range_start] = left;
  }
  if (start + bytes < range_end) {
    Allocation right = range;
    right.bytes = range_end - (start + bytes);
    m.allocations[start + bytes] = right;
  }
  mmap(reinterpret_cast<void*>(address), bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  return CUDA_SUCCESS;
}

}  // namespace simcuda
