#pragma once
// Half-open time intervals [start, end) and the few set operations advise
// needs: union, difference, and measure within a window.
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace prof::analyzer {

struct Interval {
  uint64_t start = 0;
  uint64_t end = 0;
};

// Sorted, disjoint, non-empty: the union of `parts` (in any order).
std::vector<Interval> interval_union(std::vector<Interval> parts);
// The union of two sorted, disjoint sets, merged rather than sorted.
std::vector<Interval> interval_union_of_sets(const std::vector<Interval>& a, const std::vector<Interval>& b);
// `a` less `b` (both sorted and disjoint).
std::vector<Interval> interval_difference(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Total length of sorted, disjoint `set` within [start, end).
uint64_t measure_within(const std::vector<Interval>& set, uint64_t start, uint64_t end);
uint64_t measure(const std::vector<Interval>& set);
// The length of the union of `sets`, each sorted by start (overlapping,
// empty and inverted intervals allowed: the last two count nothing), read
// merged by start: the measure of interval_union of them all, without
// making it.
uint64_t union_length(std::initializer_list<const std::vector<Interval>*> sets);

}  // namespace prof::analyzer
