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

std::vector<KeyAverage> keyAverages(const Run& run, const RangeTree& tree, const GroupOptions& options) {
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

  // Frame names are computed once per stack, not once per event.
  std::map<uint32_t, std::vector<std::string>> stackNames;
  auto framesOf = [&](uint32_t stack) -> const std::vector<std::string>& {
    auto [it, inserted] = stackNames.try_emplace(stack);
    if (inserted && stack != 0 && options.frameNamer) {
      const auto& frames = run.stacks[stack - 1];
      const size_t n = std::min(frames.size(), static_cast<size_t>(options.byStackFrames));
      for (size_t i = 0; i < n; ++i) it->second.push_back(options.frameNamer->name(run, run.frames[frames[i]]));
    }
    return it->second;
  };

  std::vector<KeyAverage> rows;
  std::map<std::tuple<bool, std::string, std::string, std::vector<std::string>>, size_t> rowOf;
  static const std::vector<std::string> kNoStack;
  for (const Occurrence& o : order) {
    std::string key;
    std::string shape;
    const std::vector<std::string>* stack = &kNoStack;
    bool topLevel = true;
    if (o.isGpu) {
      const GpuActivity& g = run.gpuActivities[o.index];
      key = run.name(g.name);
      if (options.byInputShape) shape = run.name(g.inputShape);
      topLevel = g.launchedBy < 0;
    } else {
      const CpuEvent& e = run.cpuEvents[o.index];
      key = rowKey(run, e);
      if (options.byInputShape) shape = run.name(e.inputShape);
      if (options.byStackFrames > 0) stack = &framesOf(e.stack);
      topLevel = tree.parent(o.index) == RangeTree::kNoParent;
    }
    auto [it, inserted] = rowOf.try_emplace({o.isGpu, key, shape, *stack}, rows.size());
    if (inserted) {
      rows.emplace_back();
      KeyAverage& row = rows.back();
      row.key = std::move(key);
      row.isGpu = o.isGpu;
      row.topLevel = topLevel;
      row.inputShapes = std::move(shape);
      row.stack = *stack;
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
      row.cpuMemBytes += tree.cpuMemBytes(o.index);
      row.selfCpuMemBytes += tree.selfCpuMemBytes(o.index);
      row.cudaMemBytes += tree.cudaMemBytes(o.index);
      row.selfCudaMemBytes += tree.selfCudaMemBytes(o.index);
    }
  }
  return rows;
}

}  // namespace prof::analyzer
