// Stream-ordered memory pools: each device's default pool (what cuMemAllocAsync
// allocates from) and pools made with cuMemPoolCreate. A pool counts the memory
// its allocations use and what it keeps reserved for reuse after they are
// freed; cuMemPoolTrimTo gives reserved memory back. Creation, trims and
// destruction are reported as CUPTI's MEMORY_POOL records are.
#include <algorithm>
#include <cstring>

#include "api_trace.h"
#include "model_internal.h"
#include "sim_clock.h"

namespace simcuda {
namespace {

CUmemPoolHandle_st* new_pool_locked(int device) {
  Model& m = model();
  auto pool = std::make_unique<CUmemPoolHandle_st>();
  pool->id = m.next_pool_id++;
  pool->device = device;
  CUmemPoolHandle_st* raw = pool.get();
  m.all_pools.push_back(std::move(pool));
  m.pools.insert(raw);
  return raw;
}

SimMemoryEvent pool_event(uint32_t operation, const CUmemPoolHandle_st* pool) {
  SimMemoryEvent event{};
  event.operation = operation;
  event.memory_kind = static_cast<uint32_t>(MemoryKind::Device);
  event.device = static_cast<uint32_t>(pool->device);
  event.correlation_id = current_correlation_id();
  event.address = reinterpret_cast<uint64_t>(pool);
  event.timestamp_ns = now_ns();
  describe_pool(pool, &event);
  return event;
}

}  // namespace

CUmemPoolHandle_st* default_pool_locked(int device) {
  Device& d = model().devices[static_cast<size_t>(device)];
  if (d.default_pool == nullptr) {
    d.default_pool = new_pool_locked(device);
    d.default_pool->is_default = true;
  }
  return d.default_pool;
}

void describe_pool(const CUmemPoolHandle_st* pool, SimMemoryEvent* event) {
  event->pool_address = reinterpret_cast<uint64_t>(pool);
  event->pool_reserved_bytes = pool->reserved;
  event->pool_used_bytes = pool->used;
  event->pool_release_threshold = pool->release_threshold;
}

CUresult pool_default(CUmemoryPool* out, CUdevice device) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= static_cast<int>(m.devices.size())) return CUDA_ERROR_INVALID_DEVICE;
  *out = default_pool_locked(device);
  return CUDA_SUCCESS;
}

CUresult pool_create(CUmemoryPool* out, const CUmemPoolProps* props) {
  if (out == nullptr || props == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  // Pinned device memory only: no IPC handle types, host or managed pools.
  if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
      props->handleTypes != CU_MEM_HANDLE_TYPE_NONE) {
    return props->allocType == CU_MEM_ALLOCATION_TYPE_PINNED ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
  }
  if (props->location.id < 0 || props->location.id >= static_cast<int>(m.devices.size())) {
    return CUDA_ERROR_INVALID_DEVICE;
  }
  CUmemPoolHandle_st* pool = new_pool_locked(props->location.id);
  *out = pool;
  SimMemoryEvent event = pool_event(SIM_MEMORY_POOL_CREATED, pool);
  lock.unlock();
  report_memory(event);
  return CUDA_SUCCESS;
}

CUresult pool_destroy(CUmemoryPool pool) {
  Model& m = model();
  Lock lock(m.mutex);
  if (pool == nullptr || !m.pools.count(pool)) return CUDA_ERROR_INVALID_VALUE;
  if (pool->is_default) return CUDA_ERROR_INVALID_VALUE;  // a default pool cannot be destroyed
  // Allocations still live keep their memory; the pool goes once they are freed
  // (as CUDA documents), here at once: later frees no longer count in it.
  m.pools.erase(pool);
  SimMemoryEvent event = pool_event(SIM_MEMORY_POOL_DESTROYED, pool);
  lock.unlock();
  report_memory(event);
  return CUDA_SUCCESS;
}

CUresult pool_set_attribute(CUmemoryPool pool, CUmemPool_attribute attribute, const void* value) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (pool == nullptr || !m.pools.count(pool)) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      std::memcpy(&pool->reuse[attribute - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES], value, sizeof(int));
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
      std::memcpy(&pool->release_threshold, value, sizeof(uint64_t));
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: {
      uint64_t reset = 0;  // only 0 is allowed: resets the high-water mark to the current value
      std::memcpy(&reset, value, sizeof reset);
      if (reset != 0) return CUDA_ERROR_INVALID_VALUE;
      if (attribute == CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) {
        pool->reserved_high = pool->reserved;
      } else {
        pool->used_high = pool->used;
      }
      return CUDA_SUCCESS;
    }
    default: return CUDA_ERROR_INVALID_VALUE;  // the current sizes are read-only
  }
}

CUresult pool_get_attribute(CUmemoryPool pool, CUmemPool_attribute attribute, void* value) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (pool == nullptr || !m.pools.count(pool)) return CUDA_ERROR_INVALID_VALUE;
  uint64_t bytes = 0;
  switch (attribute) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
      std::memcpy(value, &pool->reuse[attribute - CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES], sizeof(int));
      return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: bytes = pool->release_threshold; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: bytes = pool->reserved; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: bytes = pool->reserved_high; break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: bytes = pool->used; break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: bytes = pool->used_high; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  std::memcpy(value, &bytes, sizeof bytes);
  return CUDA_SUCCESS;
}

CUresult pool_trim(CUmemoryPool pool, size_t min_bytes_to_keep) {
  Model& m = model();
  Lock lock(m.mutex);
  if (pool == nullptr || !m.pools.count(pool)) return CUDA_ERROR_INVALID_VALUE;
  // Memory in use stays; of the rest, the pool keeps at most what is asked.
  pool->reserved = std::max<uint64_t>(pool->used, std::min<uint64_t>(pool->reserved, min_bytes_to_keep));
  SimMemoryEvent event = pool_event(SIM_MEMORY_POOL_TRIMMED, pool);
  event.pool_min_bytes_to_keep = min_bytes_to_keep;
  lock.unlock();
  report_memory(event);
  return CUDA_SUCCESS;
}

}  // namespace simcuda
