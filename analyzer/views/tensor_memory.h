#pragma once
// `report --view memory`: a framework caching allocator's tensor memory
// (TensorMemoryEvent) per process and device: allocated and reserved over
// time, the peak, and what held it then, the way torch.profiler's memory
// timeline and memory_stats() show it.
#include <cstdint>
#include <string>
#include <vector>

#include "model/run.h"
#include "views/view_table.h"

namespace prof::analyzer {

struct TensorMemoryPoint {
  uint64_t time_ns = 0;
  uint64_t allocated = 0;  // the allocator's totals right after the event
  uint64_t reserved = 0;
};

// The blocks live at the peak that one range allocated.
struct TensorMemoryHolder {
  std::string held_by;  // innermost range (operator, nn.Module) open at the allocation; "(no range)"
  std::string line;     // the allocating Python line, "forward (model.py:42)"; "" when no stack was recorded
  uint64_t bytes = 0;
  uint64_t blocks = 0;
};

struct TensorMemoryDevice {
  uint32_t process = 0;
  uint32_t pid = 0;
  int32_t device = -1;  // -1: host memory
  std::vector<TensorMemoryPoint> timeline;  // one per event, in time order
  TensorMemoryPoint peak;                   // the first moment of the highest allocated
  uint64_t peak_reserved = 0;
  std::vector<TensorMemoryHolder> holders;  // live at the peak, largest first
};

// Totals come from the events (the allocator's own, absolute, so a window
// that starts mid-run reads right); events without totals are summed.
std::vector<TensorMemoryDevice> tensor_memory(const Run& run);

// A range's name as the holder column shows it: emit_nvtx's
// ", seq = N, op_id = M, sizes = [...]" suffixes cut off.
std::string holder_name(const std::string& range_name);

// `samples` evenly spaced rows of the timeline, the peak, and its holders.
std::string format_tensor_memory(const std::vector<TensorMemoryDevice>& devices, size_t samples, size_t holders);

// One row per holder at each device's peak, for csv/json.
ViewTable tensor_memory_cells(const std::vector<TensorMemoryDevice>& devices);

}  // namespace prof::analyzer
