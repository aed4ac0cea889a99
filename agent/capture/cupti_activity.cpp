#include "capture/cupti_activity.h"

#include <signal.h>
#include <sys/mman.h>
#include <time.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "agent_state.h"
#include "common/clock.h"
#include "common/futex.h"
#include "common/log.h"

namespace prof {
namespace {

// CUPTI fills a buffer before handing it back; 4 MiB holds ~20k kernel
// records and is what CUPTI's own samples use.
constexpr size_t kBufferBytes = 4u << 20;
constexpr size_t kSpareBuffers = 4;  // decoded buffers kept for reuse (16 MiB at most)
// libprof-cupti's stack: it runs CUPTI's flush and the buffer callbacks,
// far less than the 8 MiB a default thread reserves. A program under
// `ulimit -v` has no room for those 8 MiB beside CUPTI's buffers, and the
// buffers it would then lose are the records (simcuda_lifecycle_address_
// space_limit: 3 failures in 6 runs with the default stack).
constexpr size_t kDeliveryStackBytes = 1u << 20;

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

std::string CuptiActivity::register_buffers() {
  agent_state().cuda.activity.store(this, std::memory_order_release);
  CUptiResult result = cupti_.ActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  if (result != CUPTI_SUCCESS) {
    registered_ = false;
    return std::string("all (") + cupti_.describe(result) + ")";
  }
  registered_ = true;
  return {};
}

void CuptiActivity::disable_kinds() {
  if (!registered_) return;
  for (CUpti_ActivityKind kind : kKinds) cupti_.ActivityDisable(kind);
}

std::string CuptiActivity::enable_kinds() {
  if (!registered_) return {};
  std::string refused;
  for (CUpti_ActivityKind kind : kKinds) {
    if (cupti_.ActivityEnable(kind) != CUPTI_SUCCESS) {
      refused += refused.empty() ? "" : ", ";
      refused += kind_name(kind);
    }
  }
  return refused;
}

void CUPTIAPI CuptiActivity::on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  CuptiActivity* self = agent_state().cuda.activity.load(std::memory_order_acquire);
  *buffer = self != nullptr ? self->take_spare() : nullptr;
  if (*buffer == nullptr) *buffer = new_buffer();
  *size = *buffer != nullptr ? kBufferBytes : 0;  // no buffer: CUPTI drops and counts
  *max_records = 0;
}

void CUPTIAPI CuptiActivity::on_buffer_completed(CUcontext context, uint32_t stream_id,
                                                 uint8_t* buffer, size_t, size_t valid_size) {
  CuptiActivity* self = agent_state().cuda.activity.load(std::memory_order_acquire);
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

void CuptiActivity::flush(bool forced) {
  // Not under mutex_: CUPTI calls on_buffer_completed from inside this.
  std::lock_guard cupti(cupti_mutex_);
  if (!attached_.load(std::memory_order_relaxed)) return;
  cupti_.ActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

namespace {
// Whether delivery `done` has served `ticket` (tickets wrap at 2^32).
bool served(uint32_t done, uint32_t ticket) { return static_cast<int32_t>(done - ticket) >= 0; }
}  // namespace

uint64_t CuptiActivity::request_delivery(bool forced) {
  if (delivery_thread_ == DeliveryThread::none) {
    delivery_thread_ = start_delivery_thread() ? DeliveryThread::running : DeliveryThread::unavailable;
  }
  const uint32_t ticket = delivery_requested_.load(std::memory_order_relaxed) + 1;
  if (delivery_thread_ == DeliveryThread::unavailable) {
    // No thread could be made (a thread limit): the writer flushes itself,
    // and a signal handler's wait for it may then time out.
    delivery_requested_.store(ticket, std::memory_order_relaxed);
    flush(forced);
    delivery_done_.store(ticket, std::memory_order_release);
    return ticket;
  }
  if (forced) delivery_forced_up_to_.store(ticket, std::memory_order_relaxed);
  delivery_requested_.store(ticket, std::memory_order_release);
  futex_wake_all(delivery_requested_);
  return ticket;
}

bool CuptiActivity::wait_for_delivery(uint64_t ticket, uint32_t timeout_us) {
  const auto wanted = static_cast<uint32_t>(ticket);
  const uint64_t deadline = monotonic_ns() + uint64_t{timeout_us} * 1000;
  for (;;) {
    const uint32_t done = delivery_done_.load(std::memory_order_acquire);
    if (served(done, wanted)) return true;
    const uint64_t now = monotonic_ns();
    if (now >= deadline) return false;
    futex_wait(delivery_done_, done, deadline - now);
  }
}

bool CuptiActivity::start_delivery_thread() {
  // Born with every signal blocked: no handler may run on it (the handler
  // would wait for the writer, which may wait for this thread).
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);  // it lasts as long as the process
  pthread_attr_setstacksize(&attributes, kDeliveryStackBytes);
  pthread_t thread;
  const bool made = pthread_create(
                        &thread, &attributes,
                        [](void* self) -> void* {
                          pthread_setname_np(pthread_self(), "libprof-cupti");
                          static_cast<CuptiActivity*>(self)->deliver_requests();
                          return nullptr;
                        },
                        this) == 0;
  pthread_attr_destroy(&attributes);
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (!made) log_debug("no thread for CUPTI's flushes; the writer flushes itself");
  return made;
}

void CuptiActivity::deliver_requests() {
  uint32_t done = 0;
  for (;;) {
    const uint32_t asked = delivery_requested_.load(std::memory_order_acquire);
    if (asked == done) {
      futex_wait(delivery_requested_, asked, UINT64_MAX);
      continue;
    }
    // Every request up to `asked` is served by this flush: forced if any was.
    flush(!served(done, delivery_forced_up_to_.load(std::memory_order_relaxed)));
    done = asked;
    delivery_done_.store(done, std::memory_order_release);
    futex_wake_all(delivery_done_);
  }
}

namespace {
// Takes `mutex` unless a signal handler waits for the writer meanwhile
// (HandlerWaits): false then, with the mutex not taken. Polled, every
// 100 us: the holder is the delivery thread inside CUPTI, or CUPTI's
// thread queueing a buffer.
bool lock_unless_a_handler_waits(std::mutex& mutex, HandlerWaits handler_waits) {
  while (!mutex.try_lock()) {
    if (handler_waits.now()) return false;
    timespec nap{0, 100'000};
    nanosleep(&nap, nullptr);
  }
  return true;
}
}  // namespace

void CuptiActivity::drain(ChunkSink& sink) {
  decoder_.decode_held(sink);
  // Buffers CUPTI handed over while it detached wait for it to be back.
  if (!lock_unless_a_handler_waits(cupti_mutex_, sink.handler_waits)) return;
  std::lock_guard cupti(cupti_mutex_, std::adopt_lock);
  if (!attached_.load(std::memory_order_relaxed)) return;
  {
    // CUPTI's thread holds it in on_buffer_completed.
    if (!lock_unless_a_handler_waits(mutex_, sink.handler_waits)) return;
    std::lock_guard lock(mutex_, std::adopt_lock);
    draining_.swap(completed_);
  }
  for (const Buffer& buffer : draining_) {
    CUpti_Activity* record = nullptr;
    while (cupti_.ActivityGetNextRecord(buffer.data, buffer.valid_size, &record) == CUPTI_SUCCESS) {
      decoder_.decode(record, sink);
    }
    keep_spare(buffer.data);
  }
  draining_.clear();
}

void CuptiActivity::between_windows(ChunkSink& sink) {
  if (detacher_.wanted == nullptr || !attached_.load(std::memory_order_acquire) || !detacher_.wanted()) return;
  // Activity kinds are off between windows: after this nothing more comes.
  if (!deliver(true, sink.handler_waits)) return;
  drain(sink);
  detacher_.request();
}

bool CuptiActivity::try_detach(CUptiResult (*finalize)()) {
  std::unique_lock cupti(cupti_mutex_, std::try_to_lock);
  if (!cupti.owns_lock() || !attached_.load(std::memory_order_relaxed)) return false;
  finalize();
  registered_ = false;
  attached_.store(false, std::memory_order_release);
  return true;
}

std::string CuptiActivity::attach(const std::function<std::string()>& subscribe) {
  std::lock_guard cupti(cupti_mutex_);
  if (attached_.load(std::memory_order_relaxed)) return {};
  if (std::string refused = subscribe(); !refused.empty()) return refused;
  attached_.store(true, std::memory_order_release);
  return register_buffers();
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
  // Not waited for: CUPTI's thread takes it in on_buffer_requested, where a
  // signal may hold it (HandlerWaits); the buffer is freed instead.
  std::unique_lock lock(spare_mutex_, std::try_to_lock);
  if (lock.owns_lock() && spare_.size() < kSpareBuffers) {
    spare_.push_back(buffer);
    return;
  }
  if (lock.owns_lock()) lock.unlock();
  free(buffer);
}

}  // namespace prof
