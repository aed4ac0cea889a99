#pragma once
// Parent/child links between CPU events and their self times, by
// torch.profiler's rule (profiler_util.py, _populate_cpu_children): per
// thread, push/pop ranges and API calls sorted by (start, -end); walking that
// order with a stack of open events, an open event that ends at or before
// the new one starts, or ends before the new one ends (a partial overlap),
// can no longer be a parent and is popped; the innermost remaining one is the
// parent. Start/end NVTX ranges may cross threads, so they never nest.
// A thread whose events need no sort for that answer (end_order_parents.h:
// the agent's files, properly nested, without ties) is linked in end order
// instead, without the sort's copy of its events.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "model/run.h"
#include "model/tensor_memory_usage.h"

namespace prof::analyzer {

// The parent links alone, 4 bytes per event: what the trace needs (its
// External ids and GPU annotations), without RangeTree's times.
class RangeParents {
 public:
  explicit RangeParents(const Run& run) : RangeParents(run, nullptr, 1) {}

  static constexpr int64_t kNoParent = -1;
  // A run of fewer events is linked on the calling thread alone, whatever
  // the jobs: a thread costs more to start than such a run takes to link.
  static constexpr size_t kEventsForHelpers = size_t{1} << 16;
  // Index into Run::cpu_events, or kNoParent.
  int64_t parent(size_t event) const {
    return parent_[event] == kNone ? kNoParent : static_cast<int64_t>(parent_[event]);
  }

  // Called once per thread, as soon as it is linked, with its nesting
  // events in an order that has every parent before its children (sorted by
  // (start, -end, index), or end order reversed: a depth-first order, so
  // an event's parent is always among the events still open on a walk's
  // stack): RangeTree sums its totals up the tree there, key_averages its
  // rows (cpu_group_sums.h), so no thread's order outlives its linking.
  using ThreadOrder = std::function<void(const RangeParents& links, const uint32_t* order, size_t count)>;
  // `jobs` threads link the run's threads side by side (0: one per core);
  // `each_thread` is then called on several at once, for different threads.
  RangeParents(const Run& run, const ThreadOrder& each_thread, unsigned jobs);

 private:
  friend class RangeTree;
  RangeParents() = default;
  static constexpr uint32_t kNone = UINT32_MAX;
  HugeVector<uint32_t> parent_;
};

// The per-event figures of a RangeTree, for views that read them per event
// (stacks, modules). key_averages needs only their sums per row, and adds
// them up in a walk of its own (views/cpu_group_sums.h) without these tables.
struct RangeFigures {
  HugeVector<uint64_t> self_ns;
  HugeVector<uint64_t> self_gpu_ns;
  HugeVector<uint64_t> gpu_total_ns;
  // Empty when the run has no memory records.
  HugeVector<int64_t> self_cuda_mem_bytes;
  HugeVector<int64_t> self_cpu_mem_bytes;
};

// Each CPU event's self time from the parent links alone (RangeTree::self_ns,
// 8 bytes per event): for a view that needs the links and self times but
// not the tree's GPU and memory figures (html's flame graphs).
HugeVector<uint64_t> self_times(const Run& run, const RangeParents& parents);

class RangeTree {
 public:
  // `jobs`: threads that link the run's threads side by side (0: one per
  // core); the tree is the same whatever the number.
  explicit RangeTree(const Run& run, unsigned jobs = 1) : RangeTree(run, nullptr, jobs) {}
  // The same, taking over run.launched_gpu_ns (a LoadDepth::kGpuSums load's)
  // as its self GPU times instead of copying them: 8 bytes per CPU event
  // less at the report's peak. The Run is left without them.
  static RangeTree taking_launched_gpu_ns(Run& run, unsigned jobs = 1) {
    return RangeTree(run, &run.launched_gpu_ns, jobs);
  }

  static constexpr int64_t kNoParent = RangeParents::kNoParent;
  // Index into Run::cpu_events, or kNoParent.
  int64_t parent(size_t event) const { return parents_.parent(event); }
  const RangeParents& parents() const { return parents_; }
  // total - sum of direct children's totals. Clamped at 0: only overlapping
  // siblings (impossible for one thread's push/pop ranges and calls, so a
  // sign of bad data) could make it negative.
  uint64_t self_ns(size_t event) const { return figures_.self_ns[event]; }
  // GPU time of the work this event's own API call launched.
  uint64_t self_gpu_ns(size_t event) const { return figures_.self_gpu_ns[event]; }
  // self_gpu_ns plus the children's gpu_total_ns.
  uint64_t gpu_total_ns(size_t event) const { return figures_.gpu_total_ns[event]; }
  // Bytes allocated minus bytes released. From tensor memory where the run
  // has it for that side (device: CUDA Mem, host: CPU Mem), by torch's rule
  // (tensor_memory_usage.h): the events in the event's interval, and self
  // that minus its children's. Otherwise from the segments
  // (MemoryEvents) its own API call made (linked by correlation id), and
  // with its children's.
  int64_t self_cuda_mem_bytes(size_t event) const { return memory(figures_.self_cuda_mem_bytes, event); }
  int64_t cuda_mem_bytes(size_t event) const { return memory(cuda_mem_, event); }
  int64_t self_cpu_mem_bytes(size_t event) const { return memory(figures_.self_cpu_mem_bytes, event); }
  int64_t cpu_mem_bytes(size_t event) const { return memory(cpu_mem_, event); }
  bool has_memory() const { return !cuda_mem_.empty(); }
  // Tensor memory events inside no CPU event: torch's "[memory]" row.
  const TensorMemoryOutside& tensor_memory_outside() const { return tensor_memory_outside_; }

 private:
  // The memory tables stay empty for a run without memory records: four
  // tables of zeros per event were a sixth of the report's memory.
  static int64_t memory(const HugeVector<int64_t>& table, size_t event) { return table.empty() ? 0 : table[event]; }
  // `launched_gpu_ns`: run's own, to move from; nullptr: copy run's.
  RangeTree(const Run& run, HugeVector<uint64_t>* launched_gpu_ns, unsigned jobs);

  RangeParents parents_;
  RangeFigures figures_;
  HugeVector<int64_t> cuda_mem_, cpu_mem_;
  TensorMemoryOutside tensor_memory_outside_;
};

}  // namespace prof::analyzer
