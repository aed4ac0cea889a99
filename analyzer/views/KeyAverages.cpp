#include "views/KeyAverages.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

namespace prof::analyzer {

std::string rowKey(const Run& run, const CpuEvent& event) {
  std::string name = run.name(event.name);
  static constexpr std::string_view kStep = "ProfilerStep#";
  if (name.compare(0, kStep.size(), kStep) == 0) name = "ProfilerStep*";
  if (event.domain == Run::kNoName) return name;
  return run.name(event.domain) + ":" + name;
}

namespace {

// Where an event comes in torch's first-occurrence order: by start, then
// process, CPU before GPU, then its place in the Run.
struct Occurrence {
  uint64_t startNs = UINT64_MAX;
  uint32_t process = 0;
  bool isGpu = false;
  size_t index = 0;

  bool operator<(const Occurrence& other) const {
    return std::tie(startNs, process, isGpu, index) < std::tie(other.startNs, other.process, other.isGpu, other.index);
  }
};

// Events with equal ids: names, domain, input shape, stack. Grouping by
// these integers first, and making the row's text key once per group,
// replaces a string key and a map lookup per event.
struct GroupKey {
  uint32_t isGpu;
  NameId name;
  NameId domain;
  NameId shape;
  uint32_t stack;
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a over the words
    for (uint32_t word : {k.isGpu, k.name, k.domain, k.shape, k.stack}) hash = (hash ^ word) * 1099511628211ull;
    return hash;
  }
};

// One group's sums, and its first event (which names its row's top-level
// flag).
struct Group {
  GroupKey key{};
  Occurrence first;
  KeyAverage sums;
};

}  // namespace

std::vector<KeyAverage> keyAverages(const Run& run, const RangeTree& tree, const GroupOptions& options) {
  std::vector<Group> groups;
  std::unordered_map<GroupKey, size_t, GroupKeyHash> groupOf;
  auto groupFor = [&](const GroupKey& key) -> Group& {
    auto [it, added] = groupOf.try_emplace(key, groups.size());
    if (added) {
      groups.emplace_back();
      groups.back().key = key;
    }
    return groups[it->second];
  };
  const bool byStack = options.byStackFrames > 0;
  for (size_t i = 0; i < run.cpuEvents.size(); ++i) {
    const CpuEvent& e = run.cpuEvents[i];
    Group& g = groupFor({0, e.name, e.domain, options.byInputShape ? e.inputShape : Run::kNoName, byStack ? e.stack : 0});
    const Occurrence o{e.startNs, e.process, false, i};
    if (o < g.first) g.first = o;
    KeyAverage& row = g.sums;
    ++row.count;
    row.cpuTotalNs += e.durationNs();
    row.selfCpuNs += tree.selfNs(i);
    row.cudaTotalNs += tree.gpuTotalNs(i);
    row.selfCudaNs += tree.selfGpuNs(i);
    row.cpuMemBytes += tree.cpuMemBytes(i);
    row.selfCpuMemBytes += tree.selfCpuMemBytes(i);
    row.cudaMemBytes += tree.cudaMemBytes(i);
    row.selfCudaMemBytes += tree.selfCudaMemBytes(i);
  }
  for (size_t i = 0; i < run.gpuActivities.size(); ++i) {
    const GpuActivity& a = run.gpuActivities[i];
    Group& g = groupFor({1, a.name, Run::kNoName, options.byInputShape ? a.inputShape : Run::kNoName, 0});
    const Occurrence o{a.startNs, a.process, true, i};
    if (o < g.first) g.first = o;
    ++g.sums.count;
    g.sums.cudaTotalNs += a.durationNs();
    g.sums.selfCudaNs += a.durationNs();
  }

  // Frame names are computed once per stack, not once per group.
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

  // Groups whose text is equal make one row ("ProfilerStep#1" and "#2" both
  // read "ProfilerStep*"; two stacks may name the same frames). A row comes
  // where its earliest event comes, and takes that event's top-level flag.
  struct Row {
    Occurrence first;
    bool topLevel = true;
    KeyAverage average;
  };
  std::vector<Row> rows;
  std::map<std::tuple<bool, std::string, std::string, std::vector<std::string>>, size_t> rowOf;
  static const std::vector<std::string> kNoStack;
  for (Group& g : groups) {
    std::string key;
    std::string shape;
    const std::vector<std::string>* stack = &kNoStack;
    bool topLevel = true;
    const bool isGpu = g.key.isGpu != 0;
    if (isGpu) {
      const GpuActivity& a = run.gpuActivities[g.first.index];
      key = run.name(a.name);
      if (options.byInputShape) shape = run.name(a.inputShape);
      topLevel = a.launchedBy < 0;
    } else {
      const CpuEvent& e = run.cpuEvents[g.first.index];
      key = rowKey(run, e);
      if (options.byInputShape) shape = run.name(e.inputShape);
      if (byStack) stack = &framesOf(e.stack);
      topLevel = tree.parent(g.first.index) == RangeTree::kNoParent;
    }
    auto [it, inserted] = rowOf.try_emplace({isGpu, key, shape, *stack}, rows.size());
    if (inserted) {
      rows.emplace_back();
      KeyAverage& row = rows.back().average;
      row.key = std::move(key);
      row.isGpu = isGpu;
      row.inputShapes = std::move(shape);
      row.stack = *stack;
    }
    Row& row = rows[it->second];
    if (g.first < row.first) {
      row.first = g.first;
      row.topLevel = topLevel;
    }
    KeyAverage& sum = row.average;
    sum.count += g.sums.count;
    sum.cpuTotalNs += g.sums.cpuTotalNs;
    sum.selfCpuNs += g.sums.selfCpuNs;
    sum.cudaTotalNs += g.sums.cudaTotalNs;
    sum.selfCudaNs += g.sums.selfCudaNs;
    sum.cpuMemBytes += g.sums.cpuMemBytes;
    sum.selfCpuMemBytes += g.sums.selfCpuMemBytes;
    sum.cudaMemBytes += g.sums.cudaMemBytes;
    sum.selfCudaMemBytes += g.sums.selfCudaMemBytes;
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.first < b.first; });
  std::vector<KeyAverage> out;
  out.reserve(rows.size());
  for (Row& row : rows) {
    row.average.topLevel = row.topLevel;
    out.push_back(std::move(row.average));
  }
  return out;
}

}  // namespace prof::analyzer
