#pragma once
// The GPU's queue at each launch: work launched (its call started) but not
// yet started on the GPU. Steps and the launch-bound finding both read it.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "model/run.h"

namespace prof::analyzer {

// One process's launches: when each launching call started and when each
// piece of launched work started, both sorted (each a few rising runs, one
// per GPU place, merged: merge_rising_runs).
struct LaunchQueue {
  std::vector<uint64_t> launch_starts;
  std::vector<uint64_t> work_starts;
};

std::map<uint32_t, LaunchQueue> launch_queues(const Run& events);

// The queue depth at every launch of a run, summed in launch_queues' order
// (process, then launch start), so that the mean is the same double
// whichever pass made it: the launch-bound finding's figures.
struct QueueDepthSums {
  double depth_sum = 0;
  uint64_t samples = 0;
  uint64_t max_depth = 0;

  void add(uint64_t depth) {
    depth_sum += static_cast<double>(depth);
    max_depth = std::max(max_depth, depth);
    ++samples;
  }
  double mean() const { return samples ? depth_sum / static_cast<double>(samples) : 0; }
};
// A pass of its own, for a run whose steps' pass (which sums them as it
// measures each step's depth) was not made.
QueueDepthSums queue_depth_sums(const Run& events);


// Calls `visit(launch_start, depth)` for each launch in start order, depth
// being the launches that started before it less the work started by then.
// Both lists are sorted, so one forward pass finds every depth (a binary
// search per launch on lists of millions missed the cache at every step).
template <typename Visit>
void for_each_queue_depth(const LaunchQueue& q, Visit&& visit) {
  size_t launched = 0;  // launches that started before this one
  size_t started = 0;   // work started at or before this launch
  for (size_t i = 0; i < q.launch_starts.size(); ++i) {
    const uint64_t t = q.launch_starts[i];
    if (i == 0 || t != q.launch_starts[i - 1]) launched = i;
    while (started < q.work_starts.size() && q.work_starts[started] <= t) ++started;
    visit(t, static_cast<uint64_t>(launched > started ? launched - started : 0));
  }
}

}  // namespace prof::analyzer
