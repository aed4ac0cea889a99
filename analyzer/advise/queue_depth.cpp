#include "advise/queue_depth.h"

#include <algorithm>
#include <vector>

namespace prof::analyzer {

void sort_rising_runs(std::vector<uint64_t>& values) {
  // Where each rising run begins, then neighbouring runs merged pairwise
  // until one is left: log2(runs) passes, each a sequential walk.
  std::vector<size_t> begins;
  for (size_t i = 0; i < values.size(); ++i)
    if (i == 0 || values[i] < values[i - 1]) begins.push_back(i);
  begins.push_back(values.size());
  auto at = [&](size_t i) { return values.begin() + static_cast<std::ptrdiff_t>(i); };
  while (begins.size() > 2) {
    size_t kept = 0;
    for (size_t r = 0; r + 1 < begins.size(); r += 2) {
      if (r + 2 < begins.size()) std::inplace_merge(at(begins[r]), at(begins[r + 1]), at(begins[r + 2]));
      begins[kept++] = begins[r];
    }
    begins[kept++] = values.size();
    begins.resize(kept);
  }
}

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
    sort_rising_runs(q.launch_starts);
    sort_rising_runs(q.work_starts);
  }
  return queues;
}

}  // namespace prof::analyzer
