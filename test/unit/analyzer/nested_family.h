#pragma once
// A random, properly nested family of positive, distinct intervals, as the
// tests of the orders made from a thread's calls want them: each interval
// is written after its children (end order, as the agent writes calls);
// a child may start with its parent but never covers all of it.
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace prof::testing {

// Appends to `out` a family inside [start, end), `depth` levels deep at most.
inline void nested_family(std::mt19937& random, uint64_t start, uint64_t end, int depth,
                          std::vector<std::pair<uint64_t, uint64_t>>& out) {
  if (depth == 0 || end - start < 3) return;
  uint64_t at = start;
  while (at + 1 < end) {
    const uint64_t child_start = at + random() % 3;
    if (child_start >= end) break;
    const uint64_t child_end = child_start + 1 + random() % (end - child_start);
    if (child_end > end || (child_start == start && child_end == end)) break;
    nested_family(random, child_start, child_end, depth - 1, out);
    out.push_back({child_start, child_end});  // after its children: end order
    at = child_end;
  }
}

}  // namespace prof::testing
