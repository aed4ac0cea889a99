#include "model/Run.h"

#include <algorithm>

namespace prof::analyzer {

Run Run::withoutEvents() const {
  Run out;
  out.processes = processes;
  out.modules = modules;
  out.frames = frames;
  out.stacks = stacks;
  out.kernelConfigs = kernelConfigs;
  out.names_ = names_;
  out.nameIds_ = nameIds_;
  return out;
}

NameId Run::intern(std::string_view name) {
  auto it = nameIds_.find(name);
  if (it != nameIds_.end()) return it->second;
  const auto id = static_cast<NameId>(names_.size());
  names_.emplace_back(name);
  nameIds_.emplace(names_.back(), id);
  return id;
}

uint64_t ProcessInfo::startNs() const {
  if (process && process->start_ns() != 0) return process->start_ns();
  return firstEventNs == std::numeric_limits<uint64_t>::max() ? 0 : firstEventNs;
}

uint64_t ProcessInfo::endNs() const {
  if (end && end->end_ns() != 0) return end->end_ns();
  return std::max(lastEventNs, startNs());
}

}  // namespace prof::analyzer
