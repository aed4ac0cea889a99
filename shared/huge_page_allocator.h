#pragma once
// std::allocator for the large tables of both programs: the agent writer's
// lookup tables (interned strings, stacks) and the analyzer's event tables.
// Buffers of 4 MiB and more start on a 2 MiB boundary and are advised into
// transparent huge pages; smaller ones come from std::allocator.
//
// Huge pages: probes into a table of a million strings land on random
// pages; on 4 KiB pages nearly every probe was a TLB miss, which on a VM
// (nested page tables) cost more than the rest of interning the string.
// Tables of millions of events fault in 2 MiB at a time instead of 4 KiB:
// on a VM each fault is an exit to the host, and 4 KiB faults of the event
// tables were a third of `report`'s time (10M events: 8.4 -> 4.4 s CPU).
// Aligned: malloc's 16-byte offset into its mapping would leave the first
// and last 2 MiB in small pages. Only advice: without THP the tables work
// the same on small pages.
//
// Where the large buffers come from differs, and is the Source argument:
// - OwnMappings (the agent): each is mapped on its own and unmapped when
//   freed, so the agent's tables never enter the app's malloc arenas.
// - AlignedHeap (the analyzer): aligned operator new. A freed table's
//   memory is reused by the next one, already faulted in; with a mapping
//   per table every table's pages are fresh and the kernel clears them
//   again: `advise` on 10M events took 9% more CPU (bench/bench.py's
//   capture, interleaved runs), though it peaked 2% lower.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace prof {

namespace huge_page {
inline constexpr size_t kSize = 2u << 20;
}  // namespace huge_page

struct OwnMappings {
  static void* get(size_t bytes) {
    // One huge page more than needed, then the unaligned head and the tail
    // unmapped again. The mapping ends at the buffer's last small page: a
    // last huge page the buffer only begins is faulted as far as it is used
    // rather than 2 MiB at once.
    void* raw = mmap(nullptr, bytes + huge_page::kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto* start = static_cast<std::byte*>(raw);
    const size_t head = (huge_page::kSize - reinterpret_cast<uintptr_t>(start) % huge_page::kSize) % huge_page::kSize;
    if (head != 0) munmap(start, head);
    munmap(start + head + bytes, huge_page::kSize - head);
    return start + head;
  }
  static void put(void* p, size_t bytes) noexcept { munmap(p, bytes); }
};

struct AlignedHeap {
  static void* get(size_t bytes) { return ::operator new(bytes, std::align_val_t{huge_page::kSize}); }
  static void put(void* p, size_t bytes) noexcept { ::operator delete(p, bytes, std::align_val_t{huge_page::kSize}); }
};

template <typename T, typename Source>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U, Source>&) noexcept {}

  static constexpr size_t kPage = 4096;
  static bool large(size_t n) { return n * sizeof(T) >= 2 * huge_page::kSize; }
  // Whole small pages (what a mapping holds; the heap's buffer is that or
  // more, since it starts on a huge page).
  static size_t large_bytes(size_t n) { return (n * sizeof(T) + kPage - 1) & ~(kPage - 1); }

  T* allocate(size_t n) {
    if (!large(n)) return std::allocator<T>{}.allocate(n);
    void* p = Source::get(large_bytes(n));
    // Before the first write, so that even a growing vector's copy into
    // its new buffer faults in huge pages. Failure (no THP, a sanitizer's
    // own mapping) only costs speed.
    (void)madvise(p, large_bytes(n), MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (!large(n)) return std::allocator<T>{}.deallocate(p, n);
    Source::put(p, large_bytes(n));
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

}  // namespace prof
