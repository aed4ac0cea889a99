#include "views/FoldedStacks.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "views/KeyAverages.h"

namespace prof::analyzer {
namespace {

std::string_view baseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// A folded stack as integers: what kind of leaf, then the fields below.
// Events with equal keys have equal text, so the text is made once per key
// rather than once per event (a string per event was most of `stacks`).
using StackKey = std::array<uint32_t, 6>;
struct StackKeyHash {
  size_t operator()(const StackKey& key) const {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a over the words
    for (uint32_t word : key) hash = (hash ^ word) * 1099511628211ull;
    return hash;
  }
};

class StackBuilder {
 public:
  StackBuilder(const Run& run, const RangeTree& tree, const FoldedStacksOptions& options, const FrameNamer& namer)
      : run_(run), tree_(tree), options_(options), namer_(namer), path_(run.cpuEvents.size(), 0),
        native_(run.cpuEvents.size(), 0), paths_(1) {}

  // The stack down to and including CPU event `index`: its thread (with
  // perThread), the native stack it shows, and its path of enclosing
  // ranges and calls.
  StackKey cpuKey(size_t index) {
    resolve(index);
    const CpuEvent& e = run_.cpuEvents[index];
    return {kCpu, options_.perThread ? e.process : 0, options_.perThread ? e.tid : 0, native_[index], path_[index], 0};
  }

  StackKey gpuKey(const GpuActivity& g) {
    if (g.launchedBy >= 0 && static_cast<size_t>(g.launchedBy) < run_.cpuEvents.size()) {
      StackKey key = cpuKey(static_cast<size_t>(g.launchedBy));
      key[0] = kLaunchedGpu;
      key[5] = g.name;
      return key;
    }
    if (options_.perThread) return {kGpuByStream, g.deviceId, g.streamId, 0, 0, g.name};
    return {kGpu, 0, 0, 0, 0, g.name};
  }

  std::string text(const StackKey& key) {
    std::string out;
    if (key[0] == kGpuByStream) append(out, "GPU " + std::to_string(key[1]) + " stream " + std::to_string(key[2]));
    if (key[0] == kCpu || key[0] == kLaunchedGpu) {
      if (options_.perThread) append(out, threadFrame(key[1], key[2]));
      if (key[3] != 0) appendNativeStack(out, run_.stacks[key[3] - 1]);
      std::vector<uint32_t> rowKeys;
      for (uint32_t p = key[4]; p != 0; p = paths_[p].parent) rowKeys.push_back(paths_[p].rowKey);
      for (auto it = rowKeys.rbegin(); it != rowKeys.rend(); ++it) append(out, rowKeyTexts_[*it]);
    }
    if (key[0] != kCpu) append(out, run_.name(key[5]));
    return out;
  }

 private:
  enum Leaf : uint32_t { kCpu, kLaunchedGpu, kGpuByStream, kGpu };

  // A path of enclosing events, as a trie node: its last event's row name
  // and the path before it (0: the root, no event).
  struct PathNode {
    uint32_t parent = 0;
    uint32_t rowKey = 0;
  };

  // Fills path_ and native_ for `index` and any of its ancestors not done
  // yet, outermost first, since each extends its parent's.
  void resolve(size_t index) {
    pending_.clear();
    for (int64_t i = static_cast<int64_t>(index); i != RangeTree::kNoParent && path_[static_cast<size_t>(i)] == 0;
         i = tree_.parent(static_cast<size_t>(i)))
      pending_.push_back(static_cast<size_t>(i));
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      const size_t i = *it;
      const CpuEvent& e = run_.cpuEvents[i];
      const int64_t parent = tree_.parent(i);
      const uint32_t parentPath = parent == RangeTree::kNoParent ? 0 : path_[static_cast<size_t>(parent)];
      const uint32_t parentNative = parent == RangeTree::kNoParent ? 0 : native_[static_cast<size_t>(parent)];
      path_[i] = child(parentPath, rowKeyId(e));
      // The native stack of the innermost API call of the chain that has
      // one: a driver call under a runtime call shares its call site once
      // the CUDA library frames are dropped.
      const bool hasStack = e.kind == CpuEventKind::kApiCall && e.stack != 0 && e.stack <= run_.stacks.size();
      native_[i] = hasStack ? e.stack : parentNative;
    }
  }

  uint32_t child(uint32_t parent, uint32_t rowKey) {
    auto [it, added] = children_.try_emplace((uint64_t{parent} << 32) | rowKey, 0);
    if (added) {
      paths_.push_back({parent, rowKey});
      it->second = static_cast<uint32_t>(paths_.size() - 1);
    }
    return it->second;
  }

  // One id per row name text, looked up by (domain, name) id:
  // "ProfilerStep#1" and "#2" are both "ProfilerStep*", so every step's
  // events share their paths.
  uint32_t rowKeyId(const CpuEvent& e) {
    auto [it, added] = rowKeyIds_.try_emplace((uint64_t{e.domain} << 32) | e.name, 0);
    if (added) {
      std::string text = rowKey(run_, e);
      auto [byText, newText] = rowKeyByText_.try_emplace(text, static_cast<uint32_t>(rowKeyTexts_.size()));
      if (newText) rowKeyTexts_.push_back(std::move(text));
      it->second = byText->second;
    }
    return it->second;
  }

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
  // Per CPU event: its path (0: not resolved yet) and native stack (index
  // + 1 into Run::stacks; 0: none).
  HugeVector<uint32_t> path_;
  HugeVector<uint32_t> native_;
  std::vector<PathNode> paths_;  // [0] is the root
  std::unordered_map<uint64_t, uint32_t> children_;
  std::unordered_map<uint64_t, uint32_t> rowKeyIds_;
  std::unordered_map<std::string, uint32_t> rowKeyByText_;
  std::vector<std::string> rowKeyTexts_;
  std::vector<size_t> pending_;
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
  std::unordered_map<StackKey, uint64_t, StackKeyHash> byKey;
  if (options.metric == StackMetric::kSelfCpu) {
    for (size_t i = 0; i < run.cpuEvents.size(); ++i) {
      if (run.cpuEvents[i].kind == CpuEventKind::kStartEndRange) continue;
      const uint64_t ns = tree.selfNs(i);
      if (ns > 0) byKey[builder.cpuKey(i)] += ns;
    }
  } else {
    for (const GpuActivity& g : run.gpuActivities)
      if (g.durationNs() > 0) byKey[builder.gpuKey(g)] += g.durationNs();
  }
  std::map<std::string, uint64_t> merged;
  for (const auto& [key, ns] : byKey) merged[builder.text(key)] += ns;
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
