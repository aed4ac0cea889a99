#pragma once
// Sorts for lists made of a few rising runs: a queue's launch and work
// times, and a device's work, which come per GPU place, each place's in
// order.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prof::analyzer {

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
