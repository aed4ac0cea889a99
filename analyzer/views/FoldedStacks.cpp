#include "views/FoldedStacks.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "views/KeyAverages.h"

namespace prof::analyzer {
namespace {

std::string_view baseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

class StackBuilder {
 public:
  StackBuilder(const Run& run, const RangeTree& tree, const FoldedStacksOptions& options, const FrameNamer& namer)
      : run_(run), tree_(tree), options_(options), namer_(namer) {}

  // The folded stack down to and including CPU event `index`. Not cached:
  // each event is folded about once (one launch, one kernel), and a cache
  // would hold a string per event where the result holds one per distinct
  // stack.
  std::string cpuStack(size_t index) {
    const CpuEvent& event = run_.cpuEvents[index];
    // Ancestors, outermost first: push/pop ranges and enclosing API calls.
    std::vector<size_t> chain;
    for (int64_t p = tree_.parent(index); p != RangeTree::kNoParent; p = tree_.parent(static_cast<size_t>(p)))
      chain.push_back(static_cast<size_t>(p));
    std::reverse(chain.begin(), chain.end());
    chain.push_back(index);

    std::string out;
    if (options_.perThread) append(out, threadFrame(event.process, event.tid));
    // The native stack of the innermost API call of the chain that has one:
    // a driver call under a runtime call shares its call site once the CUDA
    // library frames are dropped.
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const CpuEvent& e = run_.cpuEvents[*it];
      if (e.kind == CpuEventKind::kApiCall && e.stack != 0 && e.stack <= run_.stacks.size()) {
        appendNativeStack(out, run_.stacks[e.stack - 1]);
        break;
      }
    }
    for (size_t i : chain) append(out, rowKey(run_, run_.cpuEvents[i]));
    return out;
  }

  std::string gpuStack(const GpuActivity& g) {
    std::string out;
    if (g.launchedBy >= 0 && static_cast<size_t>(g.launchedBy) < run_.cpuEvents.size()) {
      out = cpuStack(static_cast<size_t>(g.launchedBy));
    } else if (options_.perThread) {
      append(out, "GPU " + std::to_string(g.deviceId) + " stream " + std::to_string(g.streamId));
    }
    append(out, run_.name(g.name));
    return out;
  }

 private:
  static void append(std::string& stack, std::string_view frame) {
    if (!stack.empty()) stack += ';';
    stack += foldedFrameName(frame);
  }

  std::string threadFrame(uint32_t process, uint32_t tid) const {
    std::string frame;
    if (run_.processes.size() > 1) {
      const ProcessInfo& p = run_.processes[process];
      frame = "pid " + std::to_string(p.process ? p.process->pid() : process) + " ";
    }
    frame += "thread " + std::to_string(tid);
    const auto& threads = run_.processes[process].threads;
    if (auto it = threads.find(tid); it != threads.end() && !it->second.empty()) frame += " (" + it->second + ")";
    return frame;
  }

  void appendNativeStack(std::string& out, const std::vector<uint32_t>& frames) {
    // Innermost first: skip the CUDA and agent frames at the leaf end.
    size_t leaf = 0;
    while (leaf < frames.size() && inCudaOrAgent(run_.frames[frames[leaf]])) ++leaf;
    for (size_t i = frames.size(); i > leaf; --i) append(out, frameName(frames[i - 1]));
  }

  bool inCudaOrAgent(const Frame& f) const {
    if (f.kind != prof::proto::Frame::NATIVE || f.module < 0 || static_cast<size_t>(f.module) >= run_.modules.size())
      return false;
    return isCudaOrAgentModule(run_.modules[static_cast<size_t>(f.module)].path);
  }

  const std::string& frameName(uint32_t frame) {
    auto it = frameNames_.find(frame);
    if (it == frameNames_.end()) it = frameNames_.emplace(frame, namer_.name(run_, run_.frames[frame])).first;
    return it->second;
  }

  const Run& run_;
  const RangeTree& tree_;
  const FoldedStacksOptions& options_;
  const FrameNamer& namer_;
  std::unordered_map<uint32_t, std::string> frameNames_;
};

}  // namespace

std::optional<StackMetric> parseStackMetric(std::string_view name) {
  if (name == "self_cpu_time_total") return StackMetric::kSelfCpu;
  if (name == "self_cuda_time_total") return StackMetric::kSelfCuda;
  return std::nullopt;
}

bool isCudaOrAgentModule(std::string_view path) {
  const std::string_view base = baseName(path);
  for (std::string_view prefix : {"libcudart.", "libcuda.", "libcupti.", "libprof."})
    if (base.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::string foldedFrameName(std::string_view name) {
  if (name.empty()) return "[unknown]";
  std::string out(name);
  for (char& c : out)
    if (c == ';' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
  return out;
}

std::vector<FoldedStack> foldedStacks(const Run& run, const RangeTree& tree, const FoldedStacksOptions& options) {
  const ModuleOffsetFrameNamer defaultNamer;
  StackBuilder builder(run, tree, options, options.namer ? *options.namer : defaultNamer);
  std::map<std::string, uint64_t> merged;
  if (options.metric == StackMetric::kSelfCpu) {
    for (size_t i = 0; i < run.cpuEvents.size(); ++i) {
      if (run.cpuEvents[i].kind == CpuEventKind::kStartEndRange) continue;
      const uint64_t ns = tree.selfNs(i);
      if (ns > 0) merged[builder.cpuStack(i)] += ns;
    }
  } else {
    for (const GpuActivity& g : run.gpuActivities)
      if (g.durationNs() > 0) merged[builder.gpuStack(g)] += g.durationNs();
  }
  std::vector<FoldedStack> out;
  out.reserve(merged.size());
  for (auto& [frames, ns] : merged) out.push_back(FoldedStack{frames, ns});
  return out;
}

size_t writeFoldedStacks(const std::vector<FoldedStack>& stacks, std::ostream& out) {
  size_t lines = 0;
  for (const FoldedStack& s : stacks) {
    const uint64_t us = (s.ns + 500) / 1000;
    if (us == 0) continue;
    out << s.frames << ' ' << us << '\n';
    ++lines;
  }
  return lines;
}

}  // namespace prof::analyzer
