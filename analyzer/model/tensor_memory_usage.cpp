#include "model/tensor_memory_usage.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace prof::analyzer {
namespace {

// One process's tensor events in time order, with running sums per side:
// the bytes of the events in [start, end] are two binary searches away.
struct ProcessMemory {
  std::vector<uint64_t> times;
  std::vector<int64_t> device_before;  // device_before[k]: the device bytes of events 0..k-1
  std::vector<int64_t> host_before;

  std::pair<size_t, size_t> within(uint64_t start_ns, uint64_t end_ns) const {
    const auto first = std::lower_bound(times.begin(), times.end(), start_ns);
    const auto last = std::upper_bound(first, times.end(), end_ns);
    return {static_cast<size_t>(first - times.begin()), static_cast<size_t>(last - times.begin())};
  }
};

}  // namespace

TensorMemoryUsage tensor_memory_usage(const Run& run) {
  TensorMemoryUsage usage;
  if (run.tensor_memory_events.empty()) return usage;
  const size_t processes = run.processes.size();
  std::vector<std::vector<const TensorMemoryEvent*>> by_process(processes);
  for (const TensorMemoryEvent& m : run.tensor_memory_events) {
    if (m.process >= processes) continue;
    by_process[m.process].push_back(&m);
    (m.device < 0 ? usage.host : usage.device) = true;
  }
  std::vector<ProcessMemory> memory(processes);
  for (size_t p = 0; p < processes; ++p) {
    auto& events = by_process[p];
    // Flushed in batches, several devices interleaved: order them here.
    std::stable_sort(events.begin(), events.end(),
                     [](const TensorMemoryEvent* a, const TensorMemoryEvent* b) { return a->time_ns < b->time_ns; });
    ProcessMemory& pm = memory[p];
    pm.device_before.push_back(0);
    pm.host_before.push_back(0);
    for (const TensorMemoryEvent* m : events) {
      pm.times.push_back(m->time_ns);
      const int64_t bytes = m->signed_bytes();
      pm.device_before.push_back(pm.device_before.back() + (m->device < 0 ? 0 : bytes));
      pm.host_before.push_back(pm.host_before.back() + (m->device < 0 ? bytes : 0));
    }
  }

  const size_t n = run.cpu_events.size();
  if (usage.device) usage.device_bytes.assign(n, 0);
  if (usage.host) usage.host_bytes.assign(n, 0);
  // Per process, the CPU events' intervals, to find the memory events
  // inside none of them.
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> intervals(processes);
  for (size_t i = 0; i < n; ++i) {
    const CpuEvent& e = run.cpu_events[i];
    if (e.process >= processes) continue;
    const ProcessMemory& pm = memory[e.process];
    if (pm.times.empty()) continue;
    intervals[e.process].emplace_back(e.start_ns, e.end_ns);
    const auto [first, last] = pm.within(e.start_ns, e.end_ns);
    if (usage.device) usage.device_bytes[i] = pm.device_before[last] - pm.device_before[first];
    if (usage.host) usage.host_bytes[i] = pm.host_before[last] - pm.host_before[first];
  }

  for (size_t p = 0; p < processes; ++p) {
    auto& spans = intervals[p];
    std::sort(spans.begin(), spans.end());
    // Walk the events and the intervals (by start) together, keeping the
    // furthest end of the intervals begun so far.
    size_t next = 0;
    uint64_t covered_to = 0;
    bool any = false;
    for (const TensorMemoryEvent* m : by_process[p]) {
      while (next < spans.size() && spans[next].first <= m->time_ns) {
        covered_to = any ? std::max(covered_to, spans[next].second) : spans[next].second;
        any = true;
        ++next;
      }
      if (any && covered_to >= m->time_ns) continue;
      TensorMemoryOutside& outside = usage.outside;
      if (outside.events == 0 || m->time_ns < outside.first_ns) {
        outside.first_ns = m->time_ns;
        outside.first_process = static_cast<uint32_t>(p);
      }
      ++outside.events;
      (m->device < 0 ? outside.host_bytes : outside.device_bytes) += m->signed_bytes();
    }
  }
  return usage;
}

}  // namespace prof::analyzer
