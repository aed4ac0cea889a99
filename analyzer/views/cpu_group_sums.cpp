#include "views/cpu_group_sums.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "model/range_tree.h"
#include "model/torch_ranges.h"

namespace prof::analyzer {
namespace {

bool is_runtime(const CpuEvent& e) { return e.kind == CpuEventKind::kApiCall && e.api_domain() != ApiDomain::kDriver; }
bool is_driver(const CpuEvent& e) { return e.kind == CpuEventKind::kApiCall && e.api_domain() == ApiDomain::kDriver; }

// What the walk reads per name, made once before it (the walkers share it,
// read only): a range's row id (its row text: tail parsed off, counter
// merged and, grouping by shape, its sizes; a range name per call of an op
// under torch 2.x's op_ids still makes one row) and whether a range of
// that name owns the GPU work launched inside it.
struct NameFacts {
  std::vector<uint32_t> range_row;
  std::vector<bool> owns_gpu_work;  // a torch operator or record_function scope
  bool any_operator = false;
};

NameFacts name_facts(const Run& run, bool by_shape) {
  const TorchRanges torch(run);
  NameFacts facts;
  facts.any_operator = torch.any_operator();
  facts.range_row.resize(run.name_count());
  facts.owns_gpu_work.resize(run.name_count());
  std::unordered_map<std::string, uint32_t> row_of_text;
  for (NameId name = 0; name < run.name_count(); ++name) {
    const TorchRange& r = torch.of(name);
    std::string text = merged_counter_name(r.name);
    if (by_shape) text += '\0' + r.sizes.value_or("");
    facts.range_row[name] = row_of_text.try_emplace(std::move(text), static_cast<uint32_t>(row_of_text.size())).first->second;
    facts.owns_gpu_work[name] = r.kind == TorchRangeKind::kOperator || r.kind == TorchRangeKind::kAnnotation;
  }
  return facts;
}

// Per event, what the walk starts from: the GPU time its own call launched
// and, for a side without tensor memory, the memory segments its call made;
// for a side with tensor memory, the bytes within its interval (its total).
class EventInputs {
 public:
  EventInputs(const Run& run, TensorMemoryUsage& tensors) : run_(run), tensors_(tensors) {
    const size_t n = run.cpu_events.size();
    // A LoadDepth::kGpuSums load's launched_gpu_ns is read where it is;
    // GPU records (every other load) are summed per call into a table.
    for (const GpuActivity& g : run.gpu_activities) {
      if (g.launched_by < 0) continue;
      if (activity_gpu_ns_.empty()) activity_gpu_ns_.assign(n, 0);
      activity_gpu_ns_[static_cast<size_t>(g.launched_by)] += g.duration_ns();
    }
    for (const MemoryEvent& m : run.memory_events) {
      if (m.called_by < 0 || (m.on_device ? tensors.device : tensors.host)) continue;
      HugeVector<int64_t>& segments = m.on_device ? device_segments_ : host_segments_;
      if (segments.empty()) segments.assign(n, 0);
      segments[static_cast<size_t>(m.called_by)] += m.signed_bytes();
    }
  }

  uint64_t launched_gpu_ns(size_t i) const {
    return (i < run_.launched_gpu_ns.size() ? run_.launched_gpu_ns[i] : 0) +
           (activity_gpu_ns_.empty() ? 0 : activity_gpu_ns_[i]);
  }
  // Any memory figure at all: without, the walk leaves them out.
  bool any_memory() const {
    return tensors_.device || tensors_.host || !device_segments_.empty() || !host_segments_.empty();
  }
  bool device_totals_known() const { return tensors_.device; }
  bool host_totals_known() const { return tensors_.host; }
  // Known totals (tensor memory) or own segments, by the side's rule.
  int64_t device_bytes(size_t i) const {
    if (tensors_.device) return tensors_.device_bytes[i];
    return device_segments_.empty() ? 0 : device_segments_[i];
  }
  int64_t host_bytes(size_t i) const {
    if (tensors_.host) return tensors_.host_bytes[i];
    return host_segments_.empty() ? 0 : host_segments_[i];
  }

 private:
  const Run& run_;
  const TensorMemoryUsage& tensors_;
  HugeVector<uint64_t> activity_gpu_ns_;
  HugeVector<int64_t> device_segments_, host_segments_;
};

constexpr size_t kNoOwner = SIZE_MAX;

// An event on the walk's stack: what its children have added so far.
struct OpenEvent {
  uint32_t index = 0;
  uint64_t launched_gpu_ns = 0;  // by its own call
  bool runtime_call = false;     // a driver call inside is folded into it
  // Stack position of the innermost event at or above this one that owns
  // GPU work (kNoOwner: none): where an API call's GPU time moves.
  size_t owner = kNoOwner;
  uint64_t children_ns = 0;     // the direct children's durations
  uint64_t gpu_total_ns = 0;    // its own launched time and the children's totals
  uint64_t folded_cpu_ns = 0;   // folded driver calls' self times
  uint64_t folded_gpu_ns = 0;   // and the GPU work they launched
  uint64_t received_gpu_ns = 0; // moved here from API calls below (an owner)
  uint64_t passed_gpu_ns = 0;   // moved from API calls below to an owner above it
  int64_t children_device_bytes = 0, children_host_bytes = 0;  // their totals
  int64_t folded_device_bytes = 0, folded_host_bytes = 0;      // folded calls' self
};

// Sums of one run thread's events, walked in its depth-first order.
class ThreadWalk {
 public:
  ThreadWalk(const Run& run, const GroupOptions& options, const NameFacts& names, const EventInputs& inputs)
      : run_(run), options_(options), names_(names), inputs_(inputs), memory_(inputs.any_memory()) {}

  void walk(const RangeParents& links, const uint32_t* order, size_t count) {
    for (size_t k = 0; k < count; ++k) {
      const uint32_t i = order[k];
      const int64_t parent = links.parent(i);
      // The stack is the chain of i's ancestors once what is not among
      // them (subtrees now complete) is popped.
      while (!open_.empty() && static_cast<int64_t>(open_.back().index) != parent) pop();
      open(i);
    }
    while (!open_.empty()) pop();
  }

  // An event outside every thread's nesting (a start/end range): no parent,
  // no children.
  void alone(uint32_t i) {
    open(i);
    pop();
  }

  std::vector<CpuGroup>& groups() { return groups_; }

 private:
  void open(uint32_t i) {
    const CpuEvent& e = run_.cpu_events[i];
    OpenEvent event;
    event.index = i;
    event.launched_gpu_ns = inputs_.launched_gpu_ns(i);
    event.gpu_total_ns = event.launched_gpu_ns;
    const bool owns = e.kind == CpuEventKind::kPushPopRange && e.nvtx_domain() == Run::kNoName && names_.owns_gpu_work[e.name];
    event.owner = owns ? open_.size() : open_.empty() ? kNoOwner : open_.back().owner;
    event.runtime_call = is_runtime(e);
    open_.push_back(event);
  }

  // Its subtree complete: its figures into its parent's and its group's.
  void pop() {
    // Read in place, and popped last: the event is a tenth of a cache line
    // of fields its children filled in.
    const OpenEvent& event = open_.back();
    const size_t parent_at = open_.size() - 2;  // SIZE_MAX when it has none
    OpenEvent* parent = open_.size() > 1 ? &open_[parent_at] : nullptr;
    const CpuEvent& e = run_.cpu_events[event.index];
    const uint64_t duration = e.duration_ns();
    // Clamped at 0: only overlapping siblings (bad data) exceed it.
    const uint64_t self_ns = event.children_ns > duration ? 0 : duration - event.children_ns;
    // Memory: a side with tensor memory knows each total (self is what
    // the children's totals leave); a side of segments knows each self
    // (the total adds the children's). All 0 in a run without memory.
    int64_t device_total = 0, device_self = 0, host_total = 0, host_self = 0;
    if (memory_) {
      device_total = device_self = inputs_.device_bytes(event.index);
      if (inputs_.device_totals_known()) device_self -= event.children_device_bytes;
      else device_total += event.children_device_bytes;
      host_total = host_self = inputs_.host_bytes(event.index);
      if (inputs_.host_totals_known()) host_self -= event.children_host_bytes;
      else host_total += event.children_host_bytes;
    }
    if (parent) {
      parent->children_ns += duration;
      parent->gpu_total_ns += event.gpu_total_ns;
      parent->children_device_bytes += device_total;
      parent->children_host_bytes += host_total;
    }

    const bool hidden = options_.fold_driver_calls && parent && parent->runtime_call && is_driver(e);
    uint64_t self_gpu_ns = event.launched_gpu_ns + event.folded_gpu_ns + event.received_gpu_ns;
    uint64_t gpu_total_ns = event.gpu_total_ns;
    // What is moved from below to an owner above passes through: an API
    // call's total no longer holds it, a range's does.
    uint64_t passed = event.passed_gpu_ns;
    if (e.kind == CpuEventKind::kApiCall) gpu_total_ns -= passed;
    if (names_.any_operator && !hidden && e.kind == CpuEventKind::kApiCall && self_gpu_ns > 0 && parent &&
        parent->owner != kNoOwner) {
      open_[parent->owner].received_gpu_ns += self_gpu_ns;
      gpu_total_ns -= self_gpu_ns;
      passed += self_gpu_ns;
      self_gpu_ns = 0;
    }
    if (parent && passed > 0 && parent->owner != parent_at) parent->passed_gpu_ns += passed;

    if (hidden) {
      // Its self time was taken out of the runtime call's: put back, with
      // its GPU work and memory. Its GPU total is in the runtime call's already.
      parent->folded_cpu_ns += self_ns + event.folded_cpu_ns;
      parent->folded_gpu_ns += self_gpu_ns;
      parent->folded_device_bytes += device_self + event.folded_device_bytes;
      parent->folded_host_bytes += host_self + event.folded_host_bytes;
      open_.pop_back();
      return;
    }
    CpuGroup& g = group_of(e);
    const RowOccurrence first{e.start_ns, e.process, false, event.index};
    if (first < g.first) {
      g.first = first;
      g.top_level = parent == nullptr;
    }
    g.lowest_index = std::min<size_t>(g.lowest_index, event.index);
    KeyAverage& row = g.sums;
    ++row.count;
    row.cpu_total_ns += duration;
    row.self_cpu_ns += self_ns + event.folded_cpu_ns;
    row.cuda_total_ns += gpu_total_ns;
    row.self_cuda_ns += self_gpu_ns;
    if (memory_) {
      row.cpu_mem_bytes += host_total;
      row.self_cpu_mem_bytes += host_self + event.folded_host_bytes;
      row.cuda_mem_bytes += device_total;
      row.self_cuda_mem_bytes += device_self + event.folded_device_bytes;
    }
    open_.pop_back();
  }

  CpuGroup& group_of(const CpuEvent& e) {
    const bool by_stack = options_.by_stack_frames > 0;
    const bool range = e.kind != CpuEventKind::kApiCall;
    const GroupKey key{range ? 2u : 0u, range ? names_.range_row[e.name] : e.name, e.nvtx_domain(),
                       range || !options_.by_input_shape ? Run::kNoName : e.input_shape, by_stack ? e.stack : 0};
    // A thread repeats a few groups over and over (a launch, the driver
    // call in it, the range around them): a small table of recent keys
    // answers most events without the map's hash and node.
    CachedGroup& cached = cache_[(key.name * 0x9E3779B1u + key.shape * 31u + key.is_gpu) % kCachedGroups];
    if (cached.group != kNoGroup && cached.key == key) return groups_[cached.group];
    auto [it, added] = group_of_.try_emplace(key, groups_.size());
    if (added) {
      groups_.emplace_back();
      groups_.back().key = key;
    }
    cached = {key, it->second};
    return groups_[it->second];
  }

  static constexpr size_t kCachedGroups = 64;
  static constexpr size_t kNoGroup = SIZE_MAX;
  struct CachedGroup {
    GroupKey key{};
    size_t group = kNoGroup;
  };

  const Run& run_;
  const GroupOptions& options_;
  const NameFacts& names_;
  const EventInputs& inputs_;
  const bool memory_;
  std::vector<OpenEvent> open_;
  std::array<CachedGroup, kCachedGroups> cache_{};
  std::vector<CpuGroup> groups_;
  std::unordered_map<GroupKey, size_t, GroupKeyHash> group_of_;
};

// The groups of every walk, merged by key: sums added, the earliest event
// and lowest index kept. Each is a sum or a minimum, so the order the walks
// end in does not matter.
class MergedGroups {
 public:
  void add(std::vector<CpuGroup>& groups) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (CpuGroup& g : groups) {
      auto [it, added] = group_of_.try_emplace(g.key, groups_.size());
      if (added) {
        groups_.push_back(std::move(g));
        continue;
      }
      CpuGroup& into = groups_[it->second];
      if (g.first < into.first) {
        into.first = g.first;
        into.top_level = g.top_level;
      }
      into.lowest_index = std::min(into.lowest_index, g.lowest_index);
      into.sums.add_sums(g.sums);
    }
  }

  std::vector<CpuGroup> take() && {
    std::sort(groups_.begin(), groups_.end(),
              [](const CpuGroup& a, const CpuGroup& b) { return a.lowest_index < b.lowest_index; });
    return std::move(groups_);
  }

 private:
  std::mutex mutex_;
  std::vector<CpuGroup> groups_;
  std::unordered_map<GroupKey, size_t, GroupKeyHash> group_of_;
};

}  // namespace

CpuGroupSums cpu_group_sums(const Run& run, const GroupOptions& options, unsigned jobs,
                            std::optional<RangeParents>* keep_links) {
  CpuGroupSums out;
  const NameFacts names = name_facts(run, options.by_input_shape);
  TensorMemoryUsage tensors = tensor_memory_usage(run);
  out.tensor_memory_outside = tensors.outside;
  const EventInputs inputs(run, tensors);
  MergedGroups merged;
  {
    // Each thread walked as soon as it is linked, on the worker that linked
    // it; the links themselves (4 bytes per event) go once every walk is
    // done, unless the caller keeps them.
    RangeParents links(run, [&](const RangeParents& parents, const uint32_t* order, size_t count) {
      ThreadWalk walk(run, options, names, inputs);
      walk.walk(parents, order, count);
      merged.add(walk.groups());
    }, jobs);
    if (keep_links) keep_links->emplace(std::move(links));
  }
  // Start/end ranges may cross threads and never nest: each is a tree of one.
  ThreadWalk alone(run, options, names, inputs);
  for (size_t i = 0; i < run.cpu_events.size(); ++i)
    if (run.cpu_events[i].kind == CpuEventKind::kStartEndRange) alone.alone(static_cast<uint32_t>(i));
  merged.add(alone.groups());
  out.groups = std::move(merged).take();
  return out;
}

}  // namespace prof::analyzer
