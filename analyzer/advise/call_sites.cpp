#include "advise/call_sites.h"

#include <algorithm>

#include "advise/model_access.h"
#include "views/folded_stacks.h"

namespace prof::analyzer {

std::vector<std::string> CallSites::frames_of(int64_t call, size_t depth) const {
  std::vector<std::string> out;
  if (call < 0) return out;
  const CpuEvent& e = events_.cpu_events[static_cast<size_t>(call)];
  if (e.stack == 0 || e.stack > events_.stacks.size()) return out;
  for (uint32_t f : events_.stacks[e.stack - 1]) {
    const Frame& frame = events_.frames[f];
    const bool library = is_native(frame) && frame.module >= 0 &&
                         static_cast<size_t>(frame.module) < events_.modules.size() &&
                         is_cuda_or_agent_module(events_.modules[static_cast<size_t>(frame.module)].path);
    // Drop the CUDA and agent frames at the leaf end only, and nvcc's
    // generated launch stubs (the <<<...>>> of the app's own frame).
    if (library && out.empty()) continue;
    std::string name = namer_.name(events_, frame);
    if (out.empty() && name.rfind("__device_stub__", 0) == 0) continue;
    // Frames above main (libc's start code) say nothing about the program.
    const bool is_main = name == "main" || name.rfind("main (", 0) == 0;
    out.push_back(std::move(name));
    if (out.size() == depth || is_main) break;
  }
  return out;
}

CallSite& CallSites::site_of(int64_t call) {
  const CpuEvent& e = events_.cpu_events[static_cast<size_t>(call)];
  auto [it, inserted] = sites_.try_emplace({e.name, e.stack});
  if (inserted) {
    it->second.api = events_.name(e.name);
    it->second.frames = frames_of(call);
  }
  return it->second;
}

void CallSites::add(int64_t call, uint64_t cost_ns, bool count_call) {
  if (call < 0) return;
  CallSite& site = site_of(call);
  site.cost_ns += cost_ns;
  if (count_call) ++site.calls;
}

void CallSites::add_calls(int64_t call, uint64_t calls) {
  if (call >= 0) site_of(call).calls += calls;
}

std::vector<CallSite> CallSites::sorted(size_t limit) const {
  // Sites with the same name and frames (different deeper callers) merge.
  std::map<std::pair<std::string, std::vector<std::string>>, CallSite> merged;
  for (const auto& [key, site] : sites_) {
    CallSite& m = merged[{site.api, site.frames}];
    m.api = site.api;
    m.frames = site.frames;
    m.calls += site.calls;
    m.cost_ns += site.cost_ns;
  }
  std::vector<CallSite> out;
  for (auto& [key, site] : merged) out.push_back(site);
  std::stable_sort(out.begin(), out.end(), [](const CallSite& a, const CallSite& b) {
    return a.cost_ns != b.cost_ns ? a.cost_ns > b.cost_ns : a.calls > b.calls;
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace prof::analyzer
