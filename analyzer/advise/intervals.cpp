#include "advise/intervals.h"

#include <algorithm>

namespace prof::analyzer {

std::vector<Interval> interval_union(std::vector<Interval> parts) {
  auto by_start = [](const Interval& a, const Interval& b) { return a.start < b.start; };
  // GPU work mostly comes in start order already; the order among equal
  // starts does not change the union.
  if (!std::is_sorted(parts.begin(), parts.end(), by_start)) std::sort(parts.begin(), parts.end(), by_start);
  // Merged in place: the union is never longer than its parts, and a
  // second vector grown by doubling was most of advise's fresh pages.
  size_t kept = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Interval p = parts[i];
    if (p.end <= p.start) continue;
    if (kept > 0 && p.start <= parts[kept - 1].end)
      parts[kept - 1].end = std::max(parts[kept - 1].end, p.end);
    else
      parts[kept++] = p;
  }
  parts.resize(kept);
  parts.shrink_to_fit();
  return parts;
}

std::vector<Interval> interval_difference(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  if (a.empty()) return out;
  // Skip what ends before `a` begins: one short interval against a long
  // set is a binary search, not a scan.
  size_t j = static_cast<size_t>(
      std::lower_bound(b.begin(), b.end(), a.front().start, [](const Interval& i, uint64_t t) { return i.end <= t; }) -
      b.begin());
  for (const Interval& x : a) {
    uint64_t from = x.start;
    while (j < b.size() && b[j].end <= from) ++j;
    for (size_t k = j; k < b.size() && b[k].start < x.end; ++k) {
      if (b[k].start > from) out.push_back({from, b[k].start});
      from = std::max(from, b[k].end);
    }
    if (from < x.end) out.push_back({from, x.end});
  }
  return out;
}

uint64_t measure_within(const std::vector<Interval>& set, uint64_t start, uint64_t end) {
  auto it = std::lower_bound(set.begin(), set.end(), start, [](const Interval& i, uint64_t t) { return i.end <= t; });
  uint64_t total = 0;
  for (; it != set.end() && it->start < end; ++it) total += std::min(end, it->end) - std::max(start, it->start);
  return total;
}

uint64_t measure(const std::vector<Interval>& set) {
  uint64_t total = 0;
  for (const Interval& i : set) total += i.end - i.start;
  return total;
}

}  // namespace prof::analyzer
