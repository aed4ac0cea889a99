#include "capture/cupti_activity.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "common/log.h"

namespace prof {
namespace {

// CUPTI fills a buffer before handing it back; 4 MiB holds ~20k kernel
// records and is what CUPTI's own samples use.
constexpr size_t kBufferBytes = 4u << 20;
constexpr size_t kSpareBuffers = 4;  // decoded buffers kept for reuse (16 MiB at most)

std::atomic<CuptiActivity*> g_instance{nullptr};

CopyKind copy_kind_of(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return CopyKind::host_to_device;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return CopyKind::device_to_host;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return CopyKind::device_to_device;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return CopyKind::host_to_host;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return CopyKind::peer_to_peer;
    default: return CopyKind::unknown;
  }
}

MemoryKind memory_kind_of(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return MemoryKind::pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return MemoryKind::pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return MemoryKind::device;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return MemoryKind::array;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return MemoryKind::managed;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return MemoryKind::device_static;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return MemoryKind::managed_static;
    default: return MemoryKind::unknown;
  }
}

SyncType sync_type_of(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return SyncType::event_synchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return SyncType::stream_wait_event;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return SyncType::stream_synchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return SyncType::context_synchronize;
    default: return SyncType::unknown;
  }
}

// The fields CUPTI's copy records (Memcpy6, MemcpyPtoP4) have in common.
template <typename CuptiCopy>
Memcpy copy_of(const CuptiCopy& m) {
  Memcpy copy;
  copy.place = {m.deviceId, m.contextId, m.streamId, m.correlationId};
  copy.start_ns = m.start;
  copy.end_ns = m.end;
  copy.bytes = m.bytes;
  copy.src_kind = memory_kind_of(m.srcKind);
  copy.dst_kind = memory_kind_of(m.dstKind);
  copy.is_async = (m.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
  copy.graph_id = m.graphId;
  return copy;
}

// The kinds the agent records. CONCURRENT_KERNEL, never KERNEL: the latter
// serialises every kernel on the device and so changes what it measures.
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,           CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_MEMORY2,           CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    CUPTI_ACTIVITY_KIND_DEVICE,            CUPTI_ACTIVITY_KIND_CONTEXT,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};

const char* kind_name(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return "CONCURRENT_KERNEL";
    case CUPTI_ACTIVITY_KIND_MEMCPY: return "MEMCPY";
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return "MEMCPY2";
    case CUPTI_ACTIVITY_KIND_MEMSET: return "MEMSET";
    case CUPTI_ACTIVITY_KIND_MEMORY2: return "MEMORY2";
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return "SYNCHRONIZATION";
    case CUPTI_ACTIVITY_KIND_DEVICE: return "DEVICE";
    case CUPTI_ACTIVITY_KIND_CONTEXT: return "CONTEXT";
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return "OVERHEAD";
    default: return "?";
  }
}

// CUPTI writes every byte of a buffer it fills: 2 MiB-aligned and marked
// for transparent huge pages, a new buffer costs 2 page faults instead of
// 1024, on whichever thread CUPTI fills it from (an app thread, often).
uint8_t* new_buffer() {
  constexpr size_t kHugePage = 2u << 20;
  auto* buffer = static_cast<uint8_t*>(aligned_alloc(kHugePage, kBufferBytes));
  if (buffer != nullptr) madvise(buffer, kBufferBytes, MADV_HUGEPAGE);
  return buffer;
}

}  // namespace

std::string CuptiActivity::enable() {
  g_instance.store(this, std::memory_order_release);
  std::string refused;
  CUptiResult result = cupti_.ActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  if (result != CUPTI_SUCCESS) return std::string("all (") + cupti_.describe(result) + ")";
  for (CUpti_ActivityKind kind : kKinds) {
    if (cupti_.ActivityEnable(kind) != CUPTI_SUCCESS) {
      refused += refused.empty() ? "" : ", ";
      refused += kind_name(kind);
    }
  }
  return refused;
}

void CUPTIAPI CuptiActivity::on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  CuptiActivity* self = g_instance.load(std::memory_order_acquire);
  *buffer = self != nullptr ? self->take_spare() : nullptr;
  if (*buffer == nullptr) *buffer = new_buffer();
  *size = *buffer != nullptr ? kBufferBytes : 0;  // no buffer: CUPTI drops and counts
  *max_records = 0;
}

void CUPTIAPI CuptiActivity::on_buffer_completed(CUcontext context, uint32_t stream_id,
                                                 uint8_t* buffer, size_t, size_t valid_size) {
  CuptiActivity* self = g_instance.load(std::memory_order_acquire);
  if (self == nullptr) {
    free(buffer);
    return;
  }
  size_t dropped = 0;
  if (self->cupti_.ActivityGetNumDroppedRecords != nullptr &&
      self->cupti_.ActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS) {
    self->dropped_.fetch_add(dropped, std::memory_order_relaxed);
  }
  if (buffer == nullptr) return;
  if (valid_size == 0) {
    free(buffer);
    return;
  }
  std::lock_guard lock(self->mutex_);
  self->completed_.push_back({buffer, valid_size});
}

void CuptiActivity::request_delivery(bool forced) {
  // Not under mutex_: CUPTI calls on_buffer_completed from inside this.
  cupti_.ActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void CuptiActivity::drain(FileSink& sink) {
  {
    std::lock_guard lock(mutex_);
    draining_.swap(completed_);
  }
  for (const Buffer& buffer : draining_) {
    CUpti_Activity* record = nullptr;
    while (cupti_.ActivityGetNextRecord(buffer.data, buffer.valid_size, &record) == CUPTI_SUCCESS) {
      decode(record, sink);
    }
    keep_spare(buffer.data);
  }
  draining_.clear();
}

// A 4 MiB buffer freed and allocated again is unmapped and mapped again by
// malloc, and CUPTI then takes a page fault for each of its 1024 pages as it
// fills it: that cost lands on whichever thread CUPTI fills buffers from.
// Decoded buffers are kept for the next request instead.
uint8_t* CuptiActivity::take_spare() {
  std::lock_guard lock(spare_mutex_);
  if (spare_.empty()) return nullptr;
  uint8_t* buffer = spare_.back();
  spare_.pop_back();
  return buffer;
}

void CuptiActivity::keep_spare(uint8_t* buffer) {
  {
    std::lock_guard lock(spare_mutex_);
    if (spare_.size() < kSpareBuffers) {
      spare_.push_back(buffer);
      return;
    }
  }
  free(buffer);
}

void CuptiActivity::open_window(uint64_t start_ns) {
  std::lock_guard lock(windows_mutex_);
  if (windows_.empty() || windows_.back().end_ns != UINT64_MAX) {
    windows_.push_back({start_ns, UINT64_MAX});
  }
}

void CuptiActivity::close_window(uint64_t end_ns) {
  std::lock_guard lock(windows_mutex_);
  if (!windows_.empty() && windows_.back().end_ns == UINT64_MAX) windows_.back().end_ns = end_ns;
}

bool CuptiActivity::keep(uint64_t start_ns, uint64_t end_ns) {
  // A forced flush (the end of recording) returns work still running, with
  // end = 0: no duration to report, so it is counted, not written.
  if (end_ns == 0) {
    ++incomplete_;
    return false;
  }
  return in_window(start_ns);
}

bool CuptiActivity::in_window(uint64_t start_ns) {
  if (!windowed_.load(std::memory_order_acquire)) return true;
  std::lock_guard lock(windows_mutex_);
  for (const Window& window : windows_) {
    if (start_ns >= window.start_ns && start_ns <= window.end_ns) return true;
  }
  return false;
}

void CuptiActivity::decode(const CUpti_Activity* activity, FileSink& sink) {
  switch (activity->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(activity);
      if (!keep(k->start, k->end)) return;
      Kernel kernel;
      kernel.place = {k->deviceId, k->contextId, k->streamId, k->correlationId};
      kernel.name_id = k->name != nullptr ? sink.strings.intern(k->name, sink.chunk) : 0;
      kernel.start_ns = k->start;
      kernel.end_ns = k->end;
      kernel.grid[0] = static_cast<uint32_t>(k->gridX);
      kernel.grid[1] = static_cast<uint32_t>(k->gridY);
      kernel.grid[2] = static_cast<uint32_t>(k->gridZ);
      kernel.block[0] = static_cast<uint32_t>(k->blockX);
      kernel.block[1] = static_cast<uint32_t>(k->blockY);
      kernel.block[2] = static_cast<uint32_t>(k->blockZ);
      kernel.registers_per_thread = k->registersPerThread;
      kernel.static_shared_bytes = static_cast<uint32_t>(k->staticSharedMemory);
      kernel.dynamic_shared_bytes = static_cast<uint32_t>(k->dynamicSharedMemory);
      kernel.local_memory_per_thread = k->localMemoryPerThread;
      kernel.graph_id = k->graphId;
      kernel.graph_node_id = k->graphNodeId;
      sink.chunk.add(kernel);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(activity);
      if (!keep(m->start, m->end)) return;
      Memcpy copy = copy_of(*m);
      copy.kind = copy_kind_of(m->copyKind);
      sink.chunk.add(copy);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(activity);
      if (!keep(m->start, m->end)) return;
      Memcpy copy = copy_of(*m);
      copy.kind = CopyKind::peer_to_peer;
      copy.src_device_id = m->srcDeviceId;
      copy.dst_device_id = m->dstDeviceId;
      sink.chunk.add(copy);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(activity);
      if (!keep(m->start, m->end)) return;
      Memset set;
      set.place = {m->deviceId, m->contextId, m->streamId, m->correlationId};
      set.start_ns = m->start;
      set.end_ns = m->end;
      set.bytes = m->bytes;
      set.value = m->value;
      set.memory_kind = memory_kind_of(m->memoryKind);
      set.graph_id = m->graphId;
      sink.chunk.add(set);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(activity);
      if (!in_window(m->timestamp)) return;
      MemoryEvent event;
      event.operation = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
                            ? MemoryOperation::allocation
                        : m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
                            ? MemoryOperation::release
                            : MemoryOperation::unspecified;
      event.place = {m->deviceId, m->contextId, m->streamId, m->correlationId};
      event.time_ns = m->timestamp;
      event.address = m->address;
      event.bytes = m->bytes;
      event.memory_kind = memory_kind_of(m->memoryKind);
      sink.chunk.add(event);
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(activity);
      if (!keep(s->start, s->end)) return;
      Synchronization sync;
      sync.type = sync_type_of(s->type);
      sync.place = {0, s->contextId, s->streamId, s->correlationId};
      sync.event = s->cudaEventId;
      sync.start_ns = s->start;
      sync.end_ns = s->end;
      sink.chunk.add(sync);
      return;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(activity);
      DeviceInfo device;
      device.id = d->id;
      device.name = d->name != nullptr ? d->name : "";
      device.global_memory_bytes = d->globalMemorySize;
      device.compute_major = d->computeCapabilityMajor;
      device.compute_minor = d->computeCapabilityMinor;
      device.sm_count = d->numMultiprocessors;
      device.warp_size = d->numThreadsPerWarp;
      device.max_threads_per_block = d->maxThreadsPerBlock;
      device.max_shared_memory_per_block = d->maxSharedMemoryPerBlock;
      device.max_registers_per_block = d->maxRegistersPerBlock;
      device.core_clock_khz = d->coreClockRate;
      device.uuid.assign(reinterpret_cast<const char*>(&d->uuid), sizeof(d->uuid));
      sink.chunk.add(device);
      return;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(activity);
      sink.chunk.add(ContextInfo{c->contextId, c->deviceId, c->nullStreamId});
      return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(activity);
      Overhead overhead;
      const char* kind = o->overheadKind == CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER ? "driver compiler"
                         : o->overheadKind == CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH ? "CUPTI buffer flush"
                         : o->overheadKind == CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION ? "CUPTI instrumentation"
                         : o->overheadKind == CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE ? "CUPTI resource"
                         : "other";
      overhead.kind_id = sink.strings.intern(kind, sink.chunk);
      if (o->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || o->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        overhead.tid = o->objectId.pt.threadId;
      } else {
        overhead.device_id = o->objectId.dcs.deviceId;
      }
      overhead.start_ns = o->start;
      overhead.end_ns = o->end;
      sink.chunk.add(overhead);
      return;
    }
    default:
      return;
  }
}

}  // namespace prof
