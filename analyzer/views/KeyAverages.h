#pragma once
// Rows of the report: events grouped by name, like torch's key_averages().
#include <cstdint>
#include <string>
#include <vector>

#include "model/RangeTree.h"
#include "model/Run.h"

namespace prof::analyzer {

struct KeyAverage {
  std::string key;
  bool isGpu = false;  // a kernel/memcpy/memset row: CPU columns are 0
  uint64_t count = 0;
  uint64_t cpuTotalNs = 0;
  uint64_t selfCpuNs = 0;
  uint64_t cudaTotalNs = 0;
  uint64_t selfCudaNs = 0;
};

// The row name of a CPU event: the NVTX name, "domain:name" outside the
// default domain (so equal names of different libraries stay apart), and
// "ProfilerStep#N" folded to "ProfilerStep*" as torch's tables do.
std::string rowKey(const Run& run, const CpuEvent& event);

// One row per key (CPU and GPU keys kept apart), in order of first
// occurrence (earliest start over all processes), which is the order torch
// prints when no sort key is given.
std::vector<KeyAverage> keyAverages(const Run& run, const RangeTree& tree);

}  // namespace prof::analyzer
