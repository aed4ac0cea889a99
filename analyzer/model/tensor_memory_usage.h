#pragma once
// torch.profiler's memory columns computed from tensor memory
// (TensorMemoryEvent), by torch's own rule (torch/autograd/profiler.py,
// _parse_kineto_results, and profiler_util.py's MemRecordsAcc): a CPU
// event's memory usage is the sum of the allocations (+bytes) and frees
// (-bytes) of its process whose time lies in [start, end], ends included,
// made on any thread: torch matches memory records to operators by time
// alone. Self is that minus the direct children's usage (RangeTree does
// that part). An event no CPU event contains is counted in torch's own
// "[memory]" row.
#include <cstdint>

#include "model/huge_pages.h"
#include "model/run.h"

namespace prof::analyzer {

// The events inside no CPU event of their process: torch's "[memory]" row
// (no time, a count of events, their bytes as total and self).
struct TensorMemoryOutside {
  uint64_t events = 0;
  int64_t device_bytes = 0;
  int64_t host_bytes = 0;
  uint64_t first_ns = 0;  // where the row comes in first-occurrence order
  uint32_t first_process = 0;
};

struct TensorMemoryUsage {
  // Which side the tensor events cover: device memory (torch's CUDA Mem),
  // host memory (CPU Mem). A side with no tensor events keeps the tables empty.
  bool device = false;
  bool host = false;
  HugeVector<int64_t> device_bytes;  // per Run::cpu_events index
  HugeVector<int64_t> host_bytes;
  TensorMemoryOutside outside;
};

TensorMemoryUsage tensor_memory_usage(const Run& run);

}  // namespace prof::analyzer
