#pragma once
// A kernel's load per SM and its estimated achieved occupancy, as Kineto
// writes them in a trace: blocks per SM = blocks / SMs, warps per SM =
// blocks per SM x threads per block / 32, and occupancy = the blocks an SM
// can hold at once (CUDA's occupancy calculator, cuda_occupancy.h), or
// fewer when the grid has fewer per SM, times the threads per block, over
// the threads an SM holds.
#include <cstdint>

#include "model/run.h"

namespace prof::analyzer {

struct Occupancy {
  double blocks_per_sm = 0;
  double warps_per_sm = 0;
  uint64_t achieved_percent = 0;  // 0 when the device's limits were not recorded
};

Occupancy estimate_occupancy(const KernelConfig& kernel, const recorded::Device* device);

}  // namespace prof::analyzer
