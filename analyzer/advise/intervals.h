#pragma once
// Half-open time intervals [start, end) and the few set operations advise
// needs: union, difference, and measure within a window.
#include <cstdint>
#include <vector>

namespace prof::analyzer {

struct Interval {
  uint64_t start = 0;
  uint64_t end = 0;
};

// Sorted, disjoint, non-empty: the union of `parts` (in any order).
std::vector<Interval> interval_union(std::vector<Interval> parts);
// `a` less `b` (both sorted and disjoint).
std::vector<Interval> interval_difference(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Total length of sorted, disjoint `set` within [start, end).
uint64_t measure_within(const std::vector<Interval>& set, uint64_t start, uint64_t end);
uint64_t measure(const std::vector<Interval>& set);

}  // namespace prof::analyzer
