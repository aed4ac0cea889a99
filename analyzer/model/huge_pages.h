#pragma once
// The analyzer's large tables in huge pages, from the heap (see
// huge_page_allocator.h in shared/, and why not in mappings of their own).
#include <vector>

#include "huge_page_allocator.h"

namespace prof::analyzer {

template <typename T>
using TableAllocator = HugePageAllocator<T, AlignedHeap>;

// A vector for per-event tables of a known size.
template <typename T>
using HugeVector = std::vector<T, TableAllocator<T>>;

}  // namespace prof::analyzer
