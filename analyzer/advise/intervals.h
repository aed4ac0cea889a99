#pragma once
// Half-open time intervals [start, end) and the few set operations advise
// needs: union, difference, and measure within a window.
#include <algorithm>
#include <cstdint>
#include <utility>
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

// The union of intervals that come in start order, merged as they are read,
// for questions that move forward in time: it holds one merged interval
// where interval_union holds all of them (a device's kernels at 10M events:
// 51 MB). `next_part(Interval&)` gives the next part in start order and
// returns false after the last.
template <typename NextPart>
class UnionReader {
 public:
  explicit UnionReader(NextPart next_part) : next_part_(std::move(next_part)) {
    has_pending_ = read_part(pending_);
    advance();
  }

  // Calls emit(start, end) for each piece of [from, to) outside the union,
  // in order: interval_difference({{from, to}}, union). Each question must
  // start at or after the end of the one before: what ends by then is
  // passed for good.
  template <typename Emit>
  void difference(uint64_t from, uint64_t to, Emit&& emit) {
    while (has_current_ && current_.end <= from) advance();
    while (has_current_ && current_.start < to) {
      if (current_.start > from) emit(from, current_.start);
      from = std::max(from, current_.end);
      if (current_.end > to) break;  // reaches into the next question
      advance();
    }
    if (from < to) emit(from, to);
  }

 private:
  // A non-empty part, as interval_union keeps them; false after the last.
  bool read_part(Interval& part) {
    while (next_part_(part))
      if (part.end > part.start) return true;
    return false;
  }
  // The next merged interval: parts that start by its end (touching ones
  // too) join it.
  void advance() {
    has_current_ = has_pending_;
    if (!has_current_) return;
    current_ = pending_;
    while ((has_pending_ = read_part(pending_)) && pending_.start <= current_.end)
      current_.end = std::max(current_.end, pending_.end);
  }

  NextPart next_part_;
  Interval current_, pending_;
  bool has_current_ = false, has_pending_ = false;
};

}  // namespace prof::analyzer
