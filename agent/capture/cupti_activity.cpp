#include "capture/cupti_activity.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "agent_state.h"
#include "common/log.h"

namespace prof {
namespace {

// CUPTI fills a buffer before handing it back; 4 MiB holds ~20k kernel
// records and is what CUPTI's own samples use.
constexpr size_t kBufferBytes = 4u << 20;
constexpr size_t kSpareBuffers = 4;  // decoded buffers kept for reuse (16 MiB at most)


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

void CuptiActivity::request_delivery(bool forced) {
  // Not under mutex_: CUPTI calls on_buffer_completed from inside this.
  std::lock_guard cupti(cupti_mutex_);
  if (!attached_.load(std::memory_order_relaxed)) return;
  cupti_.ActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void CuptiActivity::drain(ChunkSink& sink) {
  decoder_.decode_held(sink);
  // Buffers CUPTI handed over while it detached wait for it to be back.
  std::lock_guard cupti(cupti_mutex_);
  if (!attached_.load(std::memory_order_relaxed)) return;
  {
    std::lock_guard lock(mutex_);
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
  request_delivery(true);
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
  {
    std::lock_guard lock(spare_mutex_);
    if (spare_.size() < kSpareBuffers) {
      spare_.push_back(buffer);
      return;
    }
  }
  free(buffer);
}

}  // namespace prof
