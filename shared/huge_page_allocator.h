#pragma once
// std::allocator for the large tables of both programs: the agent writer's
// lookup tables (interned strings, stacks) and the analyzer's event tables.
// Buffers of 4 MiB and more are mapped on their own, start on a 2 MiB
// boundary and are advised into transparent huge pages; smaller ones come
// from std::allocator.
//
// Huge pages: probes into a table of a million strings land on random
// pages; on 4 KiB pages nearly every probe was a TLB miss, which on a VM
// (nested page tables) cost more than the rest of interning the string.
// Tables of millions of events fault in 2 MiB at a time instead of 4 KiB:
// on a VM each fault is an exit to the host, and 4 KiB faults of the event
// tables were a third of `report`'s time (10M events: 8.4 -> 4.4 s CPU).
// Aligned: malloc's 16-byte offset into its mapping would leave the first
// and last 2 MiB in small pages.
// Mapped rather than malloc'ed: in the agent, freed tables go back to the
// system, not into the app's malloc arenas. The analyzer measured no worse
// for it (bench: report, advise and trace on 10M events). Only advice:
// without THP the tables work the same on small pages.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace prof {

template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  static constexpr size_t kHugePage = 2u << 20;
  static constexpr size_t kPage = 4096;
  static bool mapped(size_t n) { return n * sizeof(T) >= 2 * kHugePage; }
  // Whole small pages, not huge ones: the part of a last huge page that the
  // buffer does not fill stays out of the mapping, so that page is faulted
  // 4 KiB at a time as far as it is used rather than 2 MiB at once (mapped
  // to whole huge pages, the analyzer's advise peaked 4% higher).
  static size_t mapped_bytes(size_t n) { return (n * sizeof(T) + kPage - 1) & ~(kPage - 1); }

  T* allocate(size_t n) {
    if (!mapped(n)) return std::allocator<T>{}.allocate(n);
    const size_t bytes = mapped_bytes(n);
    // One huge page more than needed, then the unaligned head and the tail
    // beyond `bytes` unmapped again.
    void* raw = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto* start = static_cast<std::byte*>(raw);
    const size_t head = (kHugePage - reinterpret_cast<uintptr_t>(start) % kHugePage) % kHugePage;
    if (head != 0) munmap(start, head);
    munmap(start + head + bytes, kHugePage - head);
    madvise(start + head, bytes, MADV_HUGEPAGE);
    return reinterpret_cast<T*>(start + head);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (!mapped(n)) return std::allocator<T>{}.deallocate(p, n);
    munmap(p, mapped_bytes(n));
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

}  // namespace prof
