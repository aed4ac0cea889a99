#pragma once
// Tables of millions of events are faulted in 2 MiB at a time instead of
// 4 KiB: on a VM each page fault is an exit to the host, and 4 KiB faults of
// the event tables were a third of `report`'s time (10M events: 8.4 -> 4.4 s
// CPU). Only advice: where transparent huge pages are off the kernel ignores
// it and nothing changes but the speed.
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace prof::analyzer {

// madvise(MADV_HUGEPAGE) on the whole pages inside [data, data + bytes).
// Below a few MiB it does nothing: no huge page would fit.
void advise_huge_pages(const void* data, size_t bytes);

// std::allocator that advises every buffer before it is first written, so
// that even a growing vector's copy into its new buffer faults in huge pages.
template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  // Large buffers start on a huge page boundary: malloc's 16-byte offset
  // into its mapping would leave the first and last 2 MiB in small pages.
  static constexpr size_t kHugePage = 2u << 20;
  static bool aligned(size_t n) { return n * sizeof(T) >= 2 * kHugePage; }

  T* allocate(size_t n) {
    if (!aligned(n)) return std::allocator<T>{}.allocate(n);
    T* p = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kHugePage}));
    advise_huge_pages(p, n * sizeof(T));
    return p;
  }
  void deallocate(T* p, size_t n) noexcept {
    if (!aligned(n)) return std::allocator<T>{}.deallocate(p, n);
    ::operator delete(p, n * sizeof(T), std::align_val_t{kHugePage});
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

// A vector for per-event tables of a known size.
template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace prof::analyzer
