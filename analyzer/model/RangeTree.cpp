#include "model/RangeTree.h"

#include <algorithm>
#include <map>
#include <utility>

namespace prof::analyzer {

RangeTree::RangeTree(const Run& run) {
  const auto& events = run.cpuEvents;
  const size_t n = events.size();
  parent_.assign(n, kNoParent);
  selfGpuNs_.assign(n, 0);
  for (const GpuActivity& g : run.gpuActivities)
    if (g.launchedBy >= 0) selfGpuNs_[static_cast<size_t>(g.launchedBy)] += g.durationNs();
  selfCudaMem_.assign(n, 0);
  selfCpuMem_.assign(n, 0);
  for (const MemoryEvent& m : run.memoryEvents)
    if (m.calledBy >= 0) (m.onDevice ? selfCudaMem_ : selfCpuMem_)[static_cast<size_t>(m.calledBy)] += m.signedBytes();
  cudaMem_ = selfCudaMem_;
  cpuMem_ = selfCpuMem_;

  // Threads are identified by (process, tid): tids repeat across processes.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<size_t>> threads;
  for (size_t i = 0; i < n; ++i)
    if (events[i].kind != CpuEventKind::kStartEndRange) threads[{events[i].process, events[i].tid}].push_back(i);

  std::vector<uint64_t> childrenNs(n, 0);
  gpuTotalNs_ = selfGpuNs_;
  for (auto& [thread, order] : threads) {
    // stable: equal intervals keep file order, the first becomes the parent.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (events[a].startNs != events[b].startNs) return events[a].startNs < events[b].startNs;
      return events[a].endNs > events[b].endNs;
    });
    std::vector<size_t> open;
    for (size_t i : order) {
      while (!open.empty()) {
        const CpuEvent& candidate = events[open.back()];
        if (events[i].startNs >= candidate.endNs || events[i].endNs > candidate.endNs) {
          open.pop_back();
        } else {
          parent_[i] = static_cast<int64_t>(open.back());
          break;
        }
      }
      open.push_back(i);
    }
    // Children come after their parent in this order, so a reverse walk
    // finishes every child's GPU total before adding it to its parent.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (parent_[*it] == kNoParent) continue;
      const auto p = static_cast<size_t>(parent_[*it]);
      childrenNs[p] += events[*it].durationNs();
      gpuTotalNs_[p] += gpuTotalNs_[*it];
      cudaMem_[p] += cudaMem_[*it];
      cpuMem_[p] += cpuMem_[*it];
    }
  }

  selfNs_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t total = events[i].durationNs();
    selfNs_[i] = childrenNs[i] > total ? 0 : total - childrenNs[i];
  }
}

}  // namespace prof::analyzer
