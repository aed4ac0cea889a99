#include "capture/hooks/event_timing.h"

#include <cuda.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "capture/hooks/real_symbols.h"
#include "common/clock.h"
#include "encode/chunk_encoder.h"
#include "record/records.h"

namespace prof {

enum class SlotState : uint8_t { free, filling, pending, abandoned };

struct TimedOperation {
  std::atomic<SlotState> state{SlotState::free};
  CUcontext context = nullptr;  // the events' context
  CUevent start = nullptr;
  CUevent end = nullptr;
  ApiCallArgs args = ApiCallArgs::none;
  uint8_t copy_kind = 0;
  bool per_thread_stream = false;
  uint32_t correlation_id = 0;
  // When the call that launched it began (its record's start): a window's
  // file takes the work its calls launched, also when it ran after the end.
  uint64_t call_start_ns = 0;
  uint64_t stream = 0;
  uint64_t bytes = 0;
  uint32_t grid[3] = {};
  uint32_t block[3] = {};
  uint32_t shared_bytes = 0;
  // The driver's own string (cuFuncGetName): valid while the module is
  // loaded, which outlasts the few milliseconds until the writer reads it
  // unless the app unloads the module right after the launch.
  const char* kernel_name = nullptr;
};

namespace {

// One app thread's operations in launch order: the thread fills slots at
// head_, the writer empties them at tail_. When its thread has exited and
// the writer has emptied it, a ring (with the events in its slots) goes to
// the next new thread: 10,000 short-lived threads use as many rings as were
// alive at once, not 10,000 rings of 90 KiB and 2 events each.
//
// Its slots come in blocks of 32, made as the thread first reaches them: a
// thread that launches once holds 3 KiB, not 90 KiB, while its ring waits
// for the writer to empty it (peak memory with 10,000 short-lived threads).
struct OperationRing {
  static constexpr uint32_t kSize = 1024;
  static constexpr uint32_t kBlock = 32;
  std::atomic<TimedOperation*> blocks[kSize / kBlock] = {};  // never freed: rings are reused
  uint32_t head = 0;  // app thread
  uint32_t tail = 0;  // writer
  uint32_t tid = 0;
  std::atomic<bool> owner_exited{false};

  // App thread: the slot at `index`, its block made on first use; nullptr
  // without memory.
  TimedOperation* slot_to_fill(uint32_t index) {
    std::atomic<TimedOperation*>& block = blocks[index % kSize / kBlock];
    TimedOperation* slots = block.load(std::memory_order_relaxed);
    if (slots == nullptr) {
      slots = new (std::nothrow) TimedOperation[kBlock];
      if (slots == nullptr) return nullptr;
      block.store(slots, std::memory_order_release);
    }
    return &slots[index % kBlock];
  }
  // Writer: the slot at `index`, or nullptr when its block was never made
  // (so nothing is in it).
  TimedOperation* slot_to_read(uint32_t index) const {
    TimedOperation* slots = blocks[index % kSize / kBlock].load(std::memory_order_acquire);
    return slots == nullptr ? nullptr : &slots[index % kBlock];
  }
};

struct Driver {
  CUresult (*event_create)(CUevent*, unsigned) = nullptr;
  CUresult (*event_destroy)(CUevent) = nullptr;
  CUresult (*event_record)(CUevent, CUstream) = nullptr;
  CUresult (*event_record_ptsz)(CUevent, CUstream) = nullptr;
  CUresult (*event_query)(CUevent) = nullptr;
  CUresult (*event_synchronize)(CUevent) = nullptr;
  CUresult (*elapsed)(float*, CUevent, CUevent) = nullptr;
  CUresult (*ctx_get_current)(CUcontext*) = nullptr;
  CUresult (*ctx_set_current)(CUcontext) = nullptr;
  CUresult (*stream_create)(CUstream*, unsigned) = nullptr;
  CUresult (*stream_is_capturing)(CUstream, CUstreamCaptureStatus*) = nullptr;
  CUresult (*stream_is_capturing_ptsz)(CUstream, CUstreamCaptureStatus*) = nullptr;
  bool complete = false;
};

template <typename Fn>
void resolve(Fn& fn, const char* name) {
  fn = reinterpret_cast<Fn>(next_definition(name, "libcuda.so"));
}

const Driver& driver() {
  static const Driver loaded = [] {
    Driver d;
    resolve(d.event_create, "cuEventCreate");
    resolve(d.event_destroy, "cuEventDestroy_v2");
    resolve(d.event_record, "cuEventRecord");
    resolve(d.event_record_ptsz, "cuEventRecord_ptsz");
    resolve(d.event_query, "cuEventQuery");
    resolve(d.event_synchronize, "cuEventSynchronize");
    resolve(d.elapsed, "cuEventElapsedTime_v2");
    if (d.elapsed == nullptr) resolve(d.elapsed, "cuEventElapsedTime");
    resolve(d.ctx_get_current, "cuCtxGetCurrent");
    resolve(d.ctx_set_current, "cuCtxSetCurrent");
    resolve(d.stream_create, "cuStreamCreate");
    resolve(d.stream_is_capturing, "cuStreamIsCapturing");
    resolve(d.stream_is_capturing_ptsz, "cuStreamIsCapturing_ptsz");
    d.complete = d.event_create && d.event_destroy && d.event_record && d.event_query && d.event_synchronize &&
                 d.elapsed && d.ctx_get_current && d.ctx_set_current && d.stream_create;
    return d;
  }();
  return loaded;
}

// Not in AgentState: event timing's own rings and counters, used by the
// hooks on the app's threads and drained by the writer through EventTiming
// (an ActivitySource) alone; nothing else in the agent reads them.
std::mutex g_rings_mutex;
std::vector<OperationRing*> g_rings;       // the writer drains these
std::vector<OperationRing*> g_free_rings;  // emptied rings of exited threads, for new threads
thread_local OperationRing* t_ring = nullptr;
std::atomic<uint64_t> g_dropped{0};
std::atomic<int> g_captures{0};
std::atomic<bool> g_synchronize_requested{false};

pthread_key_t g_exit_key;
pthread_once_t g_exit_key_once = PTHREAD_ONCE_INIT;

// Runs as the thread exits (a pthread key destructor, after its
// thread_local destructors): the writer recycles the ring once it is empty.
void on_thread_exit(void* ring) {
  t_ring = nullptr;
  static_cast<OperationRing*>(ring)->owner_exited.store(true, std::memory_order_release);
}

OperationRing* this_thread_ring() {
  if (t_ring != nullptr) return t_ring;
  pthread_once(&g_exit_key_once, [] { pthread_key_create(&g_exit_key, on_thread_exit); });
  OperationRing* ring = nullptr;
  {
    std::lock_guard lock(g_rings_mutex);
    if (!g_free_rings.empty()) {
      ring = g_free_rings.back();
      g_free_rings.pop_back();
    }
  }
  if (ring == nullptr) ring = new OperationRing;  // once per thread alive at once
  ring->tid = static_cast<uint32_t>(syscall(SYS_gettid));
  ring->owner_exited.store(false, std::memory_order_relaxed);
  {
    std::lock_guard lock(g_rings_mutex);
    g_rings.push_back(ring);
  }
  pthread_setspecific(g_exit_key, ring);
  t_ring = ring;
  return ring;
}

bool capturing(CUstream stream, bool per_thread) {
  if (g_captures.load(std::memory_order_relaxed) <= 0) return false;
  const Driver& d = driver();
  auto is_capturing = per_thread && d.stream_is_capturing_ptsz ? d.stream_is_capturing_ptsz : d.stream_is_capturing;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return is_capturing == nullptr || is_capturing(stream, &status) != CUDA_SUCCESS ||
         status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// Events the writer maps GPU times through, one per context.
struct Anchor {
  CUstream stream = nullptr;
  CUevent event = nullptr;
  uint64_t host_ns = 0;
  uint32_t context_id = 0;
};

// Writer thread state.
std::map<CUcontext, Anchor> g_anchors;
std::map<std::pair<uint64_t, uint32_t>, uint32_t> g_stream_ids;
constexpr uint64_t kAnchorAgeNs = 1'000'000'000;  // float milliseconds keep ~60 ns over a second
// How long recording the anchor event may take for its host time to stand
// (a record call takes a few microseconds), and how often it is tried.
constexpr uint64_t kAnchorSlackNs = 50'000;
constexpr int kAnchorAttempts = 5;

Anchor* anchor_for(CUcontext context) {
  const Driver& d = driver();
  Anchor& anchor = g_anchors[context];
  if (anchor.context_id == 0) anchor.context_id = static_cast<uint32_t>(g_anchors.size());
  const uint64_t now = monotonic_ns();
  if (anchor.event != nullptr && now - anchor.host_ns < kAnchorAgeNs) return &anchor;
  if (d.ctx_set_current(context) != CUDA_SUCCESS) return nullptr;
  // A stream of our own that never waits for the app's (non-blocking), so
  // the anchor completes as soon as the GPU sees it.
  if (anchor.stream == nullptr && d.stream_create(&anchor.stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    return nullptr;
  }
  if (anchor.event == nullptr && d.event_create(&anchor.event, CU_EVENT_DEFAULT) != CUDA_SUCCESS) return nullptr;
  const CUresult anchor_state = d.event_query(anchor.event);
  if (anchor_state == CUDA_ERROR_INVALID_HANDLE || anchor_state == CUDA_ERROR_INVALID_CONTEXT ||
      anchor_state == CUDA_ERROR_CONTEXT_IS_DESTROYED) {
    // The anchor's context was destroyed and this one has its address (a
    // reset): its stream and event went with the old one.
    anchor.stream = nullptr;
    anchor.event = nullptr;
    if (d.stream_create(&anchor.stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        d.event_create(&anchor.event, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
      return nullptr;
    }
  }
  // The host time is read just before the record; a record call that took
  // long (this thread preempted in it) would put every time mapped through
  // the anchor, for up to kAnchorAgeNs, that much early: 1.4 ms in one test
  // run on a loaded machine. So the pair is taken again until it is tight.
  for (int attempt = 1;; ++attempt) {
    const uint64_t host = monotonic_ns();
    if (d.event_record(anchor.event, anchor.stream) != CUDA_SUCCESS) return nullptr;
    const uint64_t recorded = monotonic_ns();
    if (d.event_synchronize(anchor.event) != CUDA_SUCCESS) return nullptr;
    anchor.host_ns = host;
    if (recorded - host <= kAnchorSlackNs || attempt == kAnchorAttempts) return &anchor;
  }
}

uint32_t stream_id(const TimedOperation& op, uint32_t tid) {
  // The default stream is per thread under the _ptsz/_ptds entry points.
  const bool per_thread_default = op.stream == 0 && op.per_thread_stream;
  const auto key = std::make_pair(op.stream, per_thread_default ? tid : 0u);
  auto [it, added] = g_stream_ids.try_emplace(key, static_cast<uint32_t>(g_stream_ids.size() + 1));
  return it->second;
}

// False when the events cannot be read (then counted, not written).
bool emit(const TimedOperation& op, const Anchor& anchor, uint32_t tid, ChunkSink& sink) {
  const Driver& d = driver();
  float offset_ms = 0, duration_ms = 0;
  if (d.elapsed(&offset_ms, anchor.event, op.start) != CUDA_SUCCESS ||
      d.elapsed(&duration_ms, op.start, op.end) != CUDA_SUCCESS) {
    return false;
  }
  const auto start = static_cast<uint64_t>(static_cast<int64_t>(anchor.host_ns) +
                                           static_cast<int64_t>(static_cast<double>(offset_ms) * 1e6));
  const uint64_t end = start + static_cast<uint64_t>(static_cast<double>(duration_ms) * 1e6 + 0.5);
  // What every event-timed record says besides its own fields.
  auto timed = [&](auto& record) {
    record.context_id = anchor.context_id;
    record.stream_id = stream_id(op, tid);
    record.correlation_id = op.correlation_id;
    record.event_timed = true;
  };
  switch (op.args) {
    case ApiCallArgs::launch: {
      file::Kernel kernel;
      timed(kernel);
      kernel.name_id = op.kernel_name != nullptr ? sink.strings.intern(op.kernel_name, sink.chunk) : 0;
      set_dims(kernel, op.grid, op.block);
      kernel.dynamic_shared_bytes = op.shared_bytes;
      sink.chunk.add(kernel, {start, end});
      return true;
    }
    case ApiCallArgs::copy: {
      file::Memcpy copy;
      timed(copy);
      copy.bytes = op.bytes;
      copy.kind = static_cast<file::CopyKind>(op.copy_kind);
      sink.chunk.add(copy, {start, end});
      return true;
    }
    case ApiCallArgs::memset: {
      file::Memset set;
      timed(set);
      set.bytes = op.bytes;
      sink.chunk.add(set, {start, end});
      return true;
    }
    case ApiCallArgs::none:
    case ApiCallArgs::capture_begin:
    case ApiCallArgs::capture_end:
      return true;
  }
  return true;
}

}  // namespace

TimedOperation* EventTiming::before(const ApiCallRecord& work, bool per_thread_stream) {
  const Driver& d = driver();
  if (!d.complete || work.args == ApiCallArgs::none || work.args == ApiCallArgs::capture_begin ||
      work.args == ApiCallArgs::capture_end) {
    return nullptr;
  }
  auto* stream = reinterpret_cast<CUstream>(work.stream);
  if (capturing(stream, per_thread_stream)) return nullptr;
  CUcontext context = nullptr;
  if (d.ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr) return nullptr;
  OperationRing* ring = this_thread_ring();
  TimedOperation* slot = ring->slot_to_fill(ring->head);
  if (slot == nullptr) return nullptr;
  TimedOperation& op = *slot;
  if (op.state.load(std::memory_order_acquire) != SlotState::free) {
    g_dropped.fetch_add(1, std::memory_order_relaxed);  // the writer is behind: not timed
    return nullptr;
  }
  if (op.context != context) {
    // First use of the slot, or the app moved to another context: events
    // belong to the context they were made in.
    if (op.start != nullptr && op.context != nullptr) {
      d.event_destroy(op.start);
      d.event_destroy(op.end);
    }
    op.start = op.end = nullptr;
    if (d.event_create(&op.start, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
        d.event_create(&op.end, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
      op.context = nullptr;
      return nullptr;
    }
    op.context = context;
  }
  auto record = per_thread_stream && d.event_record_ptsz ? d.event_record_ptsz : d.event_record;
  if (record(op.start, stream) != CUDA_SUCCESS) return nullptr;
  op.state.store(SlotState::filling, std::memory_order_relaxed);
  ++ring->head;
  op.args = work.args;
  op.copy_kind = work.copy_kind;
  op.per_thread_stream = per_thread_stream;
  op.stream = work.stream;
  op.bytes = work.bytes;
  for (int i = 0; i < 3; ++i) {
    op.grid[i] = work.grid[i];
    op.block[i] = work.block[i];
  }
  op.shared_bytes = work.shared_bytes;
  return &op;
}

bool EventTiming::record_end(TimedOperation* op, bool succeeded) {
  const Driver& d = driver();
  auto record = op->per_thread_stream && d.event_record_ptsz ? d.event_record_ptsz : d.event_record;
  if (!succeeded || record(op->end, reinterpret_cast<CUstream>(op->stream)) != CUDA_SUCCESS) {
    op->state.store(SlotState::abandoned, std::memory_order_release);
    return false;
  }
  return true;
}

void EventTiming::after(TimedOperation* op, uint32_t correlation_id, uint64_t call_start_ns, const char* kernel_name) {
  op->correlation_id = correlation_id;
  op->call_start_ns = call_start_ns;
  op->kernel_name = kernel_name;
  op->state.store(SlotState::pending, std::memory_order_release);
}

void EventTiming::capture_began() { g_captures.fetch_add(1, std::memory_order_relaxed); }
void EventTiming::capture_ended() { g_captures.fetch_sub(1, std::memory_order_relaxed); }

void EventTiming::forget_after_fork() {
  // Only the forking thread exists; the rings stay allocated (leaked). The
  // free ones too: their slots hold events of the parent's contexts, which
  // the child must not record or destroy (a child's context may even get
  // the address a parent's had).
  new (&g_rings_mutex) std::mutex;  // another thread may have held it at fork
  g_rings.clear();
  g_free_rings.clear();
  t_ring = nullptr;
  g_captures.store(0, std::memory_order_relaxed);
  g_anchors.clear();
  g_stream_ids.clear();
  instance().unfinished_ = 0;
}

bool EventTiming::synchronize_at_next_drain() {
  bool any = false;
  {
    // Any thread that ever timed an operation (reading their tails here
    // would race with the writer): one writer pass is cheap next to a reset.
    std::lock_guard lock(g_rings_mutex);
    any = !g_rings.empty();
  }
  if (any) g_synchronize_requested.store(true, std::memory_order_release);
  return any;
}

EventTiming& EventTiming::instance() {
  static EventTiming* timing = new EventTiming;  // leaked: the writer may drain during exit
  return *timing;
}

// At exit the writer does not wait for the events here, but polls
// (Writer::wait_for_gpu_work, bounded): a kernel that never ends must not
// hold the process's exit.
void EventTiming::drain(ChunkSink& sink) {
  const Driver& d = driver();
  if (!d.complete) return;
  // Reading an event calls into the driver, whose locks the thread a
  // signal interrupted may hold: what is pending is counted at the end.
  if (sink.handler_waits.now()) return;
  // Before a context is destroyed: wait for what is still on the GPU (a
  // synchronize request made before this pass's ticket is seen).
  const bool synchronize = g_synchronize_requested.exchange(false, std::memory_order_acq_rel);
  std::vector<OperationRing*> rings;
  {
    std::lock_guard lock(g_rings_mutex);
    rings = g_rings;
  }
  for (OperationRing* ring : rings) {
    // Read before draining: the owner sets it after its last operation.
    const bool exited = ring->owner_exited.load(std::memory_order_acquire);
    for (;;) {
      TimedOperation* slot = ring->slot_to_read(ring->tail);
      if (slot == nullptr) break;
      TimedOperation& op = *slot;
      const SlotState state = op.state.load(std::memory_order_acquire);
      if (state == SlotState::abandoned) {
        op.state.store(SlotState::free, std::memory_order_release);
        ++ring->tail;
        continue;
      }
      if (state != SlotState::pending) break;
      // Never waits while the app runs: only before a context is destroyed
      // (the app's thread waits in that call anyway).
      CUresult ready = d.event_query(op.end);
      if (ready == CUDA_ERROR_NOT_READY && synchronize) ready = d.event_synchronize(op.end);
      if (ready == CUDA_ERROR_NOT_READY) break;
      // A window's file is being completed and this work was launched after
      // its end (the writer fell behind the next steps): it is the next
      // window's, so it and the rest of this thread's ring wait for the next
      // drain. Without this a loaded machine put one window's kernels into
      // the file of the window before it.
      if (op.call_start_ns > sink.later_after_ns) break;
      // Not readable: the context is gone (cuCtxDestroy, cudaDeviceReset
      // from a thread the hooks do not see). Counted, never dropped silently.
      Anchor* anchor = ready == CUDA_SUCCESS ? anchor_for(op.context) : nullptr;
      if (anchor == nullptr || !emit(op, *anchor, ring->tid, sink)) ++unfinished_;
      op.state.store(SlotState::free, std::memory_order_release);
      ++ring->tail;
    }
    // Empty (the slot at the tail is free only when tail == head) and its
    // thread gone: the next new thread takes it, events and all.
    const TimedOperation* at_tail = ring->slot_to_read(ring->tail);
    if (exited && (at_tail == nullptr || at_tail->state.load(std::memory_order_acquire) == SlotState::free)) {
      std::lock_guard lock(g_rings_mutex);
      std::erase(g_rings, ring);
      g_free_rings.push_back(ring);
    }
  }
}

uint64_t EventTiming::work_running(uint64_t launched_by_ns) const {
  std::vector<OperationRing*> rings;
  {
    std::lock_guard lock(g_rings_mutex);
    rings = g_rings;
  }
  uint64_t running = 0;
  for (const OperationRing* ring : rings) {
    // From the tail, as drain() reads: operations are filled in order, so
    // the first free slot is the head, and a slot still filling is a call
    // in progress (its record, and so its work, is not the file's yet).
    for (uint32_t i = 0; i < OperationRing::kSize; ++i) {
      const TimedOperation* slot = ring->slot_to_read(ring->tail + i);
      if (slot == nullptr) break;
      const SlotState state = slot->state.load(std::memory_order_acquire);
      if (state == SlotState::pending) {
        // Launched after: a later window's, as is the rest of the ring.
        if (slot->call_start_ns > launched_by_ns) break;
        ++running;
      } else if (state != SlotState::abandoned) {
        break;
      }
    }
  }
  return running;
}

uint64_t EventTiming::dropped() const { return g_dropped.load(std::memory_order_relaxed); }

}  // namespace prof
