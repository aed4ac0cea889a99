#pragma once
// Sorts a sequence that comes as a few sorted runs, each reaching only a
// little way back into the ones before it, by merging each run into the
// sorted part from the first element it goes before: linear where the
// runs barely overlap, as a thread's calls written as they end
// (end_order_parents.h) or a stream's GPU work, where a sort of millions
// of elements costs n log n compares in either case.
#include <algorithm>
#include <cstddef>

namespace prof::analyzer {

namespace sorted_runs_detail {

// Runs that reach this few elements back are merged by insertion: most
// are a runtime call and the driver call in it, and std::inplace_merge
// takes and frees a buffer for each (the end order's merges were 15% of
// report's instructions, most of them in that buffer).
constexpr size_t kInsertedRun = 16;

// Merges the sorted [sorted_end, run_end) into the sorted [from,
// sorted_end) by insertion, stably as std::inplace_merge: an element moves
// only past those it strictly goes before.
template <typename T, typename Less>
void insert_run(Less less, T* from, T* sorted_end, T* run_end) {
  for (T* next = sorted_end; next != run_end; ++next) {
    const T value = *next;
    T* hole = next;
    while (hole != from && less(value, hole[-1])) {
      *hole = hole[-1];
      --hole;
    }
    *hole = value;
  }
}

// std::upper_bound(first, last, value), searched from `last` back with a
// step that doubles: the runs reach a few elements back, where a binary
// search over the whole sorted part took some 20 compares, each a look-up
// in the event table (a third of the merges' instructions).
template <typename T, typename Less>
T* upper_bound_from_end(Less less, T* first, T* last, T value) {
  // Every element of [high, last) goes after `value`.
  T* high = last;
  for (size_t step = 1;; step *= 2) {
    if (static_cast<size_t>(high - first) <= step) return std::upper_bound(first, high, value, less);
    T* probe = high - step;
    if (!less(value, *probe)) return std::upper_bound(probe + 1, high, value, less);
    high = probe;
  }
}

}  // namespace sorted_runs_detail

// Sorts [first, last) by `less`, stably, run after run. False when the
// merges would move more than `moves_left` elements (runs reaching far
// back, which a sort handles better): [first, last) is then permuted, not
// sorted. `moves_left` is what is left of the budget after.
template <typename T, typename Less>
bool merge_sorted_runs(T* first, T* last, Less less, size_t& moves_left) {
  using namespace sorted_runs_detail;
  T* sorted_end = std::is_sorted_until(first, last, less);
  while (sorted_end != last) {
    T* run_end = std::is_sorted_until(sorted_end, last, less);
    T* from = upper_bound_from_end(less, first, sorted_end, *sorted_end);
    const auto moved = static_cast<size_t>(run_end - from);
    if (moved > moves_left) return false;
    moves_left -= moved;
    if (moved <= kInsertedRun) insert_run(less, from, sorted_end, run_end);
    else std::inplace_merge(from, sorted_end, run_end, less);
    sorted_end = run_end;
  }
  return true;
}

}  // namespace prof::analyzer
