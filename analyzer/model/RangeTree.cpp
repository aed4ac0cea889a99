#include "model/RangeTree.h"

#include <algorithm>
#include <map>
#include <utility>

namespace prof::analyzer {
namespace {

// The events that nest (push/pop ranges and API calls), grouped by thread
// (process, tid): tids repeat across processes. One index array cut into
// per-thread runs, in file order within each thread.
struct ThreadEvents {
  HugeVector<uint32_t> events;
  std::vector<size_t> begin;  // thread t's events are [begin[t], begin[t + 1])
};

ThreadEvents byThread(const EventTable<CpuEvent>& events) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> slotOf;  // few threads: a map is fine
  HugeVector<uint32_t> slot(events.size(), UINT32_MAX);
  std::vector<size_t> count;
  // Consecutive events are mostly of one thread: skip the map for those.
  std::pair<uint32_t, uint32_t> last{UINT32_MAX, UINT32_MAX};
  uint32_t lastSlot = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const CpuEvent& e = events[i];
    if (e.kind == CpuEventKind::kStartEndRange) continue;
    const std::pair<uint32_t, uint32_t> thread{e.process, e.tid};
    if (thread != last) {
      auto [it, added] = slotOf.try_emplace(thread, static_cast<uint32_t>(count.size()));
      if (added) count.push_back(0);
      last = thread;
      lastSlot = it->second;
    }
    slot[i] = lastSlot;
    ++count[lastSlot];
  }
  ThreadEvents out;
  out.begin.assign(count.size() + 1, 0);
  for (size_t t = 0; t < count.size(); ++t) out.begin[t + 1] = out.begin[t] + count[t];
  out.events.resize(out.begin.back());
  std::vector<size_t> next(out.begin.begin(), out.begin.end() - 1);
  for (size_t i = 0; i < events.size(); ++i)
    if (slot[i] != UINT32_MAX) out.events[next[slot[i]]++] = static_cast<uint32_t>(i);
  return out;
}

}  // namespace

RangeTree::RangeTree(const Run& run) {
  const auto& events = run.cpuEvents;
  const size_t n = events.size();
  parent_.assign(n, kNoParent);
  selfGpuNs_.assign(n, 0);
  for (const GpuActivity& g : run.gpuActivities)
    if (g.launchedBy >= 0) selfGpuNs_[static_cast<size_t>(g.launchedBy)] += g.durationNs();
  if (!run.memoryEvents.empty()) {
    selfCudaMem_.assign(n, 0);
    selfCpuMem_.assign(n, 0);
    for (const MemoryEvent& m : run.memoryEvents)
      if (m.calledBy >= 0) (m.onDevice ? selfCudaMem_ : selfCpuMem_)[static_cast<size_t>(m.calledBy)] += m.signedBytes();
    cudaMem_ = selfCudaMem_;
    cpuMem_ = selfCpuMem_;
  }
  const bool memory = !cudaMem_.empty();

  const ThreadEvents threads = byThread(events);
  // The children's time is summed into selfNs_ first, then subtracted.
  selfNs_.assign(n, 0);
  HugeVector<uint64_t>& childrenNs = selfNs_;
  gpuTotalNs_ = selfGpuNs_;
  // (start, end, index) copied out of the events, so the sort compares
  // neighbours in memory rather than chasing indices into the event table.
  struct Interval {
    uint64_t startNs;
    uint64_t endNs;
    uint32_t index;
  };
  HugeVector<Interval> order;
  std::vector<uint32_t> open;
  for (size_t t = 0; t + 1 < threads.begin.size(); ++t) {
    order.clear();
    for (size_t k = threads.begin[t]; k < threads.begin[t + 1]; ++k) {
      const uint32_t i = threads.events[k];
      order.push_back({events[i].startNs, events[i].endNs, i});
    }
    // By start, the longer first; equal intervals keep file order (index),
    // so the first becomes the parent.
    std::sort(order.begin(), order.end(), [](const Interval& a, const Interval& b) {
      if (a.startNs != b.startNs) return a.startNs < b.startNs;
      if (a.endNs != b.endNs) return a.endNs > b.endNs;
      return a.index < b.index;
    });
    open.clear();
    for (const Interval& event : order) {
      while (!open.empty()) {
        const CpuEvent& candidate = events[open.back()];
        if (event.startNs >= candidate.endNs || event.endNs > candidate.endNs) {
          open.pop_back();
        } else {
          parent_[event.index] = open.back();
          break;
        }
      }
      open.push_back(event.index);
    }
    // Children come after their parent in this order, so a reverse walk
    // finishes every child's GPU total before adding it to its parent.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const size_t i = it->index;
      if (parent_[i] == kNoParent) continue;
      const auto p = static_cast<size_t>(parent_[i]);
      childrenNs[p] += events[i].durationNs();
      gpuTotalNs_[p] += gpuTotalNs_[i];
      if (memory) {
        cudaMem_[p] += cudaMem_[i];
        cpuMem_[p] += cpuMem_[i];
      }
    }
  }

  for (size_t i = 0; i < n; ++i) {
    const uint64_t total = events[i].durationNs();
    selfNs_[i] = childrenNs[i] > total ? 0 : total - childrenNs[i];
  }
}

}  // namespace prof::analyzer
