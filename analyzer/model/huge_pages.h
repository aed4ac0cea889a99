#pragma once
// The analyzer's per-event tables of a known size, in huge pages (see
// huge_page_allocator.h in shared/, which the agent's tables use too).
#include <vector>

#include "huge_page_allocator.h"

namespace prof::analyzer {

template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace prof::analyzer
