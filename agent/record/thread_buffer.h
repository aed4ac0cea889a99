#pragma once
// A single-producer, single-consumer ring of variable-sized records.
//
// The owning app thread is the only producer; the writer thread is the only
// consumer. A record is reserved, filled and committed with one release store
// of the write position, so the consumer sees either all of it or none of it.
// When the ring has no room the record is dropped and counted: reserve()
// never waits for the writer. The one wait there is, wait_for_room(), is
// bounded and called only where it lands in no recorded interval.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>

#include "stacks/native_stack.h"

namespace prof {

// Every record in the ring starts with this header; `size` covers the header,
// the record's fixed part and its trailing payload, rounded up to 8 bytes.
struct RecordHeader {
  uint16_t type;
  uint16_t payload_bytes;  // variable-length bytes after the fixed part
  uint32_t size;
};
static_assert(sizeof(RecordHeader) == 8);

inline constexpr uint16_t kPaddingRecord = 0;  // fills the ring's tail before a wrap

class ThreadBuffer {
 public:
  // `capacity` is rounded down to a power of two, at least 4 KiB.
  ThreadBuffer(size_t capacity, uint32_t tid);
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  uint32_t tid() const { return tid_; }
  // The thread's name when it first recorded: the writer's fallback for a
  // thread that exits before the writer could read its current name.
  const char* name_at_start() const { return name_at_start_; }
  void set_name_at_start(const char* name);
  size_t capacity() const { return capacity_; }

  // ---- producer side (owner thread only) ----

  // Returns space for `bytes` (header included) or nullptr when full, in which
  // case the drop is already counted. At most one reservation is open at once.
  //
  // `hold` > 0 also keeps that much room for a later record (an NVTX push
  // keeps room for its pop): later reservations leave it free, so the pop
  // is never dropped once its push was recorded, and the writer's ranges
  // stay paired when the ring fills. `hold` < 0 gives that much back first
  // (the pop, which then fits). Hold twice the later record's size: a wrap
  // may put up to a record's size of padding before it.
  //
  // Inline for the common case (nothing held or given back, no wrap, room by
  // the producer's cached view): with the commit below, the whole ring write
  // of an API call is a few instructions on the app thread, no call.
  [[gnu::always_inline]] void* reserve(size_t bytes, ptrdiff_t hold = 0) {
    if (hold == 0) {
      bytes = (bytes + 7) & ~size_t{7};
      const uint64_t pos = write_pos_.load(std::memory_order_relaxed);
      const size_t offset = pos & (capacity_ - 1);
      if (capacity_ - offset >= bytes && pos + bytes + held_bytes_ - cached_read_pos_ <= capacity_) [[likely]] {
        reserved_end_ = pos + bytes;
        auto* header = reinterpret_cast<RecordHeader*>(storage_.get() + offset);
        header->size = static_cast<uint32_t>(bytes);
        return header;
      }
    }
    return reserve_slow(bytes, hold);
  }
  [[gnu::always_inline]] void commit() {
    // Release: every byte of the record (and of any padding) is written first.
    write_pos_.store(reserved_end_, std::memory_order_release);
    // cached_read_pos_ may be stale, which only overstates the fill.
    if (!half_full_signalled_ && reserved_end_ - cached_read_pos_ > capacity_ / 2) [[unlikely]] {
      signal_half_full();
    }
  }
  // Whether `bytes` more may be held: at most an eighth of the ring, so that
  // pushes the app never pops cannot starve the ring.
  bool can_hold(size_t bytes) const { return held_bytes_ + bytes <= capacity_ / 8; }
  void release_held(size_t bytes) { held_bytes_ -= bytes < held_bytes_ ? bytes : held_bytes_; }
  // A record the producer gives up because an earlier one was dropped (the
  // pop of a dropped push): counted as dropped.
  void count_dropped() { dropped_.fetch_add(1, std::memory_order_relaxed); }

  // Back-pressure (PROF_RING_WAIT_MS), the producer's second line of
  // defence after the ring's size: when the ring is more than half full
  // (the writer was woken as it passed half), waits for the writer to bring
  // it back to half, sleeping 50 us to 1 ms at a time, at most the wait
  // limit. The
  // caller calls it only where the wait lands in no interval it records
  // (nvtx_capture.cpp: before the timestamp of a push at depth 0). A wait
  // that reaches the limit turns waiting off for this ring until the writer
  // has caught up (the ring back at half full or less): a writer that makes
  // no progress costs the app one limit per episode, and the records that
  // do not fit are dropped and counted as before. Cheap when the ring is at
  // most half full: one load and a compare.
  // Returns the wait that ended with room (the caller records it), or one
  // with start_ns == 0.
  struct Wait {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
  };
  // room_may_be_short(): the cheap check alone, for a caller that has more
  // to do before it waits. At most half full by the cached view (which only
  // overstates the fill): the writer has caught up, waits are on again.
  bool room_may_be_short() {
    if (write_pos_.load(std::memory_order_relaxed) - cached_read_pos_ <= capacity_ / 2) {
      waits_off_ = false;
      return false;
    }
    return true;
  }
  Wait wait_for_room() { return room_may_be_short() ? wait_for_room_slow() : Wait{}; }
  // The longest one wait_for_room() may wait, for every ring (0: never wait).
  // Set by the writer as it starts, and to 0 as it stops.
  static void set_wait_limit_ns(uint64_t ns) { wait_limit_ns_.store(ns, std::memory_order_relaxed); }
  struct WaitStats {
    uint64_t waits = 0;      // waits that found the ring over half full
    uint64_t timeouts = 0;   // waits that reached the limit
    uint64_t waited_ns = 0;  // in all
    uint64_t longest_ns = 0;
    void add(const WaitStats& other) {
      waits += other.waits;
      timeouts += other.timeouts;
      waited_ns += other.waited_ns;
      longest_ns = std::max(longest_ns, other.longest_ns);
    }
  };
  // Any thread (the writer reads it as a summary; counts may lag by one wait).
  WaitStats wait_stats() const {
    return {waits_.load(std::memory_order_relaxed), timeouts_.load(std::memory_order_relaxed),
            waited_ns_.load(std::memory_order_relaxed), longest_wait_ns_.load(std::memory_order_relaxed)};
  }

  // Called (on the producer's thread) when a buffer passes half full, so the
  // consumer drains it before it overflows rather than at its next period.
  // One call per half-fill, not per record: it may make a syscall.
  static void set_half_full_hook(void (*hook)()) { half_full_hook_.store(hook, std::memory_order_release); }
  // Calls the same hook as the owner thread exits: its ring is drained and
  // freed promptly, so that many short-lived threads do not pile up rings
  // between two periodic passes.
  static void wake_consumer() {
    if (auto hook = half_full_hook_.load(std::memory_order_acquire)) hook();
  }

  // ---- consumer side (writer thread only) ----

  // Calls `visit(const RecordHeader&)` for every committed record, then frees
  // their space. Returns the number of records visited. With `max_bytes`,
  // stops after the record that reaches that much of the ring, so that the
  // caller can write out what it made of them before it goes on.
  // With `until`, only the records committed before write_position() was
  // `until`.
  // With `ahead`, also calls `ahead(const RecordHeader&)` on the records up
  // to kLookaheadBytes beyond the one being visited (the writer prefetches
  // what they will look up), while `ahead.worth(visited record)` says the
  // ring is in a stretch of such records: a ring of CUDA calls pays one
  // check per record, not the walk.
  struct NoLookahead {
    static bool active() { return false; }
    static bool worth(const RecordHeader&) { return false; }
    void operator()(const RecordHeader&) const {}
  };
  static constexpr uint64_t kLookaheadBytes = 512;  // 8 NVTX records of a short name
  static constexpr size_t kReleaseBytes = 64u << 10;
  template <typename Visit, typename Ahead = NoLookahead>
  size_t drain(Visit&& visit, size_t max_bytes = SIZE_MAX, uint64_t until = UINT64_MAX, Ahead&& ahead = Ahead{});
  // Where the next record will be committed (any thread): drain(..., until)
  // stops there.
  uint64_t write_position() const { return write_pos_.load(std::memory_order_acquire); }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

  // Set by the owner as it exits; after seeing it the consumer drains once
  // more and may delete the buffer.
  void mark_owner_exited() { owner_exited_.store(true, std::memory_order_release); }
  bool owner_exited() const { return owner_exited_.load(std::memory_order_acquire); }

  // The owner thread's previous native stack walk, which its next walk
  // replays where the stack is the same (owner thread only). Null when it
  // could not be allocated, and once the owner exits: a ring waiting for
  // the writer then holds none of its 7 KB (10,000 short-lived threads).
  NativeWalkMemo* native_walk_memo() { return native_walk_memo_.get(); }
  void release_native_walk_memo() { native_walk_memo_.reset(); }

 private:
  // Rings are mapped, not malloc'ed: an unmapped ring gives its memory back
  // to the system at once, where freed malloc chunks of 16 MiB would stay in
  // the arenas of the (exited) threads that used them.
  struct FreeStorage {
    size_t bytes;  // no initializer: it must be default-constructible inside ThreadBuffer
    void operator()(std::byte* storage) const;
  };
  std::unique_ptr<std::byte[], FreeStorage> storage_;
  size_t capacity_;  // a power of two, or 0 when allocation failed
  uint32_t tid_;
  char name_at_start_[16] = {};  // TASK_COMM_LEN
  std::unique_ptr<NativeWalkMemo> native_walk_memo_{new (std::nothrow) NativeWalkMemo};

  // Producer-owned line.
  alignas(64) std::atomic<uint64_t> write_pos_{0};
  uint64_t reserved_end_ = 0;     // end of the open reservation
  uint64_t cached_read_pos_ = 0;  // producer's stale view of read_pos_
  bool half_full_signalled_ = false;  // reset when the producer sees the consumer's progress
  size_t held_bytes_ = 0;             // room kept for records to come (reserve's `hold`)
  std::atomic<uint64_t> dropped_{0};
  bool waits_off_ = false;  // a wait reached the limit; on again once the ring is back at half
  std::atomic<uint64_t> waits_{0};
  std::atomic<uint64_t> timeouts_{0};
  std::atomic<uint64_t> waited_ns_{0};
  std::atomic<uint64_t> longest_wait_ns_{0};
  Wait wait_for_room_slow();
  // reserve() when the ring wraps, is full by the cached view, or room is
  // held or given back.
  void* reserve_slow(size_t bytes, ptrdiff_t hold);
  void signal_half_full();

  // Consumer-owned line.
  alignas(64) std::atomic<uint64_t> read_pos_{0};
  std::atomic<bool> owner_exited_{false};

  static inline std::atomic<void (*)()> half_full_hook_{nullptr};
  static inline std::atomic<uint64_t> wait_limit_ns_{0};
};

template <typename Visit, typename Ahead>
size_t ThreadBuffer::drain(Visit&& visit, size_t max_bytes, uint64_t until, Ahead&& ahead) {
  // Acquire pairs with commit()'s release: the record bytes are visible.
  const uint64_t end = std::min(write_pos_.load(std::memory_order_acquire), until);
  const uint64_t start = read_pos_.load(std::memory_order_relaxed);
  // In locals: `visit` is opaque to the compiler, which would reload the
  // members after every call.
  const std::byte* const base = storage_.get();
  const uint64_t mask = capacity_ - 1;
  auto header_at = [base, mask](uint64_t at) { return reinterpret_cast<const RecordHeader*>(base + (at & mask)); };
  uint64_t pos = start;
  uint64_t ahead_pos = start;  // [pos, ahead_pos) had ahead(); committed records only: below `end`
  // Once per drain: whether a lookahead can gain anything at all.
  const bool may_look = ahead.active();
  bool looking = may_look;
  uint64_t release_at = start + kReleaseBytes;
  size_t visited = 0;
  while (pos < end && pos - start < max_bytes) {
    if constexpr (!std::is_same_v<std::decay_t<Ahead>, NoLookahead>) {
      if (looking) {
        if (ahead_pos < pos) ahead_pos = pos;
        while (ahead_pos < end && ahead_pos - pos < kLookaheadBytes) {
          const RecordHeader* next = header_at(ahead_pos);
          ahead(*next);  // padding included: it looks only at the types it knows
          ahead_pos += next->size;
        }
      }
    }
    const RecordHeader* header = header_at(pos);
    if (header->type != kPaddingRecord) {
      visit(*header);
      ++visited;
      if constexpr (!std::is_same_v<std::decay_t<Ahead>, NoLookahead>) looking = may_look && ahead.worth(*header);
    }
    pos += header->size;
    // Room given back every 64 KiB, not only at the end of a slice: a
    // producer waiting for room (wait_for_room) goes on as soon as there is
    // some.
    if (pos >= release_at) {
      read_pos_.store(pos, std::memory_order_release);
      release_at = pos + kReleaseBytes;
    }
  }
  // Release: the producer may reuse the space only after we stopped reading it.
  read_pos_.store(pos, std::memory_order_release);
  return visited;
}

}  // namespace prof
