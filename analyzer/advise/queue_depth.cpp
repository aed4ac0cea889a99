#include "advise/queue_depth.h"

#include <algorithm>

namespace prof::analyzer {

std::map<uint32_t, LaunchQueue> launch_queues(const Run& events) {
  std::map<uint32_t, LaunchQueue> queues;
  for (const GpuActivity& g : events.gpu_activities)
    if (g.launched_by >= 0) {
      LaunchQueue& q = queues[g.process];
      q.launch_starts.push_back(events.cpu_events[static_cast<size_t>(g.launched_by)].start_ns);
      q.work_starts.push_back(g.start_ns);
    }
  // Mostly in order already: a check is one pass, a sort twenty.
  auto sort = [](std::vector<uint64_t>& times) {
    if (!std::is_sorted(times.begin(), times.end())) std::sort(times.begin(), times.end());
  };
  for (auto& [process, q] : queues) {
    sort(q.launch_starts);
    sort(q.work_starts);
  }
  return queues;
}

}  // namespace prof::analyzer
