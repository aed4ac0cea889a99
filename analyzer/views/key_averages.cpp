#include "views/key_averages.h"

#include "views/cpu_group_sums.h"

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

// One group of GPU work or the "[memory]" row: its sums, and its first
// record (which names its row's top-level flag, held here, as its first
// record may be a sum's).
struct Group {
  GroupKey key{};
  RowOccurrence first;
  bool top_level = true;
  KeyAverage sums;
};

// The Input Shapes text of a CPU event: torch's sizes for its ranges, the
// launch or transfer for API calls.
std::string input_shape_of(const Run& run, const CpuEvent& e) {
  if (e.kind == CpuEventKind::kApiCall) return run.name(e.input_shape);
  return parse_torch_range(run.name(e.name)).sizes.value_or("");
}

// The rows of `run` added to `rows` with every process numbered from
// `first_process`: the CPU events' groups from their walk
// (cpu_group_sums.h), in the order an index walk meets them, then the
// "[memory]" row and the GPU work's.
void add_averages(const Run& run, const GroupOptions& options, unsigned jobs, uint32_t first_process,
                  KeyAverageRows& rows, std::optional<RangeParents>* keep_links) {
  CpuGroupSums cpu = cpu_group_sums(run, options, jobs, keep_links);
  std::vector<Group> groups;
  groups.reserve(cpu.groups.size());
  for (CpuGroup& g : cpu.groups) groups.push_back({g.key, g.first, g.top_level, std::move(g.sums)});
  cpu.groups = {};
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
  // torch's "[memory]" row: the tensor memory events no CPU event holds.
  const TensorMemoryOutside& outside = cpu.tensor_memory_outside;
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
      g.top_level = a.launched_by < 0;
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
      g.top_level = sum.first_top_level;
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
    const bool is_gpu = g.key.is_gpu == 1;
    if (g.key.is_gpu == kMemoryRow) {
      key = kMemoryRowName;
    } else if (is_gpu) {
      key = run.name(g.key.name);
      if (options.by_input_shape) shape = run.name(g.key.shape);
    } else {
      const CpuEvent& e = run.cpu_events[g.first.index];
      key = row_key(run, e);
      if (options.by_input_shape) shape = input_shape_of(run, e);
      if (by_stack) stack = &frames_of(e.stack);
    }
    RowOccurrence first = g.first;
    first.process += first_process;
    rows.add(is_gpu, std::move(key), std::move(shape), *stack, first, g.top_level, g.sums);
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
  row.average.add_sums(sums);
}

void KeyAverageRows::add_run(const Run& run, const GroupOptions& options, uint32_t first_process, unsigned jobs,
                             std::optional<RangeParents>* keep_links) {
  add_averages(run, options, jobs, first_process, *this, keep_links);
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

std::vector<KeyAverage> key_averages(const Run& run, const GroupOptions& options, unsigned jobs,
                                     std::optional<RangeParents>* keep_links) {
  KeyAverageRows rows;
  rows.add_run(run, options, 0, jobs, keep_links);
  return std::move(rows).take();
}

}  // namespace prof::analyzer
