#include "advise/queue_depth.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "model/sorted_runs.h"

namespace prof::analyzer {

std::map<uint32_t, LaunchQueue> launch_queues(const Run& events) {
  std::map<uint32_t, LaunchQueue> queues;
  // Counted first, so that each list is allocated once at its size: grown
  // by doubling, two lists of millions held their old and new buffers at
  // once (advise's steps and its launch-bound finding both make them).
  {
    std::vector<size_t> launches;  // by process
    for (const GpuActivity& g : events.gpu_activities)
      if (g.launched_by >= 0) {
        if (g.process >= launches.size()) launches.resize(size_t{g.process} + 1, 0);
        ++launches[g.process];
      }
    for (uint32_t process = 0; process < launches.size(); ++process)
      if (launches[process] > 0) {
        queues[process].launch_starts.reserve(launches[process]);
        queues[process].work_starts.reserve(launches[process]);
      }
  }
  LaunchQueue* q_of_last = nullptr;  // consecutive records are mostly of one process
  uint32_t last_process = 0;
  for (const GpuActivity& g : events.gpu_activities)
    if (g.launched_by >= 0) {
      if (q_of_last == nullptr || g.process != last_process) {
        q_of_last = &queues[g.process];
        last_process = g.process;
      }
      LaunchQueue& q = *q_of_last;
      q.launch_starts.push_back(events.cpu_events[static_cast<size_t>(g.launched_by)].start_ns);
      q.work_starts.push_back(g.start_ns);
    }
  for (auto& [process, q] : queues) {
    // Equal times are alike: the merge's answer is the sort's.
    merge_rising_runs(q.launch_starts, std::less<uint64_t>());
    merge_rising_runs(q.work_starts, std::less<uint64_t>());
  }
  return queues;
}

QueueDepthSums queue_depth_sums(const Run& events) {
  QueueDepthSums sums;
  for (const auto& [process, q] : launch_queues(events))
    for_each_queue_depth(q, [&](uint64_t, uint64_t depth) { sums.add(depth); });
  return sums;
}

}  // namespace prof::analyzer
