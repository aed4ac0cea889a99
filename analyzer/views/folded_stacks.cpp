#include "views/folded_stacks.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "views/key_averages.h"

namespace prof::analyzer {
namespace {

std::string_view base_name(std::string_view path) {
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
      : run_(run), tree_(tree), options_(options), namer_(namer), path_(run.cpu_events.size(), 0),
        native_(run.cpu_events.size(), 0), paths_(1) {}

  // The stack down to and including CPU event `index`: its thread (with
  // per_thread), the native stack it shows, and its path of enclosing
  // ranges and calls.
  StackKey cpu_key(size_t index) {
    resolve(index);
    const CpuEvent& e = run_.cpu_events[index];
    return {kCpu, options_.per_thread ? e.process : 0, options_.per_thread ? e.tid : 0, native_[index], path_[index], 0};
  }

  StackKey gpu_key(const GpuActivity& g) {
    if (g.launched_by >= 0 && static_cast<size_t>(g.launched_by) < run_.cpu_events.size()) {
      StackKey key = cpu_key(static_cast<size_t>(g.launched_by));
      key[0] = kLaunchedGpu;
      key[5] = g.name;
      return key;
    }
    if (options_.per_thread) return {kGpuByStream, g.device_id, g.stream_id, 0, 0, g.name};
    return {kGpu, 0, 0, 0, 0, g.name};
  }

  std::string text(const StackKey& key) {
    std::string out;
    if (key[0] == kGpuByStream) append(out, "GPU " + std::to_string(key[1]) + " stream " + std::to_string(key[2]));
    if (key[0] == kCpu || key[0] == kLaunchedGpu) {
      if (options_.per_thread) append(out, thread_frame(key[1], key[2]));
      if (key[3] != 0) append_native_stack(out, run_.stacks[key[3] - 1]);
      std::vector<uint32_t> row_keys;
      for (uint32_t p = key[4]; p != 0; p = paths_[p].parent) row_keys.push_back(paths_[p].row_key);
      for (auto it = row_keys.rbegin(); it != row_keys.rend(); ++it) append(out, row_key_texts_[*it]);
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
    uint32_t row_key = 0;
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
      const CpuEvent& e = run_.cpu_events[i];
      const int64_t parent = tree_.parent(i);
      const uint32_t parent_path = parent == RangeTree::kNoParent ? 0 : path_[static_cast<size_t>(parent)];
      const uint32_t parent_native = parent == RangeTree::kNoParent ? 0 : native_[static_cast<size_t>(parent)];
      path_[i] = child(parent_path, row_key_id(e));
      // The native stack of the innermost API call of the chain that has
      // one: a driver call under a runtime call shares its call site once
      // the CUDA library frames are dropped.
      const bool has_stack = e.kind == CpuEventKind::kApiCall && e.stack != 0 && e.stack <= run_.stacks.size();
      native_[i] = has_stack ? e.stack : parent_native;
    }
  }

  uint32_t child(uint32_t parent, uint32_t row_key) {
    auto [it, added] = children_.try_emplace((uint64_t{parent} << 32) | row_key, 0);
    if (added) {
      paths_.push_back({parent, row_key});
      it->second = static_cast<uint32_t>(paths_.size() - 1);
    }
    return it->second;
  }

  // One id per row name text, looked up by (domain, name) id:
  // "ProfilerStep#1" and "#2" are both "ProfilerStep*", so every step's
  // events share their paths.
  uint32_t row_key_id(const CpuEvent& e) {
    auto [it, added] = row_key_ids_.try_emplace((uint64_t{e.domain} << 32) | e.name, 0);
    if (added) {
      std::string text = row_key(run_, e);
      auto [by_text, new_text] = row_key_by_text_.try_emplace(text, static_cast<uint32_t>(row_key_texts_.size()));
      if (new_text) row_key_texts_.push_back(std::move(text));
      it->second = by_text->second;
    }
    return it->second;
  }

  static void append(std::string& stack, std::string_view frame) {
    if (!stack.empty()) stack += ';';
    stack += folded_frame_name(frame);
  }

  std::string thread_frame(uint32_t process, uint32_t tid) const {
    std::string frame;
    if (run_.processes.size() > 1) {
      const ProcessInfo& p = run_.processes[process];
      frame = "pid " + std::to_string(p.process ? p.process->pid : process) + " ";
    }
    frame += "thread " + std::to_string(tid);
    const auto& threads = run_.processes[process].threads;
    if (auto it = threads.find(tid); it != threads.end() && !it->second.empty()) frame += " (" + it->second + ")";
    return frame;
  }

  void append_native_stack(std::string& out, const std::vector<uint32_t>& frames) {
    // Innermost first: skip the CUDA and agent frames at the leaf end.
    size_t leaf = 0;
    while (leaf < frames.size() && in_cuda_or_agent(run_.frames[frames[leaf]])) ++leaf;
    for (size_t i = frames.size(); i > leaf; --i) append(out, frame_name(frames[i - 1]));
  }

  bool in_cuda_or_agent(const Frame& f) const {
    if (f.kind != FrameKind::kNative || f.module < 0 || static_cast<size_t>(f.module) >= run_.modules.size())
      return false;
    return is_cuda_or_agent_module(run_.modules[static_cast<size_t>(f.module)].path);
  }

  const std::string& frame_name(uint32_t frame) {
    auto it = frame_names_.find(frame);
    if (it == frame_names_.end()) it = frame_names_.emplace(frame, namer_.name(run_, run_.frames[frame])).first;
    return it->second;
  }

  const Run& run_;
  const RangeTree& tree_;
  const FoldedStacksOptions& options_;
  const FrameNamer& namer_;
  std::unordered_map<uint32_t, std::string> frame_names_;
  // Per CPU event: its path (0: not resolved yet) and native stack (index
  // + 1 into Run::stacks; 0: none).
  HugeVector<uint32_t> path_;
  HugeVector<uint32_t> native_;
  std::vector<PathNode> paths_;  // [0] is the root
  std::unordered_map<uint64_t, uint32_t> children_;
  std::unordered_map<uint64_t, uint32_t> row_key_ids_;
  std::unordered_map<std::string, uint32_t> row_key_by_text_;
  std::vector<std::string> row_key_texts_;
  std::vector<size_t> pending_;
};

}  // namespace

std::optional<StackMetric> parse_stack_metric(std::string_view name) {
  if (name == "self_cpu_time_total") return StackMetric::kSelfCpu;
  if (name == "self_cuda_time_total") return StackMetric::kSelfCuda;
  return std::nullopt;
}

bool is_cuda_or_agent_module(std::string_view path) {
  const std::string_view base = base_name(path);
  for (std::string_view prefix : {"libcudart.", "libcuda.", "libcupti.", "libprof."})
    if (base.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::string folded_frame_name(std::string_view name) {
  if (name.empty()) return "[unknown]";
  std::string out(name);
  for (char& c : out)
    if (c == ';' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
  return out;
}

std::vector<FoldedStack> folded_stacks(const Run& run, const RangeTree& tree, const FoldedStacksOptions& options) {
  const ModuleOffsetFrameNamer default_namer;
  StackBuilder builder(run, tree, options, options.namer ? *options.namer : default_namer);
  std::unordered_map<StackKey, uint64_t, StackKeyHash> by_key;
  if (options.metric == StackMetric::kSelfCpu) {
    for (size_t i = 0; i < run.cpu_events.size(); ++i) {
      if (run.cpu_events[i].kind == CpuEventKind::kStartEndRange) continue;
      const uint64_t ns = tree.self_ns(i);
      if (ns > 0) by_key[builder.cpu_key(i)] += ns;
    }
  } else {
    for (const GpuActivity& g : run.gpu_activities)
      if (g.duration_ns() > 0) by_key[builder.gpu_key(g)] += g.duration_ns();
  }
  std::map<std::string, uint64_t> merged;
  for (const auto& [key, ns] : by_key) merged[builder.text(key)] += ns;
  std::vector<FoldedStack> out;
  out.reserve(merged.size());
  for (auto& [frames, ns] : merged) out.push_back(FoldedStack{frames, ns});
  return out;
}

size_t write_folded_stacks(const std::vector<FoldedStack>& stacks, std::ostream& out) {
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
