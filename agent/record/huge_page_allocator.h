#pragma once
// std::allocator for the writer's large lookup tables (interned strings,
// stacks): buffers of 4 MiB and more are mapped on their own, aligned to
// 2 MiB and advised into transparent huge pages. Probes into a table of a
// million strings land on random pages; on 4 KiB pages nearly every probe
// was a TLB miss, which on a VM (nested page tables) cost more than the
// rest of interning the string. Mapped rather than malloc'ed: freed tables
// go back to the system, not into the app's malloc arenas. Only advice:
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
  static bool mapped(size_t n) { return n * sizeof(T) >= 2 * kHugePage; }
  static size_t mapped_bytes(size_t n) { return (n * sizeof(T) + kHugePage - 1) & ~(kHugePage - 1); }

  T* allocate(size_t n) {
    if (!mapped(n)) return std::allocator<T>{}.allocate(n);
    const size_t bytes = mapped_bytes(n);
    void* raw = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    auto* start = static_cast<std::byte*>(raw);
    const size_t head = (kHugePage - reinterpret_cast<uintptr_t>(start) % kHugePage) % kHugePage;
    if (head != 0) munmap(start, head);
    if (kHugePage - head != 0) munmap(start + head + bytes, kHugePage - head);
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
