// Memory: allocations (real host memory), copies and memsets with simulated durations.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <cupti_activity.h>

#include "api_trace.h"
#include "device_executor.h"
#include "model_internal.h"
#include "sim_clock.h"
#include "sim_config.h"
#include "truth_log.h"

namespace simcuda {
namespace {

constexpr size_t kDeviceAlignment = 256;  // cudaMalloc's documented minimum alignment

// The allocation containing [address, address + bytes), or nullptr.
const Allocation* find_allocation_locked(uintptr_t address, size_t bytes, uintptr_t* base) {
  auto& allocations = model().allocations;
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin()) return nullptr;
  --it;
  if (address + bytes > it->first + it->second.bytes) return nullptr;
  if (base) *base = it->first;
  return &it->second;
}

MemoryKind kind_of_locked(const void* pointer, size_t bytes) {
  const Allocation* allocation = find_allocation_locked(reinterpret_cast<uintptr_t>(pointer), bytes, nullptr);
  return allocation ? allocation->kind : MemoryKind::Pageable;
}

bool on_device(MemoryKind kind) {
  return kind == MemoryKind::Device || kind == MemoryKind::Managed || kind == MemoryKind::Array;
}

uint64_t transfer_ns(uint64_t bytes, double gbps) {
  return config().copy_overhead_ns + static_cast<uint64_t>(std::ceil(static_cast<double>(bytes) / gbps));
}

}  // namespace

void report_memory(const SimMemoryEvent& event) {
  if (const SimTracer* tracer = current_tracer()) tracer->memory(&event);
  if (truth_enabled()) truth_memory(event);
}

CUresult memory_allocate(void** out, size_t bytes, MemoryKind kind, CUstream stream_ordered,
                         bool per_thread, CUmemoryPool pool) {
  if (out == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  uint32_t stream_id = 0;
  if (stream_ordered != nullptr || per_thread) {
    CUresult error;
    CUstream_st* stream = resolve_stream_locked(stream_ordered, per_thread, &error);
    if (stream == nullptr) return error;
    if (stream->capture != nullptr) {
      // Captured: a graph allocation node, made live at each launch of the graph.
      *out = capture_alloc_node_locked(stream, bytes);
      return *out ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
    }
    stream_id = stream->id;
  }
  if (pool != nullptr && (!m.pools.count(pool) || pool->device != context->device)) return CUDA_ERROR_INVALID_VALUE;
  if (pool == nullptr && stream_id != 0 && kind == MemoryKind::Device) pool = default_pool_locked(context->device);
  Device& device = m.devices[static_cast<size_t>(context->device)];
  bool counts_on_device = on_device(kind);
  if (counts_on_device && device.allocated_bytes + bytes > device.info.global_memory_bytes) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  size_t rounded = (bytes + kDeviceAlignment - 1) / kDeviceAlignment * kDeviceAlignment;
  void* memory = std::aligned_alloc(kDeviceAlignment, rounded);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  // Fresh device memory holds garbage on a GPU; a fixed pattern keeps runs reproducible.
  std::memset(memory, 0xcd, rounded);
  m.allocations[reinterpret_cast<uintptr_t>(memory)] = {bytes, kind, context->device, context->id, true, pool};
  if (counts_on_device) device.allocated_bytes += bytes;
  *out = memory;
  SimMemoryEvent event{SIM_MEMORY_ALLOCATE, static_cast<uint32_t>(kind),
                       static_cast<uint32_t>(context->device), context->id, stream_id,
                       current_correlation_id(), stream_id != 0, reinterpret_cast<uint64_t>(memory),
                       bytes, now_ns(), 0, 0, 0, 0, 0};
  if (pool != nullptr) {
    // Memory the pool held for reuse serves first; beyond it the pool grows.
    pool->used += bytes;
    pool->reserved = std::max(pool->reserved, pool->used);
    pool->used_high = std::max(pool->used_high, pool->used);
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    describe_pool(pool, &event);
  }
  lock.unlock();
  report_memory(event);
  return CUDA_SUCCESS;
}

CUresult memory_free(void* address, MemoryKind kind, CUstream stream_ordered, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (stream_ordered != nullptr || per_thread) {
    CUresult error;
    CUstream_st* stream = resolve_stream_locked(stream_ordered, per_thread, &error);
    if (stream == nullptr) return error;
    if (stream->capture != nullptr) {
      // Captured: a graph free node; the memory stays until a launch reaches it.
      bool known = m.allocations.count(reinterpret_cast<uintptr_t>(address)) ||
                   m.graph_reserved.count(reinterpret_cast<uintptr_t>(address));
      if (!known) return CUDA_ERROR_INVALID_VALUE;
      capture_free_node_locked(stream, address);
      return CUDA_SUCCESS;
    }
  }
  auto it = m.allocations.find(reinterpret_cast<uintptr_t>(address));
  // A graph's allocation may be freed outside the graph, as CUDA allows when
  // the graph has no free node for it: the record comes, the address stays the graph's.
  bool graph_memory = m.graph_reserved.count(reinterpret_cast<uintptr_t>(address)) != 0;
  bool kind_matches = it != m.allocations.end() && (it->second.owned || graph_memory) &&
                      (it->second.kind == kind || (on_device(kind) && on_device(it->second.kind)));
  if (!kind_matches) return CUDA_ERROR_INVALID_VALUE;
  uint32_t stream_id = 0;
  uint64_t release_at = 0;
  if (stream_ordered != nullptr || per_thread) {
    CUresult error;
    CUstream_st* stream = resolve_stream_locked(stream_ordered, per_thread, &error);
    if (stream == nullptr) return error;
    stream_id = stream->id;
    // The memory goes back when the stream reaches the free, not now: work
    // enqueued before it may still use it.
    release_at = stream_frontier_locked(stream);
  } else {
    // cuMemFree / cuMemFreeHost synchronise the device first, as the real ones do.
    uint64_t idle_at = 0;
    for (CUctx_st* context : m.contexts) {
      if (context->device == it->second.device) {
        idle_at = std::max(idle_at, context_frontier_locked(context));
      }
    }
    wait_until(lock, idle_at);
    it = m.allocations.find(reinterpret_cast<uintptr_t>(address));
    if (it == m.allocations.end()) return CUDA_ERROR_INVALID_VALUE;  // freed meanwhile
  }
  Allocation allocation = it->second;
  if (graph_memory) m.graph_live.erase(reinterpret_cast<uintptr_t>(address));
  if (!graph_memory) {  // a graph's memory stays reserved: its next launch makes it live again
    m.allocations.erase(it);
    if (on_device(allocation.kind)) {
      m.devices[static_cast<size_t>(allocation.device)].allocated_bytes -= allocation.bytes;
    }
    if (stream_id != 0) {
      run_at(release_at, [address] { std::free(address); });  // after the work due before it
    } else {
      std::free(address);
    }
  }
  SimMemoryEvent event{SIM_MEMORY_RELEASE, static_cast<uint32_t>(allocation.kind),
                       static_cast<uint32_t>(allocation.device), allocation.context_id, stream_id,
                       current_correlation_id(), stream_id != 0, reinterpret_cast<uint64_t>(address),
                       allocation.bytes, now_ns(), 0, 0, 0, 0, 0};
  if (allocation.pool != nullptr && m.pools.count(allocation.pool)) {
    allocation.pool->used -= std::min(allocation.pool->used, uint64_t{allocation.bytes});  // stays reserved
    describe_pool(allocation.pool, &event);
  }
  lock.unlock();
  report_memory(event);
  return CUDA_SUCCESS;
}

CUresult host_register(void* address, size_t bytes) {
  if (address == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  if (find_allocation_locked(reinterpret_cast<uintptr_t>(address), 1, nullptr)) {
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  }
  m.allocations[reinterpret_cast<uintptr_t>(address)] = {bytes, MemoryKind::Pinned, context->device,
                                                         context->id, false};
  return CUDA_SUCCESS;
}

CUresult host_unregister(void* address) {
  Model& m = model();
  Lock lock(m.mutex);
  auto it = m.allocations.find(reinterpret_cast<uintptr_t>(address));
  if (it == m.allocations.end() || it->second.owned) return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  m.allocations.erase(it);
  return CUDA_SUCCESS;
}

CUresult memory_info(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes == nullptr || total_bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  const Device& device = m.devices[static_cast<size_t>(context->device)];
  *total_bytes = device.info.global_memory_bytes;
  *free_bytes = device.info.global_memory_bytes - device.allocated_bytes;
  return CUDA_SUCCESS;
}

CUresult address_range(CUdeviceptr* base, size_t* size, CUdeviceptr address) {
  Model& m = model();
  Lock lock(m.mutex);
  uintptr_t found_base = 0;
  const Allocation* allocation = find_allocation_locked(address, 1, &found_base);
  if (allocation == nullptr || !on_device(allocation->kind)) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = found_base;
  if (size) *size = allocation->bytes;
  return CUDA_SUCCESS;
}

CUresult pointer_info(CUdeviceptr address, PointerInfo* info) {
  Model& m = model();
  Lock lock(m.mutex);
  uintptr_t base = 0;
  const Allocation* allocation = find_allocation_locked(address, 1, &base);
  if (allocation == nullptr) return CUDA_ERROR_INVALID_VALUE;
  info->type = on_device(allocation->kind) ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
  info->device = allocation->device;
  info->base = base;
  info->bytes = allocation->bytes;
  info->managed = allocation->kind == MemoryKind::Managed;
  return CUDA_SUCCESS;
}

CUresult pointer_memory_type(CUdeviceptr address, CUmemorytype* type, CUdevice* device) {
  PointerInfo info{};
  if (CUresult error = pointer_info(address, &info)) return error;
  if (type) *type = info.type;
  if (device) *device = info.device;
  return CUDA_SUCCESS;
}

CUresult check_managed_range(CUdeviceptr address, size_t bytes, CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  if (resolve_stream_locked(handle, per_thread, &error) == nullptr) return error;
  const Allocation* allocation = find_allocation_locked(address, bytes, nullptr);
  return allocation != nullptr && allocation->kind == MemoryKind::Managed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult plan_copy_locked(const CopyRequest& request, bool async, PlannedOperation* plan) {
  size_t dst_pitch = request.dst_pitch ? request.dst_pitch : request.width_bytes;
  size_t src_pitch = request.src_pitch ? request.src_pitch : request.width_bytes;
  if (request.height > 1 && (dst_pitch < request.width_bytes || src_pitch < request.width_bytes)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  size_t depth = request.depth ? request.depth : 1;
  size_t dst_slice = request.dst_slice ? request.dst_slice : dst_pitch * request.height;
  size_t src_slice = request.src_slice ? request.src_slice : src_pitch * request.height;
  if (depth > 1 && request.height &&
      (dst_slice < dst_pitch * (request.height - 1) + request.width_bytes ||
       src_slice < src_pitch * (request.height - 1) + request.width_bytes)) {
    return CUDA_ERROR_INVALID_VALUE;  // slices would overlap
  }
  size_t dst_span = request.height ? dst_slice * (depth - 1) + dst_pitch * (request.height - 1) + request.width_bytes : 0;
  size_t src_span = request.height ? src_slice * (depth - 1) + src_pitch * (request.height - 1) + request.width_bytes : 0;
  MemoryKind dst_kind = kind_of_locked(request.dst, dst_span);
  MemoryKind src_kind = kind_of_locked(request.src, src_span);
  // A pointer into a device allocation that overruns it is not host memory either.
  auto overruns = [](const void* p, size_t span) {
    uintptr_t base = 0;
    return find_allocation_locked(reinterpret_cast<uintptr_t>(p), 1, &base) != nullptr &&
           find_allocation_locked(reinterpret_cast<uintptr_t>(p), span, nullptr) == nullptr;
  };
  if (overruns(request.dst, dst_span) || overruns(request.src, src_span)) return CUDA_ERROR_INVALID_VALUE;
  auto side_ok = [](Side wanted, MemoryKind kind) {
    return wanted == Side::Any || (wanted == Side::Device) == on_device(kind);
  };
  if (!side_ok(request.dst_side, dst_kind) || !side_ok(request.src_side, src_kind)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  SimOperation& op = plan->op;
  op = {};
  op.kind = SIM_OP_MEMCPY;
  op.bytes = request.width_bytes * request.height * depth;
  op.src_kind = static_cast<uint8_t>(src_kind);
  op.dst_kind = static_cast<uint8_t>(dst_kind);
  op.is_async = async;
  const SimConfig& c = config();
  double gbps;
  const Allocation* from = find_allocation_locked(reinterpret_cast<uintptr_t>(request.src), src_span, nullptr);
  const Allocation* to = find_allocation_locked(reinterpret_cast<uintptr_t>(request.dst), dst_span, nullptr);
  if (from != nullptr && to != nullptr && from->kind == MemoryKind::Device && to->kind == MemoryKind::Device &&
      from->device != to->device) {
    // Device memory of two devices (cudaMemcpyDefault, unified addressing): a
    // peer copy, as cudaMemcpyPeer makes, between the devices' contexts.
    op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    op.src_device = static_cast<uint32_t>(from->device);
    op.dst_device = static_cast<uint32_t>(to->device);
    op.src_context_id = from->context_id;
    op.dst_context_id = to->context_id;
    gbps = c.peer_gbps;
  } else if (src_kind == MemoryKind::Array || dst_kind == MemoryKind::Array) {
    bool from_array = src_kind == MemoryKind::Array, to_array = dst_kind == MemoryKind::Array;
    if (from_array && to_array) {
      op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_ATOA;
    } else if (from_array) {
      op.copy_kind = on_device(dst_kind) ? CUPTI_ACTIVITY_MEMCPY_KIND_ATOD : CUPTI_ACTIVITY_MEMCPY_KIND_ATOH;
    } else {
      op.copy_kind = on_device(src_kind) ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOA : CUPTI_ACTIVITY_MEMCPY_KIND_HTOA;
    }
    MemoryKind host = from_array ? dst_kind : src_kind;  // the other end
    gbps = on_device(host) ? c.device_to_device_gbps : host == MemoryKind::Pinned ? c.pinned_gbps : c.pageable_gbps;
  } else if (on_device(src_kind) && on_device(dst_kind)) {
    op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    gbps = c.device_to_device_gbps;
  } else if (on_device(dst_kind)) {
    op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    gbps = src_kind == MemoryKind::Pinned ? c.pinned_gbps : c.pageable_gbps;
  } else if (on_device(src_kind)) {
    op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    gbps = dst_kind == MemoryKind::Pinned ? c.pinned_gbps : c.pageable_gbps;
  } else {
    op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    gbps = c.pageable_gbps;
  }
  plan->duration_ns = transfer_ns(op.bytes, gbps);
  CopyRequest copy = request;
  copy.dst_pitch = dst_pitch;
  copy.src_pitch = src_pitch;
  copy.depth = depth;
  copy.dst_slice = dst_slice;
  copy.src_slice = src_slice;
  plan->move_data = [copy] {
    for (size_t slice = 0; slice < copy.depth; ++slice) {
      for (size_t row = 0; row < copy.height; ++row) {
        std::memmove(static_cast<char*>(copy.dst) + slice * copy.dst_slice + row * copy.dst_pitch,
                     static_cast<const char*>(copy.src) + slice * copy.src_slice + row * copy.src_pitch,
                     copy.width_bytes);
      }
    }
  };
  return CUDA_SUCCESS;
}

CUresult enqueue_copy(const CopyRequest& request, CUstream handle, bool per_thread, bool async) {
  if (request.depth > 1) return CUDA_ERROR_NOT_SUPPORTED;  // 3D copies: graph nodes only
  if (request.dst == nullptr || request.src == nullptr) {
    return request.width_bytes == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  }
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = work_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  PlannedOperation plan;
  if (CUresult bad = plan_copy_locked(request, async, &plan)) return bad;
  SimOperation& op = plan.op;
  auto src_kind = static_cast<MemoryKind>(op.src_kind);
  auto dst_kind = static_cast<MemoryKind>(op.dst_kind);
  // The runtime's staging semantics for pageable host memory: an asynchronous copy
  // from it returns once the source is in a staging buffer (the program may reuse
  // the source at once); one into it, or between host buffers, returns when done.
  bool capturing = stream->capture != nullptr;
  bool staged = async && !capturing && src_kind == MemoryKind::Pageable && on_device(dst_kind);
  bool host_waits = !async || (!capturing && !staged &&
                               (src_kind == MemoryKind::Pageable || dst_kind == MemoryKind::Pageable));
  if (staged) {
    size_t width = request.width_bytes, height = request.height;
    size_t src_pitch = request.src_pitch ? request.src_pitch : width;
    size_t dst_pitch = request.dst_pitch ? request.dst_pitch : width;
    auto staging = std::make_shared<std::vector<char>>(op.bytes);
    for (size_t row = 0; row < height; ++row) {
      std::memcpy(staging->data() + row * width, static_cast<const char*>(request.src) + row * src_pitch, width);
    }
    void* dst = request.dst;
    plan.move_data = [dst, dst_pitch, width, height, staging] {
      for (size_t row = 0; row < height; ++row) {
        std::memcpy(static_cast<char*>(dst) + row * dst_pitch, staging->data() + row * width, width);
      }
    };
  }
  if (!schedule_locked(lock, stream, op, plan.duration_ns, false, std::move(plan.move_data))) return CUDA_SUCCESS;
  lock.unlock();
  report_operation(op);
  if (host_waits) wait_for_device(op.end_ns);
  return CUDA_SUCCESS;
}

CUresult plan_memset_locked(const MemsetRequest& request, bool async, PlannedOperation* plan) {
  size_t row_bytes = request.width_elements * request.element_size;
  size_t pitch = request.pitch_bytes ? request.pitch_bytes : row_bytes;
  if (request.height > 1 && pitch < row_bytes) return CUDA_ERROR_INVALID_VALUE;
  size_t span = request.height ? pitch * (request.height - 1) + row_bytes : 0;
  if (request.element_size != 1 && request.element_size != 2 && request.element_size != 4) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (request.dst % request.element_size != 0) return CUDA_ERROR_INVALID_VALUE;
  const Allocation* allocation = find_allocation_locked(request.dst, span, nullptr);
  if (allocation == nullptr || !on_device(allocation->kind)) return CUDA_ERROR_INVALID_VALUE;
  SimOperation& op = plan->op;
  op = {};
  op.kind = SIM_OP_MEMSET;
  op.bytes = row_bytes * request.height;
  op.dst_kind = static_cast<uint8_t>(allocation->kind);
  op.memset_value = request.value;
  op.is_async = async;
  MemsetRequest fill = request;
  fill.pitch_bytes = pitch;
  plan->move_data = [fill] {
    for (size_t row = 0; row < fill.height; ++row) {
      char* line = reinterpret_cast<char*>(fill.dst) + row * fill.pitch_bytes;
      for (size_t i = 0; i < fill.width_elements; ++i) {
        if (fill.element_size == 1) {
          line[i] = static_cast<char>(fill.value);
        } else if (fill.element_size == 2) {
          uint16_t v = static_cast<uint16_t>(fill.value);
          std::memcpy(line + 2 * i, &v, 2);
        } else {
          std::memcpy(line + 4 * i, &fill.value, 4);
        }
      }
    }
  };
  plan->duration_ns = transfer_ns(op.bytes, config().memset_gbps);
  return CUDA_SUCCESS;
}

CUresult enqueue_memset(const MemsetRequest& request, CUstream handle, bool per_thread, bool async) {
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = work_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  if (request.width_elements == 0 || request.height == 0) return CUDA_SUCCESS;
  PlannedOperation plan;
  if (CUresult bad = plan_memset_locked(request, async, &plan)) return bad;
  if (!schedule_locked(lock, stream, plan.op, plan.duration_ns, false, std::move(plan.move_data))) {
    return CUDA_SUCCESS;
  }
  lock.unlock();
  report_operation(plan.op);
  // Memsets of device memory never block the host, even the "synchronous" ones.
  return CUDA_SUCCESS;
}

CUresult enqueue_peer_copy(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                           size_t bytes, CUstream handle, bool per_thread, bool async) {
  if (bytes == 0) return CUDA_SUCCESS;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.contexts.count(dst_context) || !m.contexts.count(src_context)) return CUDA_ERROR_INVALID_CONTEXT;
  const Allocation* to = find_allocation_locked(dst, bytes, nullptr);
  const Allocation* from = find_allocation_locked(src, bytes, nullptr);
  if (to == nullptr || from == nullptr || !on_device(to->kind) || !on_device(from->kind) ||
      to->device != dst_context->device || from->device != src_context->device) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult error;
  CUstream_st* stream = work_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  SimOperation op{};
  op.kind = SIM_OP_MEMCPY;
  op.bytes = bytes;
  op.copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  op.src_kind = static_cast<uint8_t>(from->kind);
  op.dst_kind = static_cast<uint8_t>(to->kind);
  op.is_async = async;
  op.src_device = static_cast<uint32_t>(src_context->device);
  op.dst_device = static_cast<uint32_t>(dst_context->device);
  op.src_context_id = src_context->id;
  op.dst_context_id = dst_context->id;
  auto move_data = [dst, src, bytes] {
    std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
  };
  if (!schedule_locked(lock, stream, op, transfer_ns(bytes, config().peer_gbps), false, move_data)) {
    return CUDA_SUCCESS;
  }
  lock.unlock();
  report_operation(op);
  if (!async) wait_for_device(op.end_ns);
  return CUDA_SUCCESS;
}

}  // namespace simcuda
