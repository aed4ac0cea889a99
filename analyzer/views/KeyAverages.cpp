#include "views/KeyAverages.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace prof::analyzer {

std::string rowKey(const Run& run, const CpuEvent& event) {
  std::string name = run.name(event.name);
  static constexpr std::string_view kStep = "ProfilerStep#";
  if (name.compare(0, kStep.size(), kStep) == 0) name = "ProfilerStep*";
  if (event.domain == Run::kNoName) return name;
  return run.name(event.domain) + ":" + name;
}

std::vector<KeyAverage> keyAverages(const Run& run, const RangeTree& tree) {
  struct Occurrence {
    uint64_t startNs;
    uint32_t process;
    bool isGpu;
    size_t index;
  };
  std::vector<Occurrence> order;
  order.reserve(run.cpuEvents.size() + run.gpuActivities.size());
  for (size_t i = 0; i < run.cpuEvents.size(); ++i)
    order.push_back({run.cpuEvents[i].startNs, run.cpuEvents[i].process, false, i});
  for (size_t i = 0; i < run.gpuActivities.size(); ++i)
    order.push_back({run.gpuActivities[i].startNs, run.gpuActivities[i].process, true, i});
  std::stable_sort(order.begin(), order.end(), [](const Occurrence& a, const Occurrence& b) {
    return std::tie(a.startNs, a.process, a.isGpu) < std::tie(b.startNs, b.process, b.isGpu);
  });

  std::vector<KeyAverage> rows;
  std::map<std::pair<bool, std::string>, size_t> rowOf;
  for (const Occurrence& o : order) {
    std::string key = o.isGpu ? run.name(run.gpuActivities[o.index].name) : rowKey(run, run.cpuEvents[o.index]);
    auto [it, inserted] = rowOf.try_emplace({o.isGpu, key}, rows.size());
    if (inserted) {
      rows.emplace_back();
      rows.back().key = std::move(key);
      rows.back().isGpu = o.isGpu;
    }
    KeyAverage& row = rows[it->second];
    ++row.count;
    if (o.isGpu) {
      const uint64_t d = run.gpuActivities[o.index].durationNs();
      row.cudaTotalNs += d;
      row.selfCudaNs += d;
    } else {
      row.cpuTotalNs += run.cpuEvents[o.index].durationNs();
      row.selfCpuNs += tree.selfNs(o.index);
      row.cudaTotalNs += tree.gpuTotalNs(o.index);
      row.selfCudaNs += tree.selfGpuNs(o.index);
    }
  }
  return rows;
}

}  // namespace prof::analyzer
