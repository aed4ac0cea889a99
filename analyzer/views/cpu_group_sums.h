#pragma once
// The CPU side of the report's rows: every CPU event's figures (self CPU,
// self GPU, GPU total, memory), summed per group in one depth-first walk
// per thread with a stack of its open events, as soon as RangeParents has
// linked that thread. An event's figures are known once its subtree is
// complete (it is popped), and go straight into its group's sums: nothing
// per event outlives the walk, where RangeTree kept three to five 8-byte
// tables per event for key_averages to adjust.
//
// What the table counts differs from the tree's figures in two ways, both
// settled while the events concerned are on the stack:
//  - a driver call made inside a runtime call is folded into it
//    (GroupOptions::fold_driver_calls): no row, its self time, GPU work
//    and self memory are the runtime call's;
//  - with torch operator ranges in the run, the GPU work an API call
//    launched is its innermost enclosing operator's or record_function
//    scope's Self CUDA, and taken out of the GPU total of the API calls in
//    between (the ranges in between keep it: it ran inside them).
#include <cstdint>
#include <optional>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "model/tensor_memory_usage.h"
#include "views/key_averages.h"

namespace prof::analyzer {

// Events with equal ids: names, domain, input shape, stack. Grouping by
// these integers first, and making the row's text key once per group,
// replaces a string key and a map lookup per event.
struct GroupKey {
  uint32_t is_gpu;  // 0: an API call, 1: GPU work, 2: a range (name is a range row id), 3: "[memory]"
  NameId name;
  NameId domain;
  NameId shape;
  uint32_t stack;
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a over the words
    for (uint32_t word : {k.is_gpu, k.name, k.domain, k.shape, k.stack}) hash = (hash ^ word) * 1099511628211ull;
    return hash;
  }
};

// One group of CPU events: its sums, its earliest event (where the row
// comes, and whose parent, or none, is the row's top-level flag) and its
// lowest index (the group's place among the others: the order a walk over
// the events by index meets them, which KeyAverageRows keeps on ties).
struct CpuGroup {
  GroupKey key{};
  RowOccurrence first;
  bool top_level = true;
  size_t lowest_index = SIZE_MAX;
  KeyAverage sums;
};

struct CpuGroupSums {
  std::vector<CpuGroup> groups;  // by lowest_index
  // Tensor memory events inside no CPU event: torch's "[memory]" row.
  TensorMemoryOutside tensor_memory_outside;
};

// `jobs`: threads that walk the run's threads side by side (0: one per
// core); the sums are the same whatever the number. `keep_links`: where the
// walk's parent links go once it is done, for a caller that reads them next
// (html's flame graphs link the same threads); nullptr: freed.
CpuGroupSums cpu_group_sums(const Run& run, const GroupOptions& options, unsigned jobs = 1,
                            std::optional<RangeParents>* keep_links = nullptr);

}  // namespace prof::analyzer
