#include "record/thread_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <ctime>

#include "common/clock.h"

namespace prof {
namespace {
constexpr size_t kHugePage = 2u << 20;  // x86-64 and most arm64 kernels
}  // namespace

void ThreadBuffer::FreeStorage::operator()(std::byte* storage) const { munmap(storage, bytes); }

ThreadBuffer::ThreadBuffer(size_t capacity, uint32_t tid)
    : capacity_(std::bit_floor(capacity < 4096 ? size_t{4096} : capacity)), tid_(tid) {
  // Rings of 2 MiB and more are aligned to 2 MiB and asked for transparent
  // huge pages past their first 2 MiB: a 16 MiB ring then costs 512 + 7
  // page faults instead of 4096 (on the app thread, as it first fills the
  // ring), and fewer TLB entries on the two threads that touch it. The first
  // 2 MiB stay in small pages, so that a thread that records a few records
  // and exits holds one 4 KiB page until the writer frees its ring, not a
  // 2 MiB huge page: with 10,000 short-lived threads the rings waiting for
  // the writer held 2 MiB each (70 MiB more peak memory than for 1,000
  // threads). Only advice: without THP the ring works the same on small pages.
  const size_t alignment = capacity_ >= kHugePage ? kHugePage : 0;
  void* mapped = mmap(nullptr, capacity_ + alignment, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  // Without memory the buffer has no room and every record counts as dropped.
  if (mapped == MAP_FAILED) {
    capacity_ = 0;
    return;
  }
  auto* start = static_cast<std::byte*>(mapped);
  if (alignment != 0) {  // keep the aligned part of the mapping
    const size_t head = (alignment - reinterpret_cast<uintptr_t>(start) % alignment) % alignment;
    if (head != 0) munmap(start, head);
    if (alignment - head != 0) munmap(start + head + capacity_, alignment - head);
    start += head;
  }
  storage_ = std::unique_ptr<std::byte[], FreeStorage>(start, FreeStorage{capacity_});
  if (capacity_ > kHugePage) madvise(storage_.get() + kHugePage, capacity_ - kHugePage, MADV_HUGEPAGE);
  // The first page's fault now, as the thread registers (before the
  // timestamp of its first event), not in its first record: it would land
  // inside the thread's first recorded interval.
  *reinterpret_cast<volatile std::byte*>(storage_.get()) = std::byte{0};
}

void ThreadBuffer::set_name_at_start(const char* name) {
  strncpy(name_at_start_, name, sizeof(name_at_start_) - 1);
}

void* ThreadBuffer::reserve_slow(size_t bytes, ptrdiff_t hold) {
  if (hold < 0) release_held(static_cast<size_t>(-hold));
  const size_t kept = held_bytes_ + (hold > 0 ? static_cast<size_t>(hold) : 0);
  bytes = (bytes + 7) & ~size_t{7};
  const uint64_t pos = write_pos_.load(std::memory_order_relaxed);
  const size_t offset = pos & (capacity_ - 1);
  // A record never wraps: if it does not fit before the end, the tail becomes
  // padding and the record starts at offset 0.
  const size_t tail = capacity_ - offset;
  const size_t padding = tail < bytes ? tail : 0;
  const uint64_t needed = padding + bytes;
  if (pos + needed + kept - cached_read_pos_ > capacity_) {
    // Acquire pairs with drain()'s release: the consumer is done with that space.
    cached_read_pos_ = read_pos_.load(std::memory_order_acquire);
    half_full_signalled_ = false;
    if (pos + needed + kept - cached_read_pos_ > capacity_) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
  }
  held_bytes_ = kept;
  if (padding != 0) {
    auto* pad = reinterpret_cast<RecordHeader*>(storage_.get() + offset);
    pad->type = kPaddingRecord;
    pad->payload_bytes = 0;
    pad->size = static_cast<uint32_t>(padding);
  }
  reserved_end_ = pos + needed;
  auto* record = storage_.get() + ((pos + padding) & (capacity_ - 1));
  reinterpret_cast<RecordHeader*>(record)->size = static_cast<uint32_t>(bytes);
  return record;
}

void ThreadBuffer::signal_half_full() {
  half_full_signalled_ = true;
  if (auto hook = half_full_hook_.load(std::memory_order_acquire)) hook();
}

ThreadBuffer::Wait ThreadBuffer::wait_for_room_slow() {
  // Acquire pairs with drain()'s release, as in reserve().
  cached_read_pos_ = read_pos_.load(std::memory_order_acquire);
  const uint64_t pos = write_pos_.load(std::memory_order_relaxed);
  if (pos - cached_read_pos_ <= capacity_ / 2) {
    waits_off_ = false;
    return {};
  }
  const uint64_t limit = wait_limit_ns_.load(std::memory_order_relaxed);
  if (waits_off_ || limit == 0) return {};
  wake_consumer();  // it was woken at half full; once more costs nothing here
  const uint64_t start = monotonic_ns();
  uint64_t now = start;
  bool room = false;
  // 50 us naps at first (most waits end within a slice of the writer's
  // work), longer ones as the wait goes on, so that a thread waiting long on
  // a loaded machine does not take the core from the writer it waits for.
  long nap_ns = 50'000;
  while (!room && now - start < limit) {
    timespec nap{0, nap_ns};
    nanosleep(&nap, nullptr);
    nap_ns = std::min(2 * nap_ns, 1'000'000L);
    cached_read_pos_ = read_pos_.load(std::memory_order_acquire);
    room = pos - cached_read_pos_ <= capacity_ / 2;
    now = monotonic_ns();
  }
  half_full_signalled_ = false;
  const uint64_t waited = now - start;
  waits_.fetch_add(1, std::memory_order_relaxed);
  waited_ns_.fetch_add(waited, std::memory_order_relaxed);
  if (waited > longest_wait_ns_.load(std::memory_order_relaxed)) {
    longest_wait_ns_.store(waited, std::memory_order_relaxed);
  }
  if (!room) {
    timeouts_.fetch_add(1, std::memory_order_relaxed);
    waits_off_ = true;
    return {};
  }
  return {start, now};
}

}  // namespace prof
