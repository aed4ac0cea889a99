#include "views/folded_stacks.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

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
using StackKey = std::array<uint32_t, 5>;
struct StackKeyHash {
  size_t operator()(const StackKey& key) const {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a over the words
    for (uint32_t word : key) hash = (hash ^ word) * 1099511628211ull;
    return hash;
  }
};

// A direct-mapped table of recent look-ups in front of a map: a thread's
// events repeat a few call sites, names and nestings over and over, so
// most find their answer here, without the map's hash modulo and node
// (three map look-ups per event were most of resolving the trie).
template <typename Key, typename Value, typename Hash, size_t kSlots>
class RecentLookups {
 public:
  const Value* find(const Key& key) const {
    const Slot& slot = slots_[Hash{}(key) % kSlots];
    return slot.used && slot.key == key ? &slot.value : nullptr;
  }
  void remember(const Key& key, const Value& value) { slots_[Hash{}(key) % kSlots] = {key, value, true}; }

 private:
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
  };
  std::array<Slot, kSlots> slots_{};
};

// Where a push/pop range sits among the frames of a call stack: after the
// first `length` frames (root first) of stack `stack` (index + 1 into
// Run::stacks; 0: none).
struct Placement {
  uint32_t stack = 0;
  uint32_t length = 0;
};

class StackBuilder {
 public:
  StackBuilder(const Run& run, const RangeParents& parents, const FoldedStacksOptions& options, const FrameNamer& namer)
      : run_(run), parents_(parents), options_(options), namer_(namer), node_(run.cpu_events.size(), kUnresolved),
        placed_(run.cpu_events.size()), nodes_(1) {
    place_ranges();
  }

  // Every CPU event's trie node, then the placements freed: they are read
  // only while nodes are made, and a fold's self times (8 bytes per event,
  // as they are) come after them rather than beside them. The nodes are
  // the same in any order of resolving: an event's follows from its
  // ancestors', resolved first.
  void resolve_all() {
    for (size_t i = 0; i < run_.cpu_events.size(); ++i) resolve(i);
    HugeVector<Placement>().swap(placed_);
  }

  // The stack down to and including CPU event `index`: its thread (with
  // per_thread) and its trie node of frames and enclosing ranges and calls.
  StackKey cpu_key(size_t index) {
    resolve(index);
    const CpuEvent& e = run_.cpu_events[index];
    return {kCpu, options_.per_thread ? uint32_t{e.process} : 0, options_.per_thread ? e.tid : 0, node_[index], 0};
  }

  // Without threads at the root a CPU event's key is its trie node alone:
  // cpu_key(i) == cpu_node_key(cpu_key(i)[3]).
  bool per_thread() const { return options_.per_thread; }
  static StackKey cpu_node_key(uint32_t node) { return {kCpu, 0, 0, node, 0}; }

  StackKey gpu_key(const GpuActivity& g) {
    if (g.launched_by >= 0 && static_cast<size_t>(g.launched_by) < run_.cpu_events.size()) {
      StackKey key = cpu_key(static_cast<size_t>(g.launched_by));
      key[0] = kLaunchedGpu;
      key[4] = g.name;
      return key;
    }
    if (options_.per_thread) return {kGpuByStream, run_.place(g).device_id, run_.place(g).stream_id, 0, g.name};
    return {kGpu, 0, 0, 0, g.name};
  }

  std::string text(const StackKey& key) {
    std::string out;
    if (key[0] == kGpuByStream) append(out, "GPU " + std::to_string(key[1]) + " stream " + std::to_string(key[2]));
    if (key[0] == kCpu || key[0] == kLaunchedGpu) {
      if (options_.per_thread) append(out, thread_frame(key[1], key[2]));
      std::vector<uint64_t> tokens;
      for (uint32_t n = key[3]; n != 0; n = nodes_[n].parent) tokens.push_back(nodes_[n].token);
      for (auto it = tokens.rbegin(); it != tokens.rend(); ++it)
        append(out, (*it & kRowKeyToken) ? row_key_texts_[static_cast<uint32_t>(*it)] : frame_name(static_cast<uint32_t>(*it)));
    }
    if (key[0] != kCpu) append(out, run_.name(key[4]));
    return out;
  }

 private:
  enum Leaf : uint32_t { kCpu, kLaunchedGpu, kGpuByStream, kGpu };
  static constexpr uint32_t kUnresolved = UINT32_MAX;
  // A trie token is a frame index, or a row name id with this bit.
  static constexpr uint64_t kRowKeyToken = uint64_t{1} << 32;

  // A node of the trie of stacks: its last token (a frame or a range or
  // call's row name) and the node before it (0: the root, no token).
  struct Node {
    uint32_t parent = 0;
    uint64_t token = 0;
  };

  // Frames of stack `stack` (1-based) the folded stack shows: all but the
  // CUDA and agent frames at the leaf end.
  // Once per stack, not once per call: a module path test per leaf frame.
  uint32_t shown_length(uint32_t stack) {
    if (shown_lengths_.size() < stack) shown_lengths_.resize(stack, kUnresolved);
    uint32_t& shown = shown_lengths_[stack - 1];
    if (shown == kUnresolved) {
      const std::vector<uint32_t>& frames = run_.stacks[stack - 1];
      size_t leaf = 0;
      while (leaf < frames.size() && in_cuda_or_agent(run_.frames[frames[leaf]])) ++leaf;
      shown = static_cast<uint32_t>(frames.size() - leaf);
    }
    return shown;
  }
  // Frame `k` from the root of stack `stack` (1-based).
  uint32_t root_frame(uint32_t stack, uint32_t k) const {
    const std::vector<uint32_t>& frames = run_.stacks[stack - 1];
    return frames[frames.size() - 1 - k];
  }
  bool has_stack(const CpuEvent& e) const {
    return e.kind == CpuEventKind::kApiCall && e.stack != 0 && e.stack <= run_.stacks.size();
  }

  // A range records no call stack of its own (NvtxRange has none), so it is
  // placed where the calls made inside it agree: after the longest run of
  // root frames every one of their stacks shares. That is the frame that
  // opened it or one below it, never above; a range with no call inside
  // sits where its parent does. Outermost ranges of one row name (every
  // ProfilerStep#N) take the place all their calls agree on, so that the
  // steps merge into one frame; nested ones (an operator called from two
  // places) keep their own.
  void place_ranges() {
    place_each_range();
    std::unordered_map<uint32_t, Placement> by_row_key;
    const auto& events = run_.cpu_events;
    auto outermost = [&](size_t i) { return placed_[i].stack != 0 && parents_.parent(i) == RangeParents::kNoParent; };
    for (size_t i = 0; i < events.size(); ++i) {
      if (!outermost(i)) continue;
      auto [it, added] = by_row_key.try_emplace(row_key_id(events[i]), placed_[i]);
      if (!added) it->second.length = common_length(it->second, placed_[i]);
    }
    for (size_t i = 0; i < events.size(); ++i) {
      if (outermost(i)) placed_[i] = by_row_key[row_key_id(events[i])];
      // A range opened around one launch agrees with it on every frame,
      // the launch's own stub frames too; it was opened above them.
      Placement& at = placed_[i];
      while (at.length > 0 && is_launch_stub(root_frame(at.stack, at.length - 1))) --at.length;
    }
  }

  // The host side of a kernel launch, which nvcc generates and the runtime's
  // header inlines: the host function named as the kernel, its
  // __device_stub__ and __wrapper__device_stub_ functions, and the
  // cudaLaunchKernel<...> template.
  bool is_launch_stub(uint32_t frame) {
    if (!kernel_names_known_) {
      for (const GpuActivity& g : run_.gpu_activities)
        if (g.kind == GpuKind::kKernel) kernel_names_.insert(run_.name(g.name));
      for (const GpuWorkSum& sum : run_.gpu_work_sums)  // a LoadDepth::kGpuSums Run's
        if (sum.kind == GpuKind::kKernel) kernel_names_.insert(run_.name(sum.name));
    }
    kernel_names_known_ = true;
    const std::string& name = frame_name(frame);
    for (std::string_view prefix : {"__device_stub__", "__wrapper__device_stub_", "cudaLaunchKernel<", "cudaLaunchKernel("})
      if (name.compare(0, prefix.size(), prefix) == 0) return true;
    return kernel_names_.count(name) != 0;
  }

  // Frames compare by the name they show, not their address: the calls
  // inside a range come from different lines of the function that opened
  // it, and that function is where the range belongs.
  uint32_t common_length(const Placement& a, const Placement& b) {
    uint32_t common = 0;
    while (common < a.length && common < b.length && same_frame(root_frame(a.stack, common), root_frame(b.stack, common)))
      ++common;
    return common;
  }
  bool same_frame(uint32_t a, uint32_t b) { return a == b || frame_name(a) == frame_name(b); }

  void place_each_range() {
    const auto& events = run_.cpu_events;
    for (size_t i = 0; i < events.size(); ++i) {
      if (!has_stack(events[i])) continue;
      const uint32_t stack = events[i].stack;
      const uint32_t length = shown_length(stack);
      for (int64_t p = parents_.parent(i); p != RangeParents::kNoParent; p = parents_.parent(static_cast<size_t>(p))) {
        Placement& at = placed_[static_cast<size_t>(p)];
        if (events[static_cast<size_t>(p)].kind != CpuEventKind::kPushPopRange || at.stack == stack) continue;
        if (at.stack == 0) {
          at = {stack, length};
          continue;
        }
        at.length = common_length(at, {stack, length});
      }
    }
  }

  // Fills node_ (and placed_ for calls) for `index` and any of its
  // ancestors not done yet, outermost first, since each extends its
  // parent's.
  void resolve(size_t index) {
    pending_.clear();
    for (int64_t i = static_cast<int64_t>(index); i != RangeParents::kNoParent && node_[static_cast<size_t>(i)] == kUnresolved;
         i = parents_.parent(static_cast<size_t>(i)))
      pending_.push_back(static_cast<size_t>(i));
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      const size_t i = *it;
      const CpuEvent& e = run_.cpu_events[i];
      const int64_t parent = parents_.parent(i);
      uint32_t node = parent == RangeParents::kNoParent ? 0 : node_[static_cast<size_t>(parent)];
      const Placement base = parent == RangeParents::kNoParent ? Placement{} : placed_[static_cast<size_t>(parent)];
      // Where this event goes: a range where place_ranges put it; a call
      // at the end of its own stack's shown frames, unless it is made inside
      // another call (a driver call in a runtime call: the same call site).
      Placement target = base;
      if (e.kind == CpuEventKind::kPushPopRange && placed_[i].stack != 0) target = placed_[i];
      const bool inside_call = parent != RangeParents::kNoParent && run_.cpu_events[static_cast<size_t>(parent)].kind == CpuEventKind::kApiCall;
      if (has_stack(e) && !inside_call) target = {e.stack, shown_length(e.stack)};
      if (target.length < base.length) target = base;  // never above its parent
      if (target.stack != 0 && base.length < target.length) node = descend(node, target, base.length);
      placed_[i] = target;
      node_[i] = child(node, kRowKeyToken | row_key_id(e));
    }
  }

  // The node after frames [from, target.length) of target's stack below
  // `node`. Remembered per (node, stack, from): millions of calls repeat a
  // few call sites, each a walk of several frames. A hit is the node the
  // walk would reach, and the walk made every node on the way, in order.
  uint32_t descend(uint32_t node, const Placement& target, uint32_t from) {
    const std::array<uint32_t, 4> key{node, target.stack, from, target.length};
    if (const uint32_t* recent = recent_descents_.find(key)) return *recent;
    auto [it, added] = descents_.try_emplace(key, 0);
    if (added) {
      for (uint32_t k = from; k < target.length; ++k) node = child(node, root_frame(target.stack, k));
      it->second = node;
    }
    recent_descents_.remember(key, it->second);
    return it->second;
  }

  uint32_t child(uint32_t parent, uint64_t token) {
    const std::pair<uint32_t, uint64_t> key{parent, token};
    if (const uint32_t* recent = recent_children_.find(key)) return *recent;
    auto [it, added] = children_.try_emplace(key, 0);
    if (added) {
      nodes_.push_back({parent, token});
      it->second = static_cast<uint32_t>(nodes_.size() - 1);
    }
    recent_children_.remember(key, it->second);
    return it->second;
  }

  // One id per row name text, looked up by (domain, name) id:
  // "ProfilerStep#1" and "#2" are both "ProfilerStep*", so every step's
  // events share their paths.
  uint32_t row_key_id(const CpuEvent& e) {
    const uint64_t key = (uint64_t{e.nvtx_domain()} << 32) | e.name;
    if (const uint32_t* recent = recent_row_key_ids_.find(key)) return *recent;
    auto [it, added] = row_key_ids_.try_emplace(key, 0);
    if (added) {
      std::string text = row_key(run_, e);
      auto [by_text, new_text] = row_key_by_text_.try_emplace(text, static_cast<uint32_t>(row_key_texts_.size()));
      if (new_text) row_key_texts_.push_back(std::move(text));
      it->second = by_text->second;
    }
    recent_row_key_ids_.remember(key, it->second);
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

  struct ChildKeyHash {
    size_t operator()(const std::pair<uint32_t, uint64_t>& k) const {
      return std::hash<uint64_t>{}(k.second * 1099511628211ull ^ k.first);
    }
  };

  struct DescentHash {
    size_t operator()(const std::array<uint32_t, 4>& key) const {
      uint64_t hash = 1469598103934665603ull;  // FNV-1a over the words
      for (uint32_t word : key) hash = (hash ^ word) * 1099511628211ull;
      return hash;
    }
  };

  const Run& run_;
  const RangeParents& parents_;
  const FoldedStacksOptions& options_;
  const FrameNamer& namer_;
  std::unordered_map<uint32_t, std::string> frame_names_;
  // Per CPU event: its trie node (kUnresolved: not yet), and where it sits
  // among the frames.
  HugeVector<uint32_t> node_;
  HugeVector<Placement> placed_;
  std::vector<Node> nodes_;  // [0] is the root
  std::unordered_map<std::pair<uint32_t, uint64_t>, uint32_t, ChildKeyHash> children_;
  std::unordered_map<std::array<uint32_t, 4>, uint32_t, DescentHash> descents_;
  // The maps' recent answers (RecentLookups): sizes a few times the call
  // sites and names a step repeats.
  RecentLookups<std::pair<uint32_t, uint64_t>, uint32_t, ChildKeyHash, 1024> recent_children_;
  RecentLookups<std::array<uint32_t, 4>, uint32_t, DescentHash, 256> recent_descents_;
  RecentLookups<uint64_t, uint32_t, std::hash<uint64_t>, 256> recent_row_key_ids_;
  std::vector<uint32_t> shown_lengths_;  // by stack index; kUnresolved: not yet
  std::unordered_map<uint64_t, uint32_t> row_key_ids_;
  std::unordered_map<std::string, uint32_t> row_key_by_text_;
  std::vector<std::string> row_key_texts_;
  std::vector<size_t> pending_;
  std::unordered_set<std::string> kernel_names_;
  bool kernel_names_known_ = false;
};

}  // namespace

std::optional<StackMetric> parse_stack_metric(std::string_view name) {
  if (name == "self_cpu_time_total") return StackMetric::kSelfCpu;
  if (name == "self_cuda_time_total") return StackMetric::kSelfCuda;
  return std::nullopt;
}

bool NaturalLess::operator()(std::string_view a, std::string_view b) const {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      // Compare the numbers by value: skip leading zeros, then the longer
      // run of digits is the larger, then digit by digit.
      size_t ai = i, bj = j;
      while (ai < a.size() && a[ai] == '0') ++ai;
      while (bj < b.size() && b[bj] == '0') ++bj;
      size_t ae = ai, be = bj;
      while (ae < a.size() && digit(a[ae])) ++ae;
      while (be < b.size() && digit(b[be])) ++be;
      if (ae - ai != be - bj) return ae - ai < be - bj;
      const int order = a.substr(ai, ae - ai).compare(b.substr(bj, be - bj));
      if (order != 0) return order < 0;
      if (ae - i != be - j) return ae - i < be - j;  // fewer leading zeros first
      i = ae;
      j = be;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
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

namespace {

// `self_ns(i)`: CPU event i's self time, read for kSelfCpu only.
template <typename SelfNs>
std::vector<FoldedStack> fold(const Run& run, const SelfNs& self_ns, StackBuilder& builder, StackMetric metric) {
  std::unordered_map<StackKey, uint64_t, StackKeyHash> by_key;
  if (metric == StackMetric::kSelfCpu && !builder.per_thread()) {
    // Summed in a table by trie node (a few thousand), not hashed per event.
    std::vector<uint64_t> by_node;
    for (size_t i = 0; i < run.cpu_events.size(); ++i) {
      if (run.cpu_events[i].kind == CpuEventKind::kStartEndRange) continue;
      const uint64_t ns = self_ns(i);
      if (ns == 0) continue;
      const uint32_t node = builder.cpu_key(i)[3];
      if (node >= by_node.size()) by_node.resize(node + 1, 0);
      by_node[node] += ns;
    }
    for (uint32_t node = 0; node < by_node.size(); ++node)
      if (by_node[node] > 0) by_key.emplace(StackBuilder::cpu_node_key(node), by_node[node]);
  } else if (metric == StackMetric::kSelfCpu) {
    for (size_t i = 0; i < run.cpu_events.size(); ++i) {
      if (run.cpu_events[i].kind == CpuEventKind::kStartEndRange) continue;
      const uint64_t ns = self_ns(i);
      if (ns > 0) by_key[builder.cpu_key(i)] += ns;
    }
  } else {
    for (const GpuActivity& g : run.gpu_activities)
      if (g.duration_ns() > 0) by_key[builder.gpu_key(g)] += g.duration_ns();
  }
  std::map<std::string, uint64_t, NaturalLess> merged;
  for (const auto& [key, ns] : by_key) merged[builder.text(key)] += ns;
  std::vector<FoldedStack> out;
  out.reserve(merged.size());
  for (auto& [frames, ns] : merged) out.push_back(FoldedStack{frames, ns});
  return out;
}

}  // namespace

std::vector<FoldedStack> folded_stacks(const Run& run, const RangeTree& tree, const FoldedStacksOptions& options) {
  const ModuleOffsetFrameNamer default_namer;
  StackBuilder builder(run, tree.parents(), options, options.namer ? *options.namer : default_namer);
  builder.resolve_all();
  return fold(run, [&](size_t i) { return tree.self_ns(i); }, builder, options.metric);
}

std::vector<std::vector<FoldedStack>> folded_stacks_of_metrics(const Run& run, const RangeParents& parents,
                                                               const FoldedStacksOptions& options,
                                                               const std::vector<StackMetric>& metrics) {
  const ModuleOffsetFrameNamer default_namer;
  StackBuilder builder(run, parents, options, options.namer ? *options.namer : default_namer);
  builder.resolve_all();
  HugeVector<uint64_t> self_ns;  // made once, where a metric first needs it
  std::vector<std::vector<FoldedStack>> out;
  for (StackMetric metric : metrics) {
    if (metric == StackMetric::kSelfCpu && self_ns.empty()) self_ns = self_times(run, parents);
    out.push_back(fold(run, [&](size_t i) { return self_ns[i]; }, builder, metric));
  }
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
