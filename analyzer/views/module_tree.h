#pragma once
// `report --view modules`: torch's with_modules hierarchy, from the
// "nn.Module: Net.encoder.layers.0.attn" ranges module hooks record. One
// row per module call path (the chain of module ranges enclosing a call, so
// a module called from two parents is two rows), as a tree: a parent row
// first, its children below it, indented, in order of first call. Per row:
// calls, CPU total (the ranges' wall time on their thread) and CUDA total
// (the GPU time of all work launched inside, RangeTree's).
#include <cstdint>
#include <string>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "views/time_format.h"
#include "views/view_table.h"

namespace prof::analyzer {

struct ModuleRow {
  std::string path;  // the module's path in its root model ("Net.encoder")
  uint32_t depth = 0;  // 0: a root module call
  uint64_t calls = 0;
  uint64_t cpu_total_ns = 0;
  uint64_t cuda_total_ns = 0;
};

// Depth first, children in order of their first call.
std::vector<ModuleRow> module_tree(const Run& run, const RangeTree& tree);

// The table: "Module" (indented two spaces per depth), "# of Calls",
// "CPU total", "CPU time avg", "CUDA total", "CUDA time avg", torch's time
// cells; a line saying so when the run has no module ranges.
std::string format_module_tree(const std::vector<ModuleRow>& rows, TimeUnit unit = TimeUnit::kAuto);
ViewTable module_tree_cells(const std::vector<ModuleRow>& rows);

}  // namespace prof::analyzer
