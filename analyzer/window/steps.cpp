#include "window/steps.h"

#include <algorithm>
#include <cstdint>

namespace prof::analyzer {
namespace {

struct Boundary {
  uint64_t start_ns;  // step start (start rules) or step end (end rules)
  uint64_t end_ns;    // nvtx: the range's end
};

// First start and last end of each process's events, on the Run's timeline.
void process_spans(const Run& run, std::vector<uint64_t>& first, std::vector<uint64_t>& last) {
  first.assign(run.processes.size(), UINT64_MAX);
  last.assign(run.processes.size(), 0);
  auto see = [&](uint32_t p, uint64_t s, uint64_t e) {
    first[p] = std::min(first[p], s);
    last[p] = std::max(last[p], e);
  };
  for (const CpuEvent& e : run.cpu_events) see(e.process, e.start_ns, e.end_ns);
  for (const GpuActivity& g : run.gpu_activities) see(g.process, g.start_ns, g.end_ns);
  for (const MemoryEvent& m : run.memory_events) see(m.process, m.time_ns, m.time_ns);
  for (const TensorMemoryEvent& m : run.tensor_memory_events) see(m.process, m.time_ns, m.time_ns);
}

// A wait belongs with the call that waited (select_steps): one without a
// recorded call is in no step.
bool every_wait_has_its_call(const Run& run) {
  return std::all_of(run.synchronizations.begin(), run.synchronizations.end(),
                     [](const Synchronization& s) { return s.called_by >= 0; });
}
}  // namespace

std::optional<StepOption> parse_step_option(const std::string& text, std::string& error) {
  if (text == "auto") return StepOption{true, std::nullopt};
  std::string why;
  std::optional<StepRule> rule = StepRule::parse(text, why);
  if (!rule) {
    error = "--step: '" + text + "' " + why + (why.rfind("is not ", 0) == 0 ? " (or auto)" : "");
    return std::nullopt;
  }
  return StepOption{false, std::move(rule)};
}

int64_t RunSteps::count() const {
  size_t most = 0;
  for (const auto& steps : per_process_) most = std::max(most, steps.size());
  return static_cast<int64_t>(most);
}

const std::vector<Step>& RunSteps::of_process(uint32_t process) const {
  static const std::vector<Step> none;
  return process < per_process_.size() ? per_process_[process] : none;
}

int64_t RunSteps::step_at(uint32_t process, uint64_t time_ns) const {
  const std::vector<Step>& steps = of_process(process);
  // Steps are sorted and disjoint: the last one starting at or before time_ns.
  auto it = std::upper_bound(steps.begin(), steps.end(), time_ns,
                             [](uint64_t t, const Step& s) { return t < s.start_ns; });
  if (it == steps.begin()) return -1;
  --it;
  return time_ns < it->end_ns ? it->index : -1;
}

int64_t StepLookup::at(uint32_t process, uint64_t time_ns) {
  const std::vector<Step>& list = steps_.of_process(process);
  // The last step starting at or before time_ns, as step_at finds it.
  const bool same = process == process_ && last_ < list.size() && list[last_].start_ns <= time_ns &&
                    (last_ + 1 == list.size() || time_ns < list[last_ + 1].start_ns);
  if (!same) {
    auto it = std::upper_bound(list.begin(), list.end(), time_ns,
                               [](uint64_t t, const Step& s) { return t < s.start_ns; });
    if (it == list.begin()) return -1;
    process_ = process;
    last_ = static_cast<size_t>(it - list.begin()) - 1;
  }
  return time_ns < list[last_].end_ns ? list[last_].index : -1;
}

RunSteps find_steps(const Run& run, const StepRule& rule) {
  const size_t processes = run.processes.size();
  std::vector<std::vector<Boundary>> bounds(processes);

  if (rule.kind() == StepRule::Kind::kNvtx) {
    // Each range name is matched once, not once per range.
    std::vector<int8_t> matches;  // by NameId: -1 unknown, 0 no, 1 yes
    for (const CpuEvent& e : run.cpu_events) {
      if (e.kind == CpuEventKind::kApiCall) continue;
      if (matches.size() <= e.name) matches.resize(e.name + 1, -1);
      if (matches[e.name] < 0) matches[e.name] = rule.matches(run.name(e.name)) ? 1 : 0;
      if (matches[e.name] == 1) bounds[e.process].push_back({e.start_ns, e.end_ns});
    }
  } else if (rule.kind() == StepRule::Kind::kKernel) {
    // Each kernel name is matched once, not once per launch.
    std::vector<int8_t> matches;  // by NameId: -1 unknown, 0 no, 1 yes
    for (const GpuActivity& g : run.gpu_activities) {
      if (g.kind != GpuKind::kKernel) continue;
      if (matches.size() <= g.name) matches.resize(g.name + 1, -1);
      // Kernel names are demangled when read (model/run_builder.cpp), as
      // the agent matches them.
      if (matches[g.name] < 0) matches[g.name] = rule.matches(run.name(g.name)) ? 1 : 0;
      if (matches[g.name] == 0) continue;
      const uint64_t t = g.launched_by >= 0 ? run.cpu_events[static_cast<size_t>(g.launched_by)].start_ns : g.start_ns;
      bounds[g.process].push_back({t, t});
    }
  } else if (rule.kind() == StepRule::Kind::kApi) {
    const bool ends = rule.ends_steps();
    for (const CpuEvent& e : run.cpu_events)
      if (e.kind == CpuEventKind::kApiCall && rule.matches(run.name(e.name)))
        bounds[e.process].push_back({ends ? e.end_ns : e.start_ns, 0});
  }

  std::vector<uint64_t> first, last;
  process_spans(run, first, last);
  std::vector<std::vector<Step>> per_process(processes);
  for (size_t p = 0; p < processes; ++p) {
    auto& b = bounds[p];
    std::stable_sort(b.begin(), b.end(), [](const Boundary& x, const Boundary& y) { return x.start_ns < y.start_ns; });
    auto& steps = per_process[p];
    auto add = [&](uint64_t start, uint64_t end) {
      if (end > start) steps.push_back({static_cast<int64_t>(steps.size()), start, end});
    };
    if (rule.kind() == StepRule::Kind::kNvtx) {
      uint64_t open_until = 0;
      for (const Boundary& r : b) {
        if (!steps.empty() && r.start_ns < open_until) continue;  // nested in the previous step
        add(r.start_ns, r.end_ns);
        open_until = std::max(open_until, r.end_ns);
      }
    } else if (rule.ends_steps()) {
      uint64_t start = first[p];
      for (const Boundary& r : b) {
        add(start, r.start_ns);
        start = std::max(start, r.start_ns);
      }
    } else {
      for (size_t i = 0; i < b.size(); ++i) {
        // Events end-inclusive at the last one: the last step holds them all.
        const uint64_t end = i + 1 < b.size() ? b[i + 1].start_ns : std::max(last[p], b[i].start_ns) + 1;
        add(b[i].start_ns, end);
      }
    }
  }
  return RunSteps(std::move(per_process));
}

StepMembership step_membership(const Run& run, const RunSteps& steps) {
  StepMembership m;
  StepLookup lookup(steps);
  m.cpu.reserve(run.cpu_events.size());
  for (const CpuEvent& e : run.cpu_events) m.cpu.push_back(lookup.at(e.process, e.start_ns));
  m.gpu.reserve(run.gpu_activities.size());
  for (const GpuActivity& g : run.gpu_activities)
    m.gpu.push_back(g.launched_by >= 0 ? m.cpu[static_cast<size_t>(g.launched_by)] : lookup.at(g.process, g.start_ns));
  m.memory.reserve(run.memory_events.size());
  for (const MemoryEvent& e : run.memory_events)
    m.memory.push_back(e.called_by >= 0 ? m.cpu[static_cast<size_t>(e.called_by)] : steps.step_at(e.process, e.time_ns));
  m.tensor_memory.reserve(run.tensor_memory_events.size());
  for (const TensorMemoryEvent& e : run.tensor_memory_events) m.tensor_memory.push_back(steps.step_at(e.process, e.time_ns));
  return m;
}

Run select_steps(const Run& run, const StepMembership& membership, const std::vector<int64_t>& steps) {
  // Steps numbered without a hole (every step, as advise's "All steps"
  // asks) are a range test, not a binary search per event.
  bool contiguous = !steps.empty();
  for (size_t i = 0; contiguous && i < steps.size(); ++i) contiguous = steps[i] == steps.front() + static_cast<int64_t>(i);
  auto wanted = [&](int64_t step) {
    if (contiguous) return step >= 0 && step >= steps.front() && step <= steps.back();
    return step >= 0 && std::binary_search(steps.begin(), steps.end(), step);
  };
  Run out = run.without_events();
  HugeVector<int64_t> new_index(run.cpu_events.size(), -1);
  for (size_t i = 0; i < run.cpu_events.size(); ++i)
    if (wanted(membership.cpu[i])) {
      new_index[i] = static_cast<int64_t>(out.cpu_events.size());
      out.cpu_events.push_back(run.cpu_events[i]);
    }
  auto remap = [&](int64_t index) { return index >= 0 ? new_index[static_cast<size_t>(index)] : int64_t{-1}; };
  for (size_t i = 0; i < run.gpu_activities.size(); ++i)
    if (wanted(membership.gpu[i])) {
      out.gpu_activities.push_back(run.gpu_activities[i]);
      out.gpu_activities.back().launched_by = static_cast<int32_t>(remap(run.gpu_activities[i].launched_by));
    }
  for (size_t i = 0; i < run.memory_events.size(); ++i)
    if (wanted(membership.memory[i])) {
      out.memory_events.push_back(run.memory_events[i]);
      out.memory_events.back().called_by = remap(run.memory_events[i].called_by);
    }
  for (size_t i = 0; i < run.tensor_memory_events.size(); ++i)
    if (wanted(membership.tensor_memory[i])) out.tensor_memory_events.push_back(run.tensor_memory_events[i]);
  // A wait belongs with the call that waited.
  for (const Synchronization& s : run.synchronizations)
    if (s.called_by >= 0 && new_index[static_cast<size_t>(s.called_by)] >= 0) {
      out.synchronizations.push_back(s);
      out.synchronizations.back().called_by = remap(s.called_by);
    }
  return out;
}

bool selects_every_event(const Run& run, const StepMembership& membership, const std::vector<int64_t>& steps) {
  // Steps numbered without a hole (every step, as advise's "All steps"
  // asks) are a range test, not a binary search per event.
  bool contiguous = !steps.empty();
  for (size_t i = 0; contiguous && i < steps.size(); ++i) contiguous = steps[i] == steps.front() + static_cast<int64_t>(i);
  auto wanted = [&](int64_t step) {
    if (contiguous) return step >= 0 && step >= steps.front() && step <= steps.back();
    return step >= 0 && std::binary_search(steps.begin(), steps.end(), step);
  };
  // A window of some steps fails at its first event outside them.
  for (const auto* table : {&membership.cpu, &membership.gpu, &membership.memory, &membership.tensor_memory})
    if (!std::all_of(table->begin(), table->end(), wanted)) return false;
  return every_wait_has_its_call(run);
}

bool every_event_in_a_step(const Run& run, const RunSteps& steps) {
  // A process's steps are numbered from 0 without a hole and count() is
  // the most any has, so every step a lookup finds is one of them: an
  // event is in a step where step_membership gives it one (>= 0). GPU work
  // and memory records with a call take the call's, which the CPU events'
  // pass has found in a step.
  StepLookup lookup(steps);
  for (const CpuEvent& e : run.cpu_events)
    if (lookup.at(e.process, e.start_ns) < 0) return false;
  for (const GpuActivity& g : run.gpu_activities)
    if (g.launched_by < 0 && lookup.at(g.process, g.start_ns) < 0) return false;
  for (const MemoryEvent& e : run.memory_events)
    if (e.called_by < 0 && steps.step_at(e.process, e.time_ns) < 0) return false;
  for (const TensorMemoryEvent& e : run.tensor_memory_events)
    if (steps.step_at(e.process, e.time_ns) < 0) return false;
  return every_wait_has_its_call(run);
}

Run select_processes(const Run& run, const std::vector<uint32_t>& processes) {
  auto in = [&](uint32_t process) {
    return std::find(processes.begin(), processes.end(), process) != processes.end() ? int64_t{0} : int64_t{-1};
  };
  StepMembership m;
  m.cpu.reserve(run.cpu_events.size());
  for (const CpuEvent& e : run.cpu_events) m.cpu.push_back(in(e.process));
  m.gpu.reserve(run.gpu_activities.size());
  for (const GpuActivity& g : run.gpu_activities) m.gpu.push_back(in(g.process));
  m.memory.reserve(run.memory_events.size());
  for (const MemoryEvent& e : run.memory_events) m.memory.push_back(in(e.process));
  m.tensor_memory.reserve(run.tensor_memory_events.size());
  for (const TensorMemoryEvent& e : run.tensor_memory_events) m.tensor_memory.push_back(in(e.process));
  return select_steps(run, m, {0});
}

RunSteps number_from_windows(const Run& run, const RunSteps& steps) {
  std::vector<std::vector<Step>> per_process;
  for (uint32_t p = 0; p < run.processes.size(); ++p) {
    per_process.push_back(steps.of_process(p));
    const auto& window = run.processes[p].window;
    if (!window || window->first_step < 0) continue;
    for (Step& s : per_process.back()) s.index += window->first_step;
  }
  return RunSteps(std::move(per_process));
}

}  // namespace prof::analyzer
