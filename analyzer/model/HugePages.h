#pragma once
// Tables of millions of events are faulted in 2 MiB at a time instead of
// 4 KiB: on a VM each page fault is an exit to the host, and 4 KiB faults of
// the growing event tables were a third of `report`'s time. Only advice:
// where transparent huge pages are off the kernel ignores it and nothing
// changes but the speed.
#include <cstddef>
#include <memory>
#include <vector>

namespace prof::analyzer {

// madvise(MADV_HUGEPAGE) on the whole pages inside [data, data + bytes).
// Below a few MiB it does nothing: no huge page would fit.
void adviseHugePages(const void* data, size_t bytes);

// std::allocator that advises every buffer before it is first written, so
// that even a growing vector's copy into its new buffer faults in huge pages.
template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    T* p = std::allocator<T>{}.allocate(n);
    adviseHugePages(p, n * sizeof(T));
    return p;
  }
  void deallocate(T* p, size_t n) noexcept { std::allocator<T>{}.deallocate(p, n); }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

// A vector for per-event tables.
template <typename T>
using EventTable = std::vector<T, HugePageAllocator<T>>;

}  // namespace prof::analyzer
