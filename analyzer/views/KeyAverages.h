#pragma once
// Rows of the report: events grouped by name, like torch's key_averages().
#include <cstdint>
#include <string>
#include <vector>

#include "model/RangeTree.h"
#include "model/Run.h"
#include "views/FrameNames.h"

namespace prof::analyzer {

struct KeyAverage {
  std::string key;
  bool isGpu = false;  // a kernel/memcpy/memset row: CPU columns are 0
  // The first occurrence had no parent (CPU rows) or no recorded launching
  // call (GPU rows): what --top-level-only keeps, as torch's cpu_parent test
  // does on the first event added to a group.
  bool topLevel = true;
  uint64_t count = 0;
  uint64_t cpuTotalNs = 0;
  uint64_t selfCpuNs = 0;
  uint64_t cudaTotalNs = 0;
  uint64_t selfCudaNs = 0;
  int64_t cpuMemBytes = 0;
  int64_t selfCpuMemBytes = 0;
  int64_t cudaMemBytes = 0;
  int64_t selfCudaMemBytes = 0;
  std::string inputShapes;         // with group-by-input-shape
  std::vector<std::string> stack;  // with group-by-stack-n: the N innermost frames
};

struct GroupOptions {
  bool byInputShape = false;
  int64_t byStackFrames = 0;  // 0: stacks play no part
  const FrameNamer* frameNamer = nullptr;  // needed when byStackFrames > 0
};

// The row name of a CPU event: the NVTX name, "domain:name" outside the
// default domain (so equal names of different libraries stay apart), and
// "ProfilerStep#N" folded to "ProfilerStep*" as torch's tables do.
std::string rowKey(const Run& run, const CpuEvent& event);

// One row per key (CPU and GPU keys kept apart; with grouping options, per
// key and input shape and/or innermost frames), in order of first
// occurrence (earliest start over all processes), which is the order torch
// prints when no sort key is given.
std::vector<KeyAverage> keyAverages(const Run& run, const RangeTree& tree, const GroupOptions& options = {});

}  // namespace prof::analyzer
