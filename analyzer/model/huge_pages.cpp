#include "model/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace prof::analyzer {

void advise_huge_pages(const void* data, size_t bytes) {
  constexpr uintptr_t kPage = 4096;
  constexpr size_t kWorthIt = 4u << 20;  // at least one aligned 2 MiB page inside
  if (bytes < kWorthIt) return;
  const auto begin = (reinterpret_cast<uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end <= begin) return;
  // Failure (no THP support, a sanitizer's own mapping) only costs speed.
  (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace prof::analyzer
