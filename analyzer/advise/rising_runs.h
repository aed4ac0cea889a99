#pragma once
// A sort for lists made of a few rising runs: a queue's launch and work
// times, which come per GPU place, each place's in order. (A device's work,
// which comes the same way, is merged through a heap instead, into its
// index list: idle_causes.cpp; this merge's buffer would raise advise's
// peak there.)
#include <algorithm>
#include <cstddef>
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

}  // namespace prof::analyzer
