#include "window/Steps.h"

#include <algorithm>
#include <regex>

namespace prof::analyzer {
namespace {

struct Boundary {
  uint64_t startNs;  // step start (start rules) or step end (end rules)
  uint64_t endNs;    // nvtx: the range's end
};

// First start and last end of each process's events, on the Run's timeline.
void processSpans(const Run& run, std::vector<uint64_t>& first, std::vector<uint64_t>& last) {
  first.assign(run.processes.size(), UINT64_MAX);
  last.assign(run.processes.size(), 0);
  auto see = [&](uint32_t p, uint64_t s, uint64_t e) {
    first[p] = std::min(first[p], s);
    last[p] = std::max(last[p], e);
  };
  for (const CpuEvent& e : run.cpuEvents) see(e.process, e.startNs, e.endNs);
  for (const GpuActivity& g : run.gpuActivities) see(g.process, g.startNs, g.endNs);
  for (const MemoryEvent& m : run.memoryEvents) see(m.process, m.timeNs, m.timeNs);
}

}  // namespace

std::string StepRule::spelling() const {
  switch (kind) {
    case Kind::kNvtx: return "nvtx:" + pattern;
    case Kind::kKernel: return "kernel:" + pattern;
    case Kind::kApi: return "api:" + pattern;
    case Kind::kAuto: return "auto";
  }
  return {};
}

bool StepRule::endsSteps() const {
  return kind == Kind::kApi && pattern.find("Synchronize") != std::string::npos;
}

std::optional<StepRule> parseStepRule(const std::string& text, std::string& error) {
  if (text == "auto") return StepRule{StepRule::Kind::kAuto, {}};
  const size_t colon = text.find(':');
  const std::string kind = colon == std::string::npos ? text : text.substr(0, colon);
  const std::string pattern = colon == std::string::npos ? "" : text.substr(colon + 1);
  StepRule rule;
  if (kind == "nvtx") {
    rule.kind = StepRule::Kind::kNvtx;
  } else if (kind == "kernel") {
    rule.kind = StepRule::Kind::kKernel;
  } else if (kind == "api") {
    rule.kind = StepRule::Kind::kApi;
  } else {
    error = "--step: '" + text + "' is not nvtx:REGEX, kernel:REGEX, api:NAME or auto";
    return std::nullopt;
  }
  if (pattern.empty()) {
    error = "--step: '" + text + "' needs a " + (rule.kind == StepRule::Kind::kApi ? "name" : "regex") + " after ':'";
    return std::nullopt;
  }
  if (rule.kind != StepRule::Kind::kApi) {
    try {
      std::regex check(pattern);
    } catch (const std::regex_error& e) {
      error = "--step: bad regex '" + pattern + "': " + e.what();
      return std::nullopt;
    }
  }
  rule.pattern = pattern;
  return rule;
}

int64_t RunSteps::count() const {
  size_t most = 0;
  for (const auto& steps : perProcess_) most = std::max(most, steps.size());
  return static_cast<int64_t>(most);
}

const std::vector<Step>& RunSteps::ofProcess(uint32_t process) const {
  static const std::vector<Step> none;
  return process < perProcess_.size() ? perProcess_[process] : none;
}

int64_t RunSteps::stepAt(uint32_t process, uint64_t timeNs) const {
  const std::vector<Step>& steps = ofProcess(process);
  // Steps are sorted and disjoint: the last one starting at or before timeNs.
  auto it = std::upper_bound(steps.begin(), steps.end(), timeNs,
                             [](uint64_t t, const Step& s) { return t < s.startNs; });
  if (it == steps.begin()) return -1;
  --it;
  return timeNs < it->endNs ? it->index : -1;
}

RunSteps findSteps(const Run& run, const StepRule& rule) {
  const size_t processes = run.processes.size();
  std::vector<std::vector<Boundary>> bounds(processes);
  const std::regex regex(rule.kind == StepRule::Kind::kApi ? std::string(".") : rule.pattern);

  if (rule.kind == StepRule::Kind::kNvtx) {
    for (const CpuEvent& e : run.cpuEvents)
      if (e.kind != CpuEventKind::kApiCall && std::regex_search(run.name(e.name), regex))
        bounds[e.process].push_back({e.startNs, e.endNs});
  } else if (rule.kind == StepRule::Kind::kKernel) {
    // Each kernel name is matched once, not once per launch.
    std::vector<int8_t> matches;  // by NameId: -1 unknown, 0 no, 1 yes
    for (const GpuActivity& g : run.gpuActivities) {
      if (g.kind != GpuKind::kKernel) continue;
      if (matches.size() <= g.name) matches.resize(g.name + 1, -1);
      if (matches[g.name] < 0) matches[g.name] = std::regex_search(run.name(g.name), regex) ? 1 : 0;
      if (matches[g.name] == 0) continue;
      const uint64_t t = g.launchedBy >= 0 ? run.cpuEvents[static_cast<size_t>(g.launchedBy)].startNs : g.startNs;
      bounds[g.process].push_back({t, t});
    }
  } else if (rule.kind == StepRule::Kind::kApi) {
    const bool ends = rule.endsSteps();
    for (const CpuEvent& e : run.cpuEvents)
      if (e.kind == CpuEventKind::kApiCall && run.name(e.name) == rule.pattern)
        bounds[e.process].push_back({ends ? e.endNs : e.startNs, 0});
  }

  std::vector<uint64_t> first, last;
  processSpans(run, first, last);
  std::vector<std::vector<Step>> perProcess(processes);
  for (size_t p = 0; p < processes; ++p) {
    auto& b = bounds[p];
    std::stable_sort(b.begin(), b.end(), [](const Boundary& x, const Boundary& y) { return x.startNs < y.startNs; });
    auto& steps = perProcess[p];
    auto add = [&](uint64_t start, uint64_t end) {
      if (end > start) steps.push_back({static_cast<int64_t>(steps.size()), start, end});
    };
    if (rule.kind == StepRule::Kind::kNvtx) {
      uint64_t openUntil = 0;
      for (const Boundary& r : b) {
        if (!steps.empty() && r.startNs < openUntil) continue;  // nested in the previous step
        add(r.startNs, r.endNs);
        openUntil = std::max(openUntil, r.endNs);
      }
    } else if (rule.endsSteps()) {
      uint64_t start = first[p];
      for (const Boundary& r : b) {
        add(start, r.startNs);
        start = std::max(start, r.startNs);
      }
    } else {
      for (size_t i = 0; i < b.size(); ++i) {
        // Events end-inclusive at the last one: the last step holds them all.
        const uint64_t end = i + 1 < b.size() ? b[i + 1].startNs : std::max(last[p], b[i].startNs) + 1;
        add(b[i].startNs, end);
      }
    }
  }
  return RunSteps(std::move(perProcess));
}

StepMembership stepMembership(const Run& run, const RunSteps& steps) {
  StepMembership m;
  m.cpu.reserve(run.cpuEvents.size());
  for (const CpuEvent& e : run.cpuEvents) m.cpu.push_back(steps.stepAt(e.process, e.startNs));
  m.gpu.reserve(run.gpuActivities.size());
  for (const GpuActivity& g : run.gpuActivities)
    m.gpu.push_back(g.launchedBy >= 0 ? m.cpu[static_cast<size_t>(g.launchedBy)] : steps.stepAt(g.process, g.startNs));
  m.memory.reserve(run.memoryEvents.size());
  for (const MemoryEvent& e : run.memoryEvents)
    m.memory.push_back(e.calledBy >= 0 ? m.cpu[static_cast<size_t>(e.calledBy)] : steps.stepAt(e.process, e.timeNs));
  return m;
}

Run selectSteps(const Run& run, const StepMembership& membership, const std::vector<int64_t>& steps) {
  auto wanted = [&](int64_t step) { return step >= 0 && std::binary_search(steps.begin(), steps.end(), step); };
  Run out = run.withoutEvents();
  HugeVector<int64_t> newIndex(run.cpuEvents.size(), -1);
  for (size_t i = 0; i < run.cpuEvents.size(); ++i)
    if (wanted(membership.cpu[i])) {
      newIndex[i] = static_cast<int64_t>(out.cpuEvents.size());
      out.cpuEvents.push_back(run.cpuEvents[i]);
    }
  auto remap = [&](int64_t index) { return index >= 0 ? newIndex[static_cast<size_t>(index)] : int64_t{-1}; };
  for (size_t i = 0; i < run.gpuActivities.size(); ++i)
    if (wanted(membership.gpu[i])) {
      out.gpuActivities.push_back(run.gpuActivities[i]);
      out.gpuActivities.back().launchedBy = remap(run.gpuActivities[i].launchedBy);
    }
  for (size_t i = 0; i < run.memoryEvents.size(); ++i)
    if (wanted(membership.memory[i])) {
      out.memoryEvents.push_back(run.memoryEvents[i]);
      out.memoryEvents.back().calledBy = remap(run.memoryEvents[i].calledBy);
    }
  return out;
}

}  // namespace prof::analyzer
