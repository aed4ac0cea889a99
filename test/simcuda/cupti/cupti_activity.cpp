// The activity API: records built from simcuda's reports, held until their work has
// completed (simulated time), then written into the tool's buffers in completion
// order by a CUPTI-owned worker thread, or by cuptiActivityFlushAll on the caller.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <queue>
#include <unordered_map>
#include <vector>

#include "cupti_state.h"

namespace simcuda_cupti {
namespace {

constexpr size_t kRecordAlignment = 8;  // every CUpti_Activity* struct is 8-byte aligned
constexpr uint64_t kWorkerPeriodNs = 2000000;
// The worker's stack: it runs the drain and the tool's buffer callbacks, which
// need far less than the 8 MiB a default thread reserves (a program under
// `ulimit -v` has no room for that; the agent under test stays within it).
constexpr size_t kWorkerStackBytes = 1 << 20;
// Room for the largest record struct (CUpti_ActivityKernel10), checked in push().
constexpr size_t kMaxRecordBytes = 256;

// A record waiting for its completion time, stored as raw bytes of its struct,
// inline: the worker moves records without allocating, so it never makes
// glibc give it a malloc arena of its own (64 MiB of address space).
struct PendingRecord {
  uint64_t complete_at_ns = 0;  // CLOCK_MONOTONIC
  uint64_t sequence = 0;        // keeps records that complete together in report order
  uint32_t size = 0;
  alignas(kRecordAlignment) uint8_t bytes[kMaxRecordBytes];
  bool operator>(const PendingRecord& other) const {
    return complete_at_ns != other.complete_at_ns ? complete_at_ns > other.complete_at_ns
                                                  : sequence > other.sequence;
  }
};

struct ToolBuffer {
  uint8_t* data = nullptr;
  size_t size = 0;
  size_t used = 0;
};

// Enabled activity kinds, read on every API call and operation. Outside the
// queue, which is built on first use: a driver with no kind enabled checks a
// flag and does nothing more, as the real one.
std::atomic<bool> g_kind_enabled[CUPTI_ACTIVITY_KIND_COUNT] = {};

bool kind_enabled(CUpti_ActivityKind kind) {
  return kind > 0 && kind < CUPTI_ACTIVITY_KIND_COUNT && g_kind_enabled[kind].load(std::memory_order_relaxed);
}

// Never destroyed (see queue()): threads of the program may still report work
// while it exits, and a forked child replaces it rather than tearing it down.
class ActivityQueue {
 public:
  ActivityQueue() = default;
  // A forked child's queue: the tool's callbacks, none of the parent's records,
  // its partial buffer or its worker (which the child does not have).
  ActivityQueue(CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed)
      : requested_(requested), completed_(completed) {}
  ActivityQueue(const ActivityQueue&) = delete;
  ActivityQueue& operator=(const ActivityQueue&) = delete;

  void set_kind(CUpti_ActivityKind kind, bool on) {
    g_kind_enabled[kind].store(on, std::memory_order_relaxed);
    if (!on) return;
    std::lock_guard<std::mutex> lock(mutex_);
    start_worker_locked();
  }
  // Read without the lock by the fork handler: the child must not wait for a
  // mutex some thread of the parent held when it forked.
  CUpti_BuffersCallbackRequestFunc requested_unlocked() const { return requested_; }
  CUpti_BuffersCallbackCompleteFunc completed_unlocked() const { return completed_; }
  void register_callbacks(CUpti_BuffersCallbackRequestFunc requested, CUpti_BuffersCallbackCompleteFunc completed) {
    std::lock_guard<std::mutex> lock(mutex_);
    requested_ = requested;
    completed_ = completed;
  }
  bool has_callbacks() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requested_ != nullptr;
  }
  size_t dropped() const { return dropped_.load(); }

  template <typename Record>
  void push(const Record& record, uint64_t complete_at_ns) {
    static_assert(sizeof(Record) <= kMaxRecordBytes, "kMaxRecordBytes is smaller than a record");
    PendingRecord pending;
    pending.complete_at_ns = complete_at_ns;
    pending.size = sizeof(Record);
    std::memcpy(pending.bytes, &record, sizeof(Record));
    std::lock_guard<std::mutex> lock(mutex_);
    pending.sequence = next_sequence_++;
    pending_.push(pending);
    start_worker_locked();  // a forked child's queue starts its own on first use
    wake_.notify_one();
  }

  // Moves completed records (all of them, when forced) into tool buffers and
  // delivers full buffers; with `deliver_partial`, the last partial buffer too.
  void drain(bool forced, bool deliver_partial) {
    // Serialises writers of the tool's buffers; never held by the state mutex
    // holder, and the tool's callbacks run under it only, never under mutex_.
    if (!t_on_worker) flushes_waiting_.fetch_add(1);
    std::lock_guard<std::mutex> drain_lock(drain_mutex_);
    if (!t_on_worker) flushes_waiting_.fetch_sub(1);
    if (t_on_worker) signal_inside_delivery_once();
    uint64_t now = monotonic_now();
    if (forced) {
      // What is held when the flush begins, as CUPTI's flush: taking records
      // one by one until none is left never ends while other threads launch
      // as fast as they are taken (a program exiting while its threads
      // launch, under ThreadSanitizer's slowdown).
      PendingQueue held;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        held.swap(pending_);
      }
      for (; !held.empty(); held.pop()) {
        PendingRecord record = held.top();
        if (record.complete_at_ns > now) mark_incomplete(record, now);
        write(record.bytes, record.size);
      }
    } else {
      for (;;) {
        PendingRecord record;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          if (pending_.empty() || pending_.top().complete_at_ns > now) break;
          record = pending_.top();
          pending_.pop();
        }
        write(record.bytes, record.size);
      }
    }
    if (deliver_partial && current_.data != nullptr && current_.used > 0) deliver_current();
  }

  // cuptiFinalize: everything held goes to the tool (unfinished work marked
  // so), the worker ends, then the queue forgets the tool and is as new.
  void finalize() {
    drain(true, true);
    bool joinable = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      wake_.notify_all();
      joinable = worker_running_;
    }
    if (joinable) pthread_join(worker_, nullptr);
    std::lock_guard<std::mutex> lock(mutex_);
    requested_ = nullptr;
    completed_ = nullptr;
    worker_running_ = false;
    worker_unavailable_ = false;
    stopping_ = false;
  }

 private:
  // The worker delivers records as their work completes. Where no thread can be
  // made (an address-space limit), records still reach the tool at its flushes.
  void start_worker_locked() {
    if (worker_running_ || worker_unavailable_ || stopping_) return;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, kWorkerStackBytes);
    auto body = [](void* self) -> void* {
      pthread_setname_np(pthread_self(), "cupti-activity");
      static_cast<ActivityQueue*>(self)->run_worker();
      return nullptr;
    };
    worker_running_ = pthread_create(&worker_, &attributes, body, this) == 0;
    worker_unavailable_ = !worker_running_;
    pthread_attr_destroy(&attributes);
  }

  void run_worker() {
    t_on_worker = true;
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      uint64_t now = monotonic_now();
      uint64_t next = pending_.empty() ? now + kWorkerPeriodNs : std::min(pending_.top().complete_at_ns, now + kWorkerPeriodNs);
      wake_.wait_for(lock, std::chrono::nanoseconds(next > now ? next - now : 0));
      if (stopping_) break;
      if (pending_.empty() || pending_.top().complete_at_ns > monotonic_now()) continue;
      lock.unlock();
      drain(false, false);
      lock.lock();
    }
  }

  // SIMCUDA_SIGNAL_IN_DELIVERY=N (tests of a tool's signal handling): the
  // first time the worker holds the delivery lock while a flush on another
  // thread waits for it, it sends itself signal N there, as a process-wide
  // signal may land on CUPTI's thread in the middle of a delivery (with the
  // real CUPTI, on whichever thread holds its locks).
  void signal_inside_delivery_once() {
    static const int signal_number = [] {
      const char* value = std::getenv("SIMCUDA_SIGNAL_IN_DELIVERY");
      return value != nullptr ? std::atoi(value) : 0;
    }();
    if (signal_number <= 0 || signalled_.exchange(true)) return;
    for (int waited_ms = 0; flushes_waiting_.load() == 0 && waited_ms < 10000; ++waited_ms) usleep(1000);
    syscall(SYS_tgkill, getpid(), static_cast<pid_t>(syscall(SYS_gettid)), signal_number);
  }

  // Forced flush of work that has not finished: the record reports end = 0 (and
  // start = 0 if it had not started), as real CUPTI does.
  static void mark_incomplete(PendingRecord& record, uint64_t now) {
    CUpti_ActivityKind kind;
    std::memcpy(&kind, record.bytes, sizeof kind);
    auto zero_times = [&](auto* typed) {
      if (typed->start > tool_time(now)) typed->start = 0;
      typed->end = 0;
    };
    if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      zero_times(reinterpret_cast<CUpti_ActivityKernel10*>(record.bytes));
      reinterpret_cast<CUpti_ActivityKernel10*>(record.bytes)->completed = 0;
    } else if (kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      zero_times(reinterpret_cast<CUpti_ActivityMemcpy6*>(record.bytes));
    } else if (kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE) {
      zero_times(reinterpret_cast<CUpti_ActivityGraphTrace2*>(record.bytes));
    } else if (kind == CUPTI_ACTIVITY_KIND_MEMCPY2) {
      zero_times(reinterpret_cast<CUpti_ActivityMemcpyPtoP4*>(record.bytes));
    } else if (kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      zero_times(reinterpret_cast<CUpti_ActivityMemset4*>(record.bytes));
    }
  }

  void write(const uint8_t* bytes, size_t record_bytes) {
    size_t size = (record_bytes + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
    if (current_.data != nullptr && current_.used + size > current_.size) deliver_current();
    if (current_.data == nullptr) request_buffer();
    if (current_.data == nullptr || size > current_.size) {
      dropped_.fetch_add(1);  // the tool gave no (big enough) buffer
      return;
    }
    std::memcpy(current_.data + current_.used, bytes, record_bytes);
    current_.used += size;
  }

  void request_buffer() {
    CUpti_BuffersCallbackRequestFunc requested;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      requested = requested_;
    }
    if (requested == nullptr) return;
    uint8_t* data = nullptr;
    size_t size = 0, max_records = 0;
    requested(&data, &size, &max_records);
    current_ = {data, data ? size : 0, 0};
  }

  void deliver_current() {
    CUpti_BuffersCallbackCompleteFunc completed;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      completed = completed_;
    }
    ToolBuffer done = current_;
    current_ = {};
    if (completed) completed(nullptr, 0, done.data, done.size, done.used);
  }

  std::atomic<size_t> dropped_{0};
  std::mutex mutex_;  // guards everything below except current_
  std::condition_variable wake_;
  using PendingQueue = std::priority_queue<PendingRecord, std::vector<PendingRecord>, std::greater<PendingRecord>>;
  PendingQueue pending_;
  uint64_t next_sequence_ = 0;
  CUpti_BuffersCallbackRequestFunc requested_ = nullptr;
  CUpti_BuffersCallbackCompleteFunc completed_ = nullptr;
  bool worker_running_ = false;      // this process has a worker, joinable
  bool worker_unavailable_ = false;  // pthread_create failed: flushes deliver
  bool stopping_ = false;
  pthread_t worker_{};
  std::mutex drain_mutex_;  // guards current_
  std::atomic<int> flushes_waiting_{0};  // threads other than the worker waiting for drain_mutex_
  std::atomic<bool> signalled_{false};   // SIMCUDA_SIGNAL_IN_DELIVERY's signal was sent
  static thread_local bool t_on_worker;
  ToolBuffer current_;
};
thread_local bool ActivityQueue::t_on_worker = false;

std::atomic<ActivityQueue*> g_queue{nullptr};
void forget_graph_launches_in_child();

// Made on first use and never destroyed, so a thread that reports work while
// `main` returns finds it. A forked child gets a fresh one: the parent's may
// be locked by a thread the child does not have, and its records and worker
// are the parent's.
ActivityQueue& queue() {
  static std::once_flag created;
  std::call_once(created, [] {
    g_queue.store(new ActivityQueue);
    pthread_atfork(nullptr, nullptr, [] {
      ActivityQueue* parent = g_queue.load();
      g_queue.store(new ActivityQueue(parent->requested_unlocked(), parent->completed_unlocked()));
      forget_graph_launches_in_child();
    });
  });
  return *g_queue.load();
}

std::atomic<CUpti_ActivityThreadIdType> g_thread_id_type{CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT};
std::atomic<uint32_t> g_next_grid_id{1};

// Per thread and kind, the external ids pushed by the tool.
thread_local std::vector<uint64_t> t_external_ids[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

uint32_t thread_id_for_records(uint32_t tid) {
  if (g_thread_id_type.load() == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) return tid;
  return static_cast<uint32_t>(pthread_self());  // CUPTI's default: pthread_self(), truncated
}

size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof(CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: return sizeof(CUpti_ActivityGraphTrace2);
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL: return sizeof(CUpti_ActivityMemoryPool3);
    default: return 0;
  }
}

std::atomic<bool> g_devices_emitted{false};

// Device records are written once, when the device kind is enabled after cuInit or
// at cuInit when enabled before.
void emit_devices() {
  if (driver().device_count() == 0 || g_devices_emitted.exchange(true)) return;
  int count = driver().device_count();
  for (int i = 0; i < count; ++i) {
    SimDeviceInfo info{};
    if (driver().device_info(i, &info) != 0) continue;
    CUpti_ActivityDevice5 r{};
    r.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    r.globalMemoryBandwidth = static_cast<uint64_t>(info.memory_clock_khz) * 2 * info.memory_bus_width / 8;
    r.globalMemorySize = info.global_memory_bytes;
    r.coreClockRate = static_cast<uint32_t>(info.core_clock_khz);
    r.numMultiprocessors = static_cast<uint32_t>(info.multiprocessors);
    r.maxWarpsPerMultiprocessor = static_cast<uint32_t>(info.max_warps_per_multiprocessor);
    r.maxBlocksPerMultiprocessor = static_cast<uint32_t>(info.max_blocks_per_multiprocessor);
    r.maxSharedMemoryPerMultiprocessor = static_cast<uint32_t>(info.shared_memory_per_multiprocessor);
    r.maxRegistersPerBlock = static_cast<uint32_t>(info.registers_per_block);
    // The same numbers cuDeviceGetAttribute gives (model_context.cpp).
    r.numThreadsPerWarp = 32;
    r.maxRegistersPerMultiprocessor = 65536;
    r.maxSharedMemoryPerBlock = static_cast<uint32_t>(info.shared_memory_per_block);
    r.maxThreadsPerBlock = static_cast<uint32_t>(info.max_threads_per_block);
    r.maxBlockDimX = r.maxBlockDimY = 1024;
    r.maxBlockDimZ = 64;
    r.maxGridDimX = 2147483647;
    r.maxGridDimY = r.maxGridDimZ = 65535;
    r.computeCapabilityMajor = static_cast<uint32_t>(info.compute_major);
    r.computeCapabilityMinor = static_cast<uint32_t>(info.compute_minor);
    r.id = static_cast<uint32_t>(i);
    r.uuid = info.uuid;
    // The name must outlive the record; device infos are never freed.
    static char names[16][256];
    std::memcpy(names[i % 16], info.name, sizeof info.name);
    r.name = names[i % 16];
    r.isCudaVisible = 1;
    queue().push(r, 0);
  }
}

// GRAPH_TRACE: one record per graph launch, spanning the work of its nodes. The
// nodes' operations are reported while the launch call runs; the record is made
// when the driver's cuGraphLaunch returns.
struct GraphLaunchSpan {
  uint64_t start_ns = UINT64_MAX;
  uint64_t end_ns = 0;
  uint32_t device = 0, context_id = 0, stream_id = 0, graph_id = 0;
};
// Both never destroyed (threads may report while the program exits); a
// forked child starts with new ones, as with the queue.
std::mutex* g_graph_mutex = new std::mutex;
auto* g_graph_launches = new std::unordered_map<uint32_t, GraphLaunchSpan>;  // by correlation id

void forget_graph_launches_in_child() {
  g_graph_mutex = new std::mutex;
  g_graph_launches = new std::unordered_map<uint32_t, GraphLaunchSpan>;
}

void note_graph_operation(const SimOperation& op) {
  std::lock_guard<std::mutex> lock(*g_graph_mutex);
  GraphLaunchSpan& span = (*g_graph_launches)[op.correlation_id];
  if (op.start_ns < span.start_ns) {
    span.start_ns = op.start_ns;
    span.device = op.device;
    span.context_id = op.context_id;
    span.stream_id = op.stream_id;
    span.graph_id = op.graph_id;
  }
  span.end_ns = std::max(span.end_ns, op.end_ns);
}

void emit_graph_trace(uint32_t correlation_id) {
  GraphLaunchSpan span;
  {
    std::lock_guard<std::mutex> lock(*g_graph_mutex);
    auto found = g_graph_launches->find(correlation_id);
    if (found == g_graph_launches->end()) return;
    span = found->second;
    g_graph_launches->erase(found);
  }
  CUpti_ActivityGraphTrace2 r{};
  r.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  r.correlationId = correlation_id;
  r.start = tool_time(span.start_ns);
  r.end = tool_time(span.end_ns);
  r.deviceId = r.endDeviceId = span.device;
  r.contextId = r.endContextId = span.context_id;
  r.graphId = span.graph_id;
  r.streamId = span.stream_id;
  queue().push(r, span.end_ns);
}

// The fields the two copy records (Memcpy6, MemcpyPtoP4) share.
template <typename Record>
Record copy_record(CUpti_ActivityKind kind, const SimOperation& op) {
  Record r{};
  r.kind = kind;
  r.copyKind = op.copy_kind;
  r.srcKind = op.src_kind;
  r.dstKind = op.dst_kind;
  r.flags = op.is_async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : CUPTI_ACTIVITY_FLAG_NONE;
  r.bytes = op.bytes;
  r.start = tool_time(op.start_ns);
  r.end = tool_time(op.end_ns);
  r.deviceId = op.device;
  r.contextId = op.context_id;
  r.streamId = op.stream_id;
  r.correlationId = op.correlation_id;
  r.graphNodeId = op.graph_node_id;
  r.graphId = op.graph_id;
  r.channelType = CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
  return r;
}

bool is_graph_launch(const SimApiCall* call) {
  return call->domain == CUPTI_CB_DOMAIN_DRIVER_API &&
         (call->cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || call->cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz);
}

[[gnu::noinline]] void write_api_exit_records(const SimApiCall* call) {
  if (call->depth == 0 && kind_enabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)) {
    for (int kind = 0; kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; ++kind) {
      if (t_external_ids[kind].empty()) continue;
      CUpti_ActivityExternalCorrelation r{};
      r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
      r.externalKind = static_cast<CUpti_ExternalCorrelationKind>(kind);
      r.externalId = t_external_ids[kind].back();
      r.correlationId = call->correlation_id;
      queue().push(r, call->end_ns);
    }
  }
  if (is_graph_launch(call)) emit_graph_trace(call->correlation_id);
  CUpti_ActivityKind kind =
      call->domain == CUPTI_CB_DOMAIN_RUNTIME_API ? CUPTI_ACTIVITY_KIND_RUNTIME : CUPTI_ACTIVITY_KIND_DRIVER;
  if (!kind_enabled(kind)) return;
  CUpti_ActivityAPI r{};
  r.kind = kind;
  r.cbid = call->cbid;
  r.start = tool_time(call->start_ns);
  r.end = tool_time(call->end_ns);
  r.processId = static_cast<uint32_t>(getpid());
  r.threadId = thread_id_for_records(call->thread_id);
  r.correlationId = call->correlation_id;
  r.returnValue = static_cast<uint32_t>(call->result);
  queue().push(r, call->end_ns);
}

[[gnu::noinline]] void write_operation_record(const SimOperation* op) {
  if (op->graph_id != 0 && kind_enabled(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)) note_graph_operation(*op);
  if (op->kind == SIM_OP_KERNEL) {
    bool concurrent = kind_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (!concurrent && !kind_enabled(CUPTI_ACTIVITY_KIND_KERNEL)) return;
    CUpti_ActivityKernel10 r{};
    r.kind = concurrent ? CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL : CUPTI_ACTIVITY_KIND_KERNEL;
    r.start = tool_time(op->start_ns);
    r.end = tool_time(op->end_ns);
    r.completed = r.end;
    r.deviceId = op->device;
    r.contextId = op->context_id;
    r.streamId = op->stream_id;
    r.gridX = op->grid[0];
    r.gridY = op->grid[1];
    r.gridZ = op->grid[2];
    r.blockX = op->block[0];
    r.blockY = op->block[1];
    r.blockZ = op->block[2];
    r.staticSharedMemory = op->static_shared_memory;
    r.dynamicSharedMemory = op->dynamic_shared_memory;
    r.correlationId = op->correlation_id;
    r.gridId = g_next_grid_id.fetch_add(1);
    r.name = op->name;
    r.queued = CUPTI_TIMESTAMP_UNKNOWN;  // only with cuptiActivityEnableLatencyTimestamps
    r.submitted = CUPTI_TIMESTAMP_UNKNOWN;
    r.launchType = static_cast<uint8_t>(op->launch_type);  // CUpti_ActivityLaunchType
    r.clusterX = op->cluster[0];
    r.clusterY = op->cluster[1];
    r.clusterZ = op->cluster[2];
    r.graphNodeId = op->graph_node_id;
    r.graphId = op->graph_id;
    r.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
    queue().push(r, op->end_ns);
  } else if (op->kind == SIM_OP_MEMCPY && op->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_PTOP) {
    // Copies between devices are MEMCPY2 records only, as in real CUPTI.
    if (!kind_enabled(CUPTI_ACTIVITY_KIND_MEMCPY2)) return;
    CUpti_ActivityMemcpyPtoP4 r = copy_record<CUpti_ActivityMemcpyPtoP4>(CUPTI_ACTIVITY_KIND_MEMCPY2, *op);
    r.srcDeviceId = op->src_device;
    r.srcContextId = op->src_context_id;
    r.dstDeviceId = op->dst_device;
    r.dstContextId = op->dst_context_id;
    queue().push(r, op->end_ns);
  } else if (op->kind == SIM_OP_MEMCPY) {
    if (!kind_enabled(CUPTI_ACTIVITY_KIND_MEMCPY)) return;
    CUpti_ActivityMemcpy6 r = copy_record<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY, *op);
    r.copyCount = 1;
    queue().push(r, op->end_ns);
  } else if (op->kind == SIM_OP_MEMSET) {
    if (!kind_enabled(CUPTI_ACTIVITY_KIND_MEMSET)) return;
    CUpti_ActivityMemset4 r{};
    r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    r.value = op->memset_value;
    r.bytes = op->bytes;
    r.start = tool_time(op->start_ns);
    r.end = tool_time(op->end_ns);
    r.deviceId = op->device;
    r.contextId = op->context_id;
    r.streamId = op->stream_id;
    r.correlationId = op->correlation_id;
    r.flags = op->is_async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : CUPTI_ACTIVITY_FLAG_NONE;
    r.memoryKind = op->dst_kind;
    r.graphNodeId = op->graph_node_id;
    r.graphId = op->graph_id;
    queue().push(r, op->end_ns);
  }
}

}  // namespace

void activity_api_exit(const SimApiCall* call) {
  // A call with no record to write (no API kind enabled, as outside a
  // profiler's windows) costs these checks only, as in the real driver.
  if (!is_graph_launch(call) && !kind_enabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) &&
      !kind_enabled(CUPTI_ACTIVITY_KIND_RUNTIME) && !kind_enabled(CUPTI_ACTIVITY_KIND_DRIVER)) {
    return;
  }
  write_api_exit_records(call);
}


void activity_operation(const SimOperation* op) {
  if (!kind_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) && !kind_enabled(CUPTI_ACTIVITY_KIND_KERNEL) &&
      !kind_enabled(CUPTI_ACTIVITY_KIND_MEMCPY) && !kind_enabled(CUPTI_ACTIVITY_KIND_MEMCPY2) &&
      !kind_enabled(CUPTI_ACTIVITY_KIND_MEMSET) && !kind_enabled(CUPTI_ACTIVITY_KIND_GRAPH_TRACE)) {
    return;
  }
  write_operation_record(op);
}

// A pool's creation, destruction or trim: a MEMORY_POOL record.
void activity_memory_pool(const SimMemoryEvent* event) {
  if (!kind_enabled(CUPTI_ACTIVITY_KIND_MEMORY_POOL)) return;
  CUpti_ActivityMemoryPool3 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
  r.memoryPoolOperationType = event->operation == SIM_MEMORY_POOL_CREATED     ? CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED
                              : event->operation == SIM_MEMORY_POOL_DESTROYED ? CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED
                                                                              : CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED;
  r.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  r.correlationId = event->correlation_id;
  r.processId = static_cast<uint32_t>(getpid());
  r.deviceId = event->device;
  r.minBytesToKeep = event->pool_min_bytes_to_keep;
  r.address = event->pool_address;
  r.size = event->pool_reserved_bytes;
  r.releaseThreshold = event->pool_release_threshold;
  r.timestamp = tool_time(event->timestamp_ns);
  r.utilizedSize = event->pool_used_bytes;
  queue().push(r, event->timestamp_ns);
}

void activity_memory(const SimMemoryEvent* event) {
  if (event->operation >= SIM_MEMORY_POOL_CREATED) {
    activity_memory_pool(event);
    return;
  }
  if (!kind_enabled(CUPTI_ACTIVITY_KIND_MEMORY2)) return;
  CUpti_ActivityMemory4 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  r.memoryOperationType = event->operation == SIM_MEMORY_ALLOCATE ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION
                                                                   : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  r.memoryKind = static_cast<CUpti_ActivityMemoryKind>(event->memory_kind);
  r.correlationId = event->correlation_id;
  r.address = event->address;
  r.bytes = event->bytes;
  r.timestamp = tool_time(event->timestamp_ns);
  r.processId = static_cast<uint32_t>(getpid());
  r.deviceId = event->device;
  r.contextId = event->context_id;
  r.streamId = event->stream_id;
  r.isAsync = event->is_async;
  if (event->pool_address != 0) {  // a stream-ordered allocation's pool, after the event
    r.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    r.memoryPoolConfig.address = event->pool_address;
    r.memoryPoolConfig.releaseThreshold = event->pool_release_threshold;
    r.memoryPoolConfig.pool.size = event->pool_reserved_bytes;
    r.memoryPoolConfig.utilizedSize = event->pool_used_bytes;
  }
  queue().push(r, event->timestamp_ns);
}

void activity_synchronization(const SimSyncEvent* event) {
  if (!kind_enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)) return;
  CUpti_ActivitySynchronization2 r{};
  r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  r.type = static_cast<CUpti_ActivitySynchronizationType>(event->type);
  r.start = tool_time(event->start_ns);
  r.end = tool_time(event->end_ns);
  r.correlationId = event->correlation_id;
  r.contextId = event->context_id;
  r.streamId = event->stream_id;
  r.cudaEventId = event->event_id;
  r.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  queue().push(r, event->end_ns);
}

void activity_resource(const SimResourceEvent* event) {
  if (event->cbid == CUPTI_CBID_RESOURCE_CU_INIT_FINISHED && kind_enabled(CUPTI_ACTIVITY_KIND_DEVICE)) {
    emit_devices();
  }
  if (event->cbid != CUPTI_CBID_RESOURCE_CONTEXT_CREATED || !kind_enabled(CUPTI_ACTIVITY_KIND_CONTEXT)) {
    return;
  }
  CUpti_ActivityContext3 r{};
  r.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  uint32_t device = 0;
  driver().context_ids(event->context, &r.contextId, &device);
  r.deviceId = device;
  r.computeApiKind = CUPTI_ACTIVITY_COMPUTE_API_CUDA;
  uint32_t null_stream = 0;
  driver().stream_id(event->context, nullptr, &null_stream);
  r.nullStreamId = static_cast<uint16_t>(null_stream);
  queue().push(r, monotonic_now());
}

void activity_finalize() {
  for (auto& enabled : g_kind_enabled) enabled.store(false, std::memory_order_relaxed);
  queue().finalize();
  g_devices_emitted.store(false);
}

}  // namespace simcuda_cupti

using namespace simcuda_cupti;

extern "C" {

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  if (!attach()) return CUPTI_ERROR_UNKNOWN;
  if (record_size(kind) == 0) return CUPTI_ERROR_NOT_SUPPORTED;
  queue().set_kind(kind, true);
  if (kind == CUPTI_ACTIVITY_KIND_DEVICE) emit_devices();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableAndDump(CUpti_ActivityKind kind) { return cuptiActivityEnable(kind); }

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind) {
  if (record_size(kind) == 0) return CUPTI_ERROR_NOT_SUPPORTED;
  queue().set_kind(kind, false);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                                    CUpti_BuffersCallbackCompleteFunc funcBufferCompleted) {
  if (funcBufferRequested == nullptr || funcBufferCompleted == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!attach()) return CUPTI_ERROR_UNKNOWN;
  queue().register_callbacks(funcBufferRequested, funcBufferCompleted);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
  if (!queue().has_callbacks()) return CUPTI_SUCCESS;
  queue().drain((flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0, true);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityFlush(CUcontext, uint32_t, uint32_t flag) { return cuptiActivityFlushAll(flag); }

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t validBufferSizeBytes,
                                                CUpti_Activity** record) {
  if (buffer == nullptr || record == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  size_t offset = 0;
  if (*record != nullptr) {
    auto* current = reinterpret_cast<uint8_t*>(*record);
    size_t size = record_size((*record)->kind);
    if (size == 0) return CUPTI_ERROR_INVALID_KIND;
    offset = static_cast<size_t>(current - buffer) + (size + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
  }
  if (offset + sizeof(CUpti_ActivityKind) > validBufferSizeBytes) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *dropped = queue().dropped();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  t_external_ids[kind].push_back(id);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t* lastId) {
  if (kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  if (t_external_ids[kind].empty()) return CUPTI_ERROR_QUEUE_EMPTY;
  if (lastId) *lastId = t_external_ids[kind].back();
  t_external_ids[kind].pop_back();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type) {
  if (type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT && type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) {
    return CUPTI_ERROR_INVALID_PARAMETER;
  }
  g_thread_id_type.store(type);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetThreadIdType(CUpti_ActivityThreadIdType* type) {
  if (type == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *type = g_thread_id_type.load();
  return CUPTI_SUCCESS;
}

// Accepted and ignored: simcuda has no latency timestamps, launch attributes or
// flush period of its own beyond the worker's.
CUptiResult CUPTIAPI cuptiActivityEnableLatencyTimestamps(uint8_t) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiActivityEnableLaunchAttributes(uint8_t) { return CUPTI_SUCCESS; }
CUptiResult CUPTIAPI cuptiActivityFlushPeriod(uint32_t) { return CUPTI_SUCCESS; }

}  // extern "C"
