#pragma once
// Sorts for sequences that come as sorted runs, where a sort of millions of
// elements costs n log n compares whatever their order:
// - merge_sorted_runs: many runs, each reaching only a little way back into
//   the ones before it, merged into the sorted part from the first element
//   it goes before: a thread's calls written as they end
//   (end_order_parents.h), a stream's GPU work;
// - merge_rising_runs: a few long runs that interleave all through, merged
//   pairwise: a queue's launch and work times, which come per GPU place;
// - merge_rising_runs_into: the same through a heap, into an index list,
//   with no buffer: a device's work (idle_causes.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

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

// Sorts `values` by `less` by finding where each rising run begins and
// merging neighbouring runs pairwise until one is left: log2(runs) passes,
// each a sequential walk, where a sort made twenty over millions. Stable
// (std::inplace_merge is), so it is any sort's answer where no two values
// are equivalent, or equivalent ones are alike. A merge takes a buffer of up
// to half the values.
template <typename T, typename Less>
void merge_rising_runs(std::vector<T>& values, Less less) {
  std::vector<size_t> begins;
  for (size_t i = 0; i < values.size(); ++i)
    if (i == 0 || less(values[i], values[i - 1])) begins.push_back(i);
  begins.push_back(values.size());
  auto at = [&](size_t i) { return values.begin() + static_cast<std::ptrdiff_t>(i); };
  while (begins.size() > 2) {
    size_t kept = 0;
    for (size_t r = 0; r + 1 < begins.size(); r += 2) {
      if (r + 2 < begins.size()) std::inplace_merge(at(begins[r]), at(begins[r + 1]), at(begins[r + 2]), less);
      begins[kept++] = begins[r];
    }
    begins[kept++] = values.size();
    begins.resize(kept);
  }
}

// The `index` of each of `keyed` (each with a `start_ns`) in start order
// into `out` (sized as `keyed`), merged from its rising runs through a heap
// of one cursor per run: no buffer beside `out`, where merge_rising_runs'
// (up to half the values) raised advise's peak by 21 MB at 10M events (a
// device's work, idle_causes.cpp). False where two starts are equal, whose
// order only a sort of its own can decide (`out` then partly written).
template <typename Keyed>
bool merge_rising_runs_into(const std::vector<Keyed>& keyed, std::vector<uint32_t>& out) {
  struct Cursor {
    size_t next, end;
  };
  std::vector<Cursor> runs;
  for (size_t k = 0; k < keyed.size(); ++k) {
    if (k == 0 || keyed[k].start_ns < keyed[k - 1].start_ns) {
      if (!runs.empty()) runs.back().end = k;
      runs.push_back({k, keyed.size()});
    }
  }
  // The heap's top: the run whose next start is the least.
  auto later = [&](const Cursor& a, const Cursor& b) { return keyed[a.next].start_ns > keyed[b.next].start_ns; };
  std::make_heap(runs.begin(), runs.end(), later);
  uint64_t last_start = 0;
  for (size_t k = 0; !runs.empty(); ++k) {
    std::pop_heap(runs.begin(), runs.end(), later);
    Cursor& run = runs.back();
    if (k > 0 && keyed[run.next].start_ns == last_start) return false;
    last_start = keyed[run.next].start_ns;
    out[k] = keyed[run.next].index;
    if (++run.next == run.end) {
      runs.pop_back();
    } else {
      std::push_heap(runs.begin(), runs.end(), later);
    }
  }
  return true;
}

}  // namespace prof::analyzer
