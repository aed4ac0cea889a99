#include "model/LaunchingCalls.h"

#include <algorithm>

namespace prof::analyzer {

LaunchingCalls::LaunchingCalls(const Run& run) : processes_(run.processes.size()) {
  const auto& events = run.cpuEvents;
  std::vector<uint64_t> calls(processes_.size(), 0);
  std::vector<uint32_t> maxId(processes_.size(), 0);
  for (const CpuEvent& e : events) {
    if (e.kind != CpuEventKind::kApiCall || e.correlationId == 0) continue;
    ++calls[e.process];
    maxId[e.process] = std::max(maxId[e.process], e.correlationId);
  }
  for (size_t p = 0; p < processes_.size(); ++p) {
    // Up to 2 ids per call plus some slack: CUPTI ids also number activities
    // without a call (the bench's and real captures stay well under this).
    processes_[p].dense = maxId[p] <= 2 * calls[p] + 1024;
    if (processes_[p].dense) processes_[p].byId.assign(size_t{maxId[p]} + 1, -1);
  }
  for (size_t i = 0; i < events.size(); ++i) {
    const CpuEvent& e = events[i];
    if (e.kind != CpuEventKind::kApiCall || e.correlationId == 0) continue;
    OfProcess& p = processes_[e.process];
    int64_t* slot = nullptr;
    if (p.dense) {
      slot = &p.byId[e.correlationId];
    } else {
      slot = &p.sparse.try_emplace(e.correlationId, -1).first->second;
    }
    if (*slot < 0 || e.startNs < events[static_cast<size_t>(*slot)].startNs) *slot = static_cast<int64_t>(i);
  }
}

int64_t LaunchingCalls::find(uint32_t process, uint32_t correlationId) const {
  if (process >= processes_.size()) return -1;
  const OfProcess& p = processes_[process];
  if (p.dense) return correlationId < p.byId.size() ? p.byId[correlationId] : -1;
  auto it = p.sparse.find(correlationId);
  return it == p.sparse.end() ? -1 : it->second;
}

}  // namespace prof::analyzer
