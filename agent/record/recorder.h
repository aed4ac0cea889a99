#pragma once
// The registry of per-thread buffers: app threads reach their own buffer
// through a thread-local pointer (no lock after the first record of a
// thread); the writer thread visits all of them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "record/records.h"
#include "record/thread_buffer.h"

namespace prof {

class Recorder {
 public:
  explicit Recorder(size_t buffer_bytes) : buffer_bytes_(buffer_bytes) {}
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // ---- app threads ----

  // The calling thread's buffer, created on its first record (the one
  // allocation and lock a thread ever pays); nullptr when recording stopped.
  // Inline: one thread-local load per record after the first.
  ThreadBuffer* thread_buffer() {
    if (t_buffer_ != nullptr) [[likely]] {
      return t_buffer_;
    }
    if (!accepting()) return nullptr;
    return register_thread();
  }
  // In a forked child: the calling thread's buffer belongs to the parent's
  // recorder (a copy nobody drains); its next record registers anew.
  static void forget_this_thread();
  // The calling thread's buffer if it has one; never makes one.
  static ThreadBuffer* registered_buffer() { return t_buffer_; }

  bool accepting() const { return accepting_.load(std::memory_order_acquire); }
  // Whether any thread has started recording (registered a buffer).
  bool recording_started() const { return recording_started_.load(std::memory_order_acquire); }
  // Later records are ignored; what is in the buffers stays for the writer.
  void stop_accepting() { accepting_.store(false, std::memory_order_release); }
  // Called once, on the thread whose record is the process's first, before
  // that record is written: the agent starts its writer thread there, so a
  // process that never records starts none (issue #30).
  void set_first_record_hook(void (*hook)()) { first_record_hook_ = hook; }

  // ---- writer thread ----

  // Calls visit(const ThreadBuffer&, const RecordHeader&) for every committed
  // record of every thread, and frees the buffers of threads that exited.
  // Calls after_slice() after each kSliceBytes of a buffer: the writer turns
  // records into a chunk it writes at 4 MiB, and without slices a drain of
  // many full rings (8 threads x 16 MiB) built one chunk of ~40 MB, with
  // the memory (and page faults) that takes.
  // `ahead(const RecordHeader&)`: ThreadBuffer::drain's lookahead.
  template <typename Visit, typename AfterSlice, typename Ahead = ThreadBuffer::NoLookahead>
  void drain_all(Visit&& visit, AfterSlice&& after_slice, Ahead&& ahead = Ahead{});
  template <typename Visit>
  void drain_all(Visit&& visit) {
    drain_all(visit, [] {});
  }

  // Where each thread's next record will go (any thread): a capture window
  // ends there, so that the records its threads commit after it ended go to
  // the next window's file however late the writer drains them.
  using Positions = std::vector<std::pair<const ThreadBuffer*, uint64_t>>;
  Positions positions() const;
  // drain_all up to `until` only; buffers registered since are left alone
  // (the next drain takes them).
  template <typename Visit, typename AfterSlice, typename Ahead = ThreadBuffer::NoLookahead>
  void drain_until(const Positions& until, Visit&& visit, AfterSlice&& after_slice, Ahead&& ahead = Ahead{});

  // Records dropped because a buffer was full, over all threads ever seen.
  uint64_t dropped() const;
  // The app threads' waits for room (ThreadBuffer::wait_for_room), over all
  // threads ever seen.
  ThreadBuffer::WaitStats wait_stats() const;

 private:
  friend void on_thread_exit(void*);
  ThreadBuffer* register_thread();

  static constexpr size_t kSliceBytes = 1u << 20;

  // initial-exec: a plain %fs-relative load, no __tls_get_addr call per record.
  [[gnu::tls_model("initial-exec")]] static inline thread_local ThreadBuffer* t_buffer_ = nullptr;

  const size_t buffer_bytes_;
  void (*first_record_hook_)() = nullptr;  // set before recording starts
  std::atomic<bool> accepting_{true};
  mutable std::mutex mutex_;  // guards buffers_ and retired_dropped_
  std::atomic<bool> recording_started_{false};
  std::vector<ThreadBuffer*> buffers_;
  uint64_t retired_dropped_ = 0;
  ThreadBuffer::WaitStats retired_waits_;
  std::vector<ThreadBuffer*> snapshot_;  // writer's scratch, reused
};

// Reserves a record of type `Record` followed by `payload_bytes` bytes in the
// calling thread's buffer. Returns nullptr when the record is dropped.
// `hold`: ThreadBuffer::reserve's.
template <typename Record>
Record* begin_record(ThreadBuffer& buffer, RecordType type, uint32_t payload_bytes, ptrdiff_t hold = 0) {
  void* space = buffer.reserve(sizeof(Record) + payload_bytes, hold);
  if (space == nullptr) return nullptr;
  auto* record = static_cast<Record*>(space);
  record->header.type = static_cast<uint16_t>(type);
  record->header.payload_bytes = static_cast<uint16_t>(payload_bytes);
  return record;
}

template <typename Visit, typename AfterSlice, typename Ahead>
void Recorder::drain_all(Visit&& visit, AfterSlice&& after_slice, Ahead&& ahead) {
  {
    std::lock_guard lock(mutex_);
    snapshot_ = buffers_;
  }
  for (ThreadBuffer* buffer : snapshot_) {
    // Read the exit flag before draining: the owner sets it after its last
    // commit, so this drain sees every record it will ever write.
    const bool exited = buffer->owner_exited();
    // At most one ring's worth of slices: a thread that keeps recording
    // while it is drained must not keep the writer from the other threads.
    // An exited thread has at most one ring's worth left.
    for (size_t slice = 0; slice <= buffer->capacity() / kSliceBytes + 1; ++slice) {
      if (buffer->drain([&](const RecordHeader& header) { visit(*buffer, header); }, kSliceBytes,
                        UINT64_MAX, ahead) == 0) {
        break;
      }
      after_slice();
    }
    if (exited) {
      std::lock_guard lock(mutex_);
      std::erase(buffers_, buffer);
      retired_dropped_ += buffer->dropped();
      retired_waits_.add(buffer->wait_stats());
      delete buffer;
    }
  }
}

template <typename Visit, typename AfterSlice, typename Ahead>
void Recorder::drain_until(const Positions& until, Visit&& visit, AfterSlice&& after_slice, Ahead&& ahead) {
  {
    std::lock_guard lock(mutex_);
    snapshot_ = buffers_;
  }
  for (size_t at = 0; at < snapshot_.size(); ++at) {
    ThreadBuffer* buffer = snapshot_[at];
    // Only buffers still registered are touched: one freed since the
    // positions were taken was drained to its end before.
    // Buffers are only appended between the positions and the snapshot
    // (the writer alone removes them), so each is mostly at its own index.
    auto limit = at < until.size() && until[at].first == buffer
                     ? until.begin() + static_cast<ptrdiff_t>(at)
                     : std::find_if(until.begin(), until.end(), [&](const auto& p) { return p.first == buffer; });
    if (limit == until.end()) continue;
    const bool exited = buffer->owner_exited();
    for (size_t slice = 0; slice <= buffer->capacity() / kSliceBytes + 1; ++slice) {
      if (buffer->drain([&](const RecordHeader& header) { visit(*buffer, header); }, kSliceBytes,
                        limit->second, ahead) == 0) {
        break;
      }
      after_slice();
    }
    if (exited && buffer->write_position() <= limit->second) {  // drained to its end
      std::lock_guard lock(mutex_);
      std::erase(buffers_, buffer);
      retired_dropped_ += buffer->dropped();
      retired_waits_.add(buffer->wait_stats());
      delete buffer;
    }
  }
}

}  // namespace prof
