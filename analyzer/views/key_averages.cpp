#include "views/key_averages.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace prof::analyzer {

std::string row_key(const Run& run, const CpuEvent& event) {
  if (event.kind == CpuEventKind::kApiCall) return run.name(event.name);
  std::string name = merged_counter_name(parse_torch_range(run.name(event.name)).name);
  if (event.nvtx_domain() == Run::kNoName) return name;
  return run.name(event.nvtx_domain()) + ":" + name;
}

namespace {

// The row of the tensor memory no CPU event holds, named as torch names it
// (profiler_util.py's MEMORY_EVENT_NAME).
constexpr uint32_t kMemoryRow = 3;
constexpr const char* kMemoryRowName = "[memory]";

// Events with equal ids: names, domain, input shape, stack. Grouping by
// these integers first, and making the row's text key once per group,
// replaces a string key and a map lookup per event.
struct GroupKey {
  uint32_t is_gpu;  // 0: an API call, 1: GPU work, 2: a range (name is a RangeRowIds id), kMemoryRow
  NameId name;
  NameId domain;
  NameId shape;
  uint32_t stack;
  bool operator==(const GroupKey&) const = default;
};
struct GroupKeyHash {
  size_t operator()(const GroupKey& k) const {
    uint64_t hash = 1469598103934665603ull;  // FNV-1a over the words
    for (uint32_t word : {k.is_gpu, k.name, k.domain, k.shape, k.stack}) hash = (hash ^ word) * 1099511628211ull;
    return hash;
  }
};

// One group's sums, and its first event (which names its row's top-level
// flag: for GPU work, held here, as its first event may be a sum's).
struct Group {
  GroupKey key{};
  RowOccurrence first;
  bool gpu_top_level = true;
  KeyAverage sums;
};

// What each CPU event counts in the table, when that differs from the
// RangeTree's figures: folded driver calls and GPU work moved to operators.
// The tree's own figures, adjusted in place.
struct EventFigures {
  HugeVector<uint64_t>& self_cpu_ns;
  HugeVector<uint64_t>& self_gpu_ns;
  HugeVector<uint64_t>& gpu_total_ns;
  // Empty when the run has no memory records.
  HugeVector<int64_t>& self_cuda_mem_bytes;
  HugeVector<int64_t>& self_cpu_mem_bytes;
  std::vector<bool> hidden;  // folded into its runtime call: no row
};

bool is_runtime(const CpuEvent& e) { return e.kind == CpuEventKind::kApiCall && e.api_domain() != ApiDomain::kDriver; }
bool is_driver(const CpuEvent& e) { return e.kind == CpuEventKind::kApiCall && e.api_domain() == ApiDomain::kDriver; }

EventFigures event_figures(const Run& run, const RangeTree& tree, RangeFigures& figures, const GroupOptions& options) {
  const size_t n = run.cpu_events.size();
  EventFigures f{figures.self_ns, figures.self_gpu_ns, figures.gpu_total_ns, figures.self_cuda_mem_bytes,
                 figures.self_cpu_mem_bytes, std::vector<bool>(n, false)};
  auto parent_of = [&](size_t i) { return tree.parent(i); };
  if (options.fold_driver_calls) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t p = parent_of(i);
      if (p == RangeTree::kNoParent || !is_driver(run.cpu_events[i]) || !is_runtime(run.cpu_events[static_cast<size_t>(p)]))
        continue;
      f.hidden[i] = true;
      // Its self time was taken out of the runtime call's: put it back.
      // Its GPU total is in the runtime call's already.
      f.self_cpu_ns[static_cast<size_t>(p)] += f.self_cpu_ns[i];
      f.self_gpu_ns[static_cast<size_t>(p)] += f.self_gpu_ns[i];
      if (!f.self_cuda_mem_bytes.empty()) {
        f.self_cuda_mem_bytes[static_cast<size_t>(p)] += f.self_cuda_mem_bytes[i];
        f.self_cpu_mem_bytes[static_cast<size_t>(p)] += f.self_cpu_mem_bytes[i];
      }
    }
  }
  const TorchRanges torch(run);
  if (!torch.any_operator()) return f;
  auto owns_gpu_work = [&](const CpuEvent& e) {
    if (e.kind != CpuEventKind::kPushPopRange || e.nvtx_domain() != Run::kNoName) return false;
    const TorchRangeKind kind = torch.of(e.name).kind;
    return kind == TorchRangeKind::kOperator || kind == TorchRangeKind::kAnnotation;
  };
  for (size_t i = 0; i < n; ++i) {
    const uint64_t moved = f.self_gpu_ns[i];
    if (moved == 0 || f.hidden[i] || run.cpu_events[i].kind != CpuEventKind::kApiCall) continue;
    int64_t owner = parent_of(i);
    while (owner != RangeTree::kNoParent && !owns_gpu_work(run.cpu_events[static_cast<size_t>(owner)]))
      owner = parent_of(static_cast<size_t>(owner));
    if (owner == RangeTree::kNoParent) continue;
    f.self_gpu_ns[static_cast<size_t>(owner)] += moved;
    f.self_gpu_ns[i] = 0;
    // The calls between hold it in their totals (a driver call's runtime
    // call, with --driver-calls); the ranges between keep it: it ran inside them.
    for (int64_t p = static_cast<int64_t>(i); p != owner; p = parent_of(static_cast<size_t>(p)))
      if (run.cpu_events[static_cast<size_t>(p)].kind == CpuEventKind::kApiCall) f.gpu_total_ns[static_cast<size_t>(p)] -= moved;
  }
  return f;
}

// One id per distinct row of a range name: its row text (tail parsed off,
// counter merged) and, grouping by shape, its sizes. Made once per NameId.
class RangeRowIds {
 public:
  RangeRowIds(const Run& run, bool by_shape) : run_(run), by_shape_(by_shape), ids_(run.name_count(), kUnknown) {}
  uint32_t id(NameId name) {
    uint32_t& id = ids_[name];
    if (id == kUnknown) {
      const TorchRange r = parse_torch_range(run_.name(name));
      std::string key = merged_counter_name(r.name);
      if (by_shape_) key += '\0' + r.sizes.value_or("");
      id = by_text_.try_emplace(std::move(key), static_cast<uint32_t>(by_text_.size())).first->second;
    }
    return id;
  }

 private:
  static constexpr uint32_t kUnknown = UINT32_MAX;
  const Run& run_;
  bool by_shape_;
  std::vector<uint32_t> ids_;
  std::unordered_map<std::string, uint32_t> by_text_;
};

// The Input Shapes text of a CPU event: torch's sizes for its ranges, the
// launch or transfer for API calls.
std::string input_shape_of(const Run& run, const CpuEvent& e) {
  if (e.kind == CpuEventKind::kApiCall) return run.name(e.input_shape);
  return parse_torch_range(run.name(e.name)).sizes.value_or("");
}

}  // namespace

namespace {

// The rows of `run` from the tree's figures, which it adjusts (see
// EventFigures), added to `rows` with every process numbered from
// `first_process`.
void add_averages(const Run& run, const RangeTree& tree, RangeFigures figures_of_tree, const GroupOptions& options,
                  uint32_t first_process, KeyAverageRows& rows) {
  std::vector<Group> groups;
  std::unordered_map<GroupKey, size_t, GroupKeyHash> group_of;
  auto group_for = [&](const GroupKey& key) -> Group& {
    auto [it, added] = group_of.try_emplace(key, groups.size());
    if (added) {
      groups.emplace_back();
      groups.back().key = key;
    }
    return groups[it->second];
  };
  const bool by_stack = options.by_stack_frames > 0;
  const EventFigures figures = event_figures(run, tree, figures_of_tree, options);
  RangeRowIds range_rows(run, options.by_input_shape);
  for (size_t i = 0; i < run.cpu_events.size(); ++i) {
    const CpuEvent& e = run.cpu_events[i];
    if (figures.hidden[i]) continue;
    // A range's name counts by its row text: torch 2.x gives every call of
    // an op its own op_id, so its names are as many as its calls.
    const bool range = e.kind != CpuEventKind::kApiCall;
    const NameId name = range ? range_rows.id(e.name) : e.name;
    Group& g = group_for({range ? 2u : 0u, name, e.nvtx_domain(), range || !options.by_input_shape ? Run::kNoName : e.input_shape,
                          by_stack ? e.stack : 0});
    const RowOccurrence o{e.start_ns, e.process, false, i};
    if (o < g.first) g.first = o;
    KeyAverage& row = g.sums;
    ++row.count;
    row.cpu_total_ns += e.duration_ns();
    row.self_cpu_ns += figures.self_cpu_ns[i];
    row.cuda_total_ns += figures.gpu_total_ns[i];
    row.self_cuda_ns += figures.self_gpu_ns[i];
    if (!figures.self_cuda_mem_bytes.empty()) {
      row.cpu_mem_bytes += tree.cpu_mem_bytes(i);
      row.self_cpu_mem_bytes += figures.self_cpu_mem_bytes[i];
      row.cuda_mem_bytes += tree.cuda_mem_bytes(i);
      row.self_cuda_mem_bytes += figures.self_cuda_mem_bytes[i];
    }
  }
  // torch's "[memory]" row: the tensor memory events no CPU event holds.
  const TensorMemoryOutside& outside = tree.tensor_memory_outside();
  if (outside.events > 0) {
    Group& g = group_for({kMemoryRow, 0, Run::kNoName, Run::kNoName, 0});
    g.first = {outside.first_ns, outside.first_process, false, 0};
    g.sums.count = outside.events;
    g.sums.cuda_mem_bytes = g.sums.self_cuda_mem_bytes = outside.device_bytes;
    g.sums.cpu_mem_bytes = g.sums.self_cpu_mem_bytes = outside.host_bytes;
  }
  for (size_t i = 0; i < run.gpu_activities.size(); ++i) {
    const GpuActivity& a = run.gpu_activities[i];
    Group& g = group_for({1, a.name, Run::kNoName, options.by_input_shape ? a.input_shape : Run::kNoName, 0});
    const RowOccurrence o{a.start_ns, a.process, true, i};
    if (o < g.first) {
      g.first = o;
      g.gpu_top_level = a.launched_by < 0;
    }
    ++g.sums.count;
    g.sums.cuda_total_ns += a.duration_ns();
    g.sums.self_cuda_ns += a.duration_ns();
  }
  // The same from a load that summed the GPU records as it read them
  // (LoadDepth::kGpuSums). Its first_index orders a process's records as
  // the index above does, and only breaks ties within one process.
  for (const GpuWorkSum& sum : run.gpu_work_sums) {
    Group& g = group_for({1, sum.name, Run::kNoName, options.by_input_shape ? sum.input_shape : Run::kNoName, 0});
    const RowOccurrence o{sum.first_start_ns, sum.process, true, sum.first_index};
    if (o < g.first) {
      g.first = o;
      g.gpu_top_level = sum.first_top_level;
    }
    g.sums.count += sum.count;
    g.sums.cuda_total_ns += sum.total_ns;
    g.sums.self_cuda_ns += sum.total_ns;
  }

  // Frame names are computed once per stack, not once per group.
  std::map<uint32_t, std::vector<std::string>> stack_names;
  auto frames_of = [&](uint32_t stack) -> const std::vector<std::string>& {
    auto [it, inserted] = stack_names.try_emplace(stack);
    if (inserted && stack != 0 && options.frame_namer) {
      const auto& frames = run.stacks[stack - 1];
      // A stack with Python frames is grouped by its innermost Python frames
      // alone, as torch's with_stack records them (mixed stacks also hold the
      // interpreter's and the extensions' native frames).
      const bool python = std::any_of(frames.begin(), frames.end(), [&](uint32_t f) {
        return run.frames[f].kind == FrameKind::kPython;
      });
      const size_t limit = static_cast<size_t>(options.by_stack_frames);
      for (size_t i = 0; i < frames.size() && it->second.size() < limit; ++i) {
        const Frame& frame = run.frames[frames[i]];
        if (python && frame.kind != FrameKind::kPython) continue;
        it->second.push_back(options.frame_namer->name(run, frame));
      }
    }
    return it->second;
  };

  // Groups whose text is equal make one row ("ProfilerStep#1" and "#2" both
  // read "ProfilerStep*"; two stacks may name the same frames).
  static const std::vector<std::string> kNoStack;
  for (const Group& g : groups) {
    std::string key;
    std::string shape;
    const std::vector<std::string>* stack = &kNoStack;
    bool top_level = true;
    const bool is_gpu = g.key.is_gpu == 1;
    if (g.key.is_gpu == kMemoryRow) {
      key = kMemoryRowName;
    } else if (is_gpu) {
      key = run.name(g.key.name);
      if (options.by_input_shape) shape = run.name(g.key.shape);
      top_level = g.gpu_top_level;
    } else {
      const CpuEvent& e = run.cpu_events[g.first.index];
      key = row_key(run, e);
      if (options.by_input_shape) shape = input_shape_of(run, e);
      if (by_stack) stack = &frames_of(e.stack);
      top_level = tree.parent(g.first.index) == RangeTree::kNoParent;
    }
    RowOccurrence first = g.first;
    first.process += first_process;
    rows.add(is_gpu, std::move(key), std::move(shape), *stack, first, top_level, g.sums);
  }
}

}  // namespace

void KeyAverageRows::add(bool is_gpu, std::string key, std::string shape, const std::vector<std::string>& stack,
                         const RowOccurrence& first, bool top_level, const KeyAverage& sums) {
  auto [it, inserted] = row_of_.try_emplace({is_gpu, key, shape, stack}, rows_.size());
  if (inserted) {
    rows_.emplace_back();
    KeyAverage& row = rows_.back().average;
    row.key = std::move(key);
    row.is_gpu = is_gpu;
    row.input_shapes = std::move(shape);
    row.stack = stack;
  }
  Row& row = rows_[it->second];
  if (first < row.first) {
    row.first = first;
    row.top_level = top_level;
  }
  KeyAverage& sum = row.average;
  sum.count += sums.count;
  sum.cpu_total_ns += sums.cpu_total_ns;
  sum.self_cpu_ns += sums.self_cpu_ns;
  sum.cuda_total_ns += sums.cuda_total_ns;
  sum.self_cuda_ns += sums.self_cuda_ns;
  sum.cpu_mem_bytes += sums.cpu_mem_bytes;
  sum.self_cpu_mem_bytes += sums.self_cpu_mem_bytes;
  sum.cuda_mem_bytes += sums.cuda_mem_bytes;
  sum.self_cuda_mem_bytes += sums.self_cuda_mem_bytes;
}

void KeyAverageRows::add_run(const Run& run, RangeTree&& tree, const GroupOptions& options, uint32_t first_process) {
  RangeFigures figures = tree.release_figures();
  add_averages(run, tree, std::move(figures), options, first_process, *this);
}

std::vector<KeyAverage> KeyAverageRows::take() && {
  std::sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.first < b.first; });
  std::vector<KeyAverage> out;
  out.reserve(rows_.size());
  for (Row& row : rows_) {
    row.average.top_level = row.top_level;
    out.push_back(std::move(row.average));
  }
  rows_ = {};
  row_of_ = {};
  return out;
}

std::vector<KeyAverage> key_averages(const Run& run, const RangeTree& tree, const GroupOptions& options) {
  RangeFigures figures = tree.figures();
  KeyAverageRows rows;
  add_averages(run, tree, std::move(figures), options, 0, rows);
  return std::move(rows).take();
}

std::vector<KeyAverage> key_averages(const Run& run, RangeTree&& tree, const GroupOptions& options) {
  KeyAverageRows rows;
  rows.add_run(run, std::move(tree), options, 0);
  return std::move(rows).take();
}

}  // namespace prof::analyzer
