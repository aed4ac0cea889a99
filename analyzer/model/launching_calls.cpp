#include "model/launching_calls.h"

#include <algorithm>

namespace prof::analyzer {

LaunchingCalls::LaunchingCalls(const Run& run) : processes_(run.processes.size()) {
  const auto& events = run.cpu_events;
  std::vector<uint64_t> calls(processes_.size(), 0);
  std::vector<uint32_t> max_id(processes_.size(), 0);
  for (const CpuEvent& e : events) {
    if (e.kind != CpuEventKind::kApiCall || e.correlation_id() == 0) continue;
    ++calls[e.process];
    max_id[e.process] = std::max(max_id[e.process], e.correlation_id());
  }
  for (size_t p = 0; p < processes_.size(); ++p) {
    // Up to 2 ids per call plus some slack: CUPTI ids also number activities
    // without a call (the bench's and real captures stay well under this).
    processes_[p].dense = max_id[p] <= 2 * calls[p] + 1024;
    if (processes_[p].dense) processes_[p].by_id.assign(size_t{max_id[p]} + 1, kNone);
  }
  for (size_t i = 0; i < events.size(); ++i) {
    const CpuEvent& e = events[i];
    if (e.kind != CpuEventKind::kApiCall || e.correlation_id() == 0) continue;
    OfProcess& p = processes_[e.process];
    uint32_t* slot = nullptr;
    if (p.dense) {
      slot = &p.by_id[e.correlation_id()];
    } else {
      slot = &p.sparse.try_emplace(e.correlation_id(), kNone).first->second;
    }
    if (*slot == kNone || e.start_ns < events[*slot].start_ns) *slot = static_cast<uint32_t>(i);
  }
}

int64_t LaunchingCalls::find(uint32_t process, uint32_t correlation_id) const {
  if (process >= processes_.size()) return -1;
  const OfProcess& p = processes_[process];
  uint32_t index = kNone;
  if (p.dense) {
    if (correlation_id < p.by_id.size()) index = p.by_id[correlation_id];
  } else if (auto it = p.sparse.find(correlation_id); it != p.sparse.end()) {
    index = it->second;
  }
  return index == kNone ? -1 : int64_t{index};
}

}  // namespace prof::analyzer
