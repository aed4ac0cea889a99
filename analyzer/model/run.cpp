#include "model/run.h"

#include <algorithm>

namespace prof::analyzer {

Run Run::without_events() const {
  Run out;
  out.processes = processes;
  out.modules = modules;
  out.frames = frames;
  out.stacks = stacks;
  out.kernel_configs = kernel_configs;
  out.gpu_places = gpu_places;
  out.transfers = transfers;
  out.callback_ids = callback_ids;
  out.names_ = names_;
  out.name_ids_ = name_ids_;
  return out;
}

size_t GpuPlaceHash::operator()(const GpuPlace& p) const {
  const uint32_t words[4] = {p.device_id, p.stream_id, p.context_id, p.graph_id};
  return hash_words(words);
}

size_t TransferHash::operator()(const Transfer& t) const {
  const uint32_t words[3] = {static_cast<uint32_t>(t.bytes), static_cast<uint32_t>(t.bytes >> 32),
                             static_cast<uint32_t>(t.copy_kind)};
  return hash_words(words);
}

NameId Run::intern(std::string_view name) {
  auto it = name_ids_.find(name);
  if (it != name_ids_.end()) return it->second;
  const auto id = static_cast<NameId>(names_.size());
  names_.emplace_back(name);
  name_ids_.emplace(names_.back(), id);
  return id;
}

uint64_t ProcessInfo::start_ns() const {
  if (process && process->start_ns != 0) return process->start_ns;
  return first_event_ns == std::numeric_limits<uint64_t>::max() ? 0 : first_event_ns;
}

uint64_t ProcessInfo::end_ns() const {
  if (end && end->end_ns != 0) return end->end_ns;
  return std::max(last_event_ns, start_ns());
}

}  // namespace prof::analyzer
