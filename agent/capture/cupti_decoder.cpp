#include "capture/cupti_decoder.h"

#include <cstddef>
#include <cstdint>

#include "common/unaligned.h"

namespace prof {
namespace {

file::CopyKind copy_kind_of(uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return file::CopyKind::host_to_device;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return file::CopyKind::device_to_host;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return file::CopyKind::device_to_device;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return file::CopyKind::host_to_host;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return file::CopyKind::peer_to_peer;
    default: return file::CopyKind::unknown;
  }
}

file::MemoryKind memory_kind_of(uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return file::MemoryKind::pageable;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return file::MemoryKind::pinned;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return file::MemoryKind::device;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return file::MemoryKind::array;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return file::MemoryKind::managed;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return file::MemoryKind::device_static;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return file::MemoryKind::managed_static;
    default: return file::MemoryKind::unknown;
  }
}

file::Synchronization::Type sync_type_of(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return file::Synchronization::Type::event_synchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return file::Synchronization::Type::stream_wait_event;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return file::Synchronization::Type::stream_synchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return file::Synchronization::Type::context_synchronize;
    default: return file::Synchronization::Type::unknown;
  }
}

// The fields CUPTI's copy records (Memcpy6, MemcpyPtoP4) have in common.
template <typename CuptiCopy>
file::Memcpy copy_of(const CuptiCopy& m) {
  file::Memcpy copy;
  copy.device_id = m.deviceId;
  copy.context_id = m.contextId;
  copy.stream_id = m.streamId;
  copy.correlation_id = m.correlationId;
  copy.bytes = m.bytes;
  copy.src_kind = memory_kind_of(m.srcKind);
  copy.dst_kind = memory_kind_of(m.dstKind);
  copy.is_async = (m.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
  copy.graph_id = m.graphId;
  return copy;
}

// Where the call that launched this GPU work was made, relative to the open
// window (which no longer awaits it). A record of work still running (end 0,
// from the forced flush at the end) is not its record: the launch stays
// outstanding, and is counted as missing.
[[gnu::always_inline]] inline WindowLaunches::Origin launched(ChunkSink& sink, uint32_t correlation_id,
                                                             uint64_t end_ns) {
  if (end_ns == 0) return WindowLaunches::Origin::unknown;
  if (sink.in_flight != nullptr) sink.in_flight->arrived(correlation_id);
  return sink.launches != nullptr ? sink.launches->arrived(correlation_id) : WindowLaunches::Origin::unknown;
}

// The file record of CUPTI's kernel record `k` but for its times, which
// the encoder takes as a Span. Inline: a kernel's fields go from the CUPTI
// record through registers to the wire.
[[gnu::always_inline]] inline file::Kernel kernel_of(const CUpti_ActivityKernel10& k, uint64_t name_id) {
  file::Kernel kernel;
  kernel.device_id = k.deviceId;
  kernel.context_id = k.contextId;
  kernel.stream_id = k.streamId;
  kernel.correlation_id = k.correlationId;
  kernel.name_id = name_id;
  const uint32_t grid[3] = {static_cast<uint32_t>(k.gridX), static_cast<uint32_t>(k.gridY),
                            static_cast<uint32_t>(k.gridZ)};
  const uint32_t block[3] = {static_cast<uint32_t>(k.blockX), static_cast<uint32_t>(k.blockY),
                             static_cast<uint32_t>(k.blockZ)};
  set_dims(kernel, grid, block);
  kernel.registers_per_thread = k.registersPerThread;
  kernel.static_shared_bytes = static_cast<uint32_t>(k.staticSharedMemory);
  kernel.dynamic_shared_bytes = static_cast<uint32_t>(k.dynamicSharedMemory);
  kernel.local_memory_per_thread = k.localMemoryPerThread;
  kernel.graph_id = k.graphId;
  kernel.graph_node_id = k.graphNodeId;
  return kernel;
}

// kernel_of()'s fields of `k` but for the correlation id and name, as word
// loads at fixed places: deviceId to localMemoryPerThread lie together
// (48 bytes), the rest apart. Fields kernel_of() does not read (gridId,
// queued, ...) change from launch to launch and are left out.
constexpr size_t kLaunchFirst = offsetof(CUpti_ActivityKernel10, deviceId);
constexpr size_t kLaunchEnd = offsetof(CUpti_ActivityKernel10, localMemoryTotal);
static_assert(kLaunchEnd - kLaunchFirst == 6 * sizeof(uint64_t) &&
              offsetof(CUpti_ActivityKernel10, localMemoryPerThread) + 4 == kLaunchEnd &&
              offsetof(CUpti_ActivityKernel10, streamId) == kLaunchFirst + 8 &&
              offsetof(CUpti_ActivityKernel10, dynamicSharedMemory) == kLaunchFirst + 40,
              "deviceId, contextId, streamId, grid, block, shared memory, localMemoryPerThread: together");
[[gnu::always_inline]] inline uint64_t launch_word(const CUpti_ActivityKernel10& k, size_t i) {
  return load_u64(reinterpret_cast<const char*>(&k) + kLaunchFirst + i * sizeof(uint64_t));
}

}  // namespace

[[gnu::always_inline]] inline bool CuptiDecoder::repeats_kept_kernel(const CUpti_ActivityKernel10& k, uint64_t name_id,
                                                                     const ChunkEncoder& chunk) const {
  if (kept_kernel_.chunk != &chunk) return false;
  const KeptKernel::Shape& kept = kept_kernel_.shape;
  uint64_t differ = (name_id ^ kept_kernel_.name_id) | (k.graphNodeId ^ kept.graph_node_id) |
                    (k.graphId ^ kept.graph_id) | (k.registersPerThread ^ kept.registers_per_thread);
#pragma GCC unroll 6
  for (size_t i = 0; i < 6; ++i) differ |= launch_word(k, i) ^ kept.launch[i];
  return differ == 0;
}

void CuptiDecoder::add_kept_kernel(const CUpti_ActivityKernel10& k, uint64_t name_id, ChunkEncoder& chunk) {
  file::Kernel kernel = kernel_of(k, name_id);
  chunk.add_kept(kernel, {k.start, k.end});
  kept_kernel_.chunk = &chunk;
  for (size_t i = 0; i < 6; ++i) kept_kernel_.shape.launch[i] = launch_word(k, i);
  kept_kernel_.shape.graph_node_id = k.graphNodeId;
  kept_kernel_.shape.graph_id = k.graphId;
  kept_kernel_.shape.registers_per_thread = k.registersPerThread;
  kept_kernel_.name_id = name_id;
}

void CuptiDecoder::open_window(uint64_t start_ns) {
  std::lock_guard lock(windows_mutex_);
  if (windows_.empty() || windows_.back().end_ns != UINT64_MAX) {
    windows_.push_back({start_ns, UINT64_MAX});
  }
}

void CuptiDecoder::close_window(uint64_t end_ns) {
  std::lock_guard lock(windows_mutex_);
  if (!windows_.empty() && windows_.back().end_ns == UINT64_MAX) windows_.back().end_ns = end_ns;
}

bool CuptiDecoder::keep(uint64_t start_ns, uint64_t end_ns, WindowLaunches::Origin origin) {
  // A forced flush (the end of recording) returns work still running, with
  // end = 0: no duration to report, so it is counted, not written.
  if (end_ns == 0) {
    ++incomplete_;
    return false;
  }
  if (origin != WindowLaunches::Origin::unknown) return origin == WindowLaunches::Origin::inside;
  return in_window(start_ns);
}

template <typename Record>
bool CuptiDecoder::held_for_later(const Record& record, const ChunkSink& sink) {
  if (record.start <= sink.later_after_ns || record.end == 0) [[likely]] return false;
  // Work the open window's calls launched is its own, whenever it started.
  if (sink.launches != nullptr && sink.launches->awaits(record.correlationId)) return false;
  const auto* bytes = reinterpret_cast<const uint8_t*>(&record);
  held_.emplace_back(bytes, bytes + sizeof(Record));
  return true;
}

template <typename Record>
[[gnu::always_inline]] inline bool CuptiDecoder::written_now(const Record& record, ChunkSink& sink) {
  // Held first: a held record's arrival is counted when it is decoded again.
  if (held_for_later(record, sink)) return false;
  return keep(record.start, record.end, launched(sink, record.correlationId, record.end));
}

void CuptiDecoder::decode_held(ChunkSink& sink) {
  if (held_.empty()) return;
  std::vector<std::vector<uint8_t>> held;
  held.swap(held_);
  for (const std::vector<uint8_t>& record : held) {
    decode(reinterpret_cast<const CUpti_Activity*>(record.data()), sink);
  }
}

bool CuptiDecoder::in_some_window(uint64_t start_ns) {
  std::lock_guard lock(windows_mutex_);
  for (const Window& window : windows_) {
    if (start_ns >= window.start_ns && start_ns <= window.end_ns) return true;
  }
  return false;
}

void CuptiDecoder::decode_kernel(const CUpti_ActivityKernel10& k, ChunkSink& sink) {
  if (!written_now(k, sink)) return;
  // CUPTI hands each kernel's name from one place: cached by address.
  const uint64_t name_id = k.name != nullptr ? sink.strings.intern_by_address(k.name, sink.chunk) : 0;
  const bool same_name_as_previous = k.name == previous_kernel_name_;
  previous_kernel_name_ = k.name;
  if (!same_name_as_previous) {
    file::Kernel kernel = kernel_of(k, name_id);
    sink.chunk.add(kernel, {k.start, k.end});
  } else if (repeats_kept_kernel(k, name_id, sink.chunk)) {
    sink.chunk.add_kernel_repeat(k.correlationId, {k.start, k.end});
  } else {
    add_kept_kernel(k, name_id, sink.chunk);
  }
}

void CuptiDecoder::decode(const CUpti_Activity* activity, ChunkSink& sink) {
  // Kernels, the most frequent GPU records, apart from the other kinds: a
  // switch over them all made every kernel pay the frame of the largest
  // case (a Device's strings), six registers saved and restored.
  if (activity->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || activity->kind == CUPTI_ACTIVITY_KIND_KERNEL)
      [[likely]] {
    decode_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(activity), sink);
    return;
  }
  decode_other(activity, sink);
}

void CuptiDecoder::decode_other(const CUpti_Activity* activity, ChunkSink& sink) {
  switch (activity->kind) {  // kernels: decode()
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(activity);
      if (!written_now(*m, sink)) return;
      file::Memcpy copy = copy_of(*m);
      copy.kind = copy_kind_of(m->copyKind);
      sink.chunk.add(copy, {m->start, m->end});
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(activity);
      if (!written_now(*m, sink)) return;
      file::Memcpy copy = copy_of(*m);
      copy.kind = file::CopyKind::peer_to_peer;
      copy.src_device_id = m->srcDeviceId;
      copy.dst_device_id = m->dstDeviceId;
      sink.chunk.add(copy, {m->start, m->end});
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(activity);
      if (!written_now(*m, sink)) return;
      file::Memset set;
      set.device_id = m->deviceId;
      set.context_id = m->contextId;
      set.stream_id = m->streamId;
      set.correlation_id = m->correlationId;
      set.bytes = m->bytes;
      set.value = m->value;
      set.memory_kind = memory_kind_of(m->memoryKind);
      set.graph_id = m->graphId;
      sink.chunk.add(set, {m->start, m->end});
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(activity);
      if (!in_window(m->timestamp)) return;
      file::MemoryEvent event;
      event.operation = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
                            ? file::MemoryEvent::Operation::allocation
                        : m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
                            ? file::MemoryEvent::Operation::release
                            : file::MemoryEvent::Operation::unspecified;
      event.device_id = m->deviceId;
      event.context_id = m->contextId;
      event.stream_id = m->streamId;
      event.correlation_id = m->correlationId;
      event.address = m->address;
      event.bytes = m->bytes;
      event.memory_kind = memory_kind_of(m->memoryKind);
      sink.chunk.add(event, m->timestamp);
      return;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(activity);
      if (!keep(s->start, s->end)) return;
      file::Synchronization sync;
      sync.type = sync_type_of(s->type);
      sync.context_id = s->contextId;
      sync.stream_id = s->streamId;
      sync.correlation_id = s->correlationId;
      sync.event = s->cudaEventId;
      sink.chunk.add(sync, {s->start, s->end});
      return;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
      const auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(activity);
      file::Device device;
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
      device.max_warps_per_multiprocessor = d->maxWarpsPerMultiprocessor;
      device.max_blocks_per_multiprocessor = d->maxBlocksPerMultiprocessor;
      device.max_shared_memory_per_multiprocessor = d->maxSharedMemoryPerMultiprocessor;
      device.max_registers_per_multiprocessor = d->maxRegistersPerMultiprocessor;
      device.uuid.assign(reinterpret_cast<const char*>(&d->uuid), sizeof(d->uuid));
      // Described again after CUPTI detached and attached (PROF_CUPTI_DETACH):
      // the file has it already, restated when the file began.
      for (const file::Device& known : devices_) {
        if (known.id == device.id) return;
      }
      sink.chunk.add(device);
      devices_.push_back(std::move(device));
      return;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      const auto* c = reinterpret_cast<const CUpti_ActivityContext3*>(activity);
      sink.chunk.add(file::Context{c->contextId, c->deviceId, c->nullStreamId});
      return;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD: {
      const auto* o = reinterpret_cast<const CUpti_ActivityOverhead3*>(activity);
      file::Overhead overhead;
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
      sink.chunk.add(overhead, {o->start, o->end});
      return;
    }
    default:
      return;
  }
}

void CuptiDecoder::restate(ChunkSink& sink) const {
  for (const file::Device& device : devices_) sink.chunk.add(device);
}

}  // namespace prof
