// The measurements behind advise's findings: usage per device, stream and
// step, kernels, memory and ranks (advise.h).
#include "advise/advise.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "advise/findings.h"
#include "advise/idle_causes.h"
#include "advise/intervals.h"
#include "advise/queue_depth.h"
#include "advise/step_ending_after.h"
#include "model/side_by_side.h"
#include "advise/model_access.h"

namespace prof::analyzer {
namespace {

// The kernels, copies and memsets of one device, stream or process, as
// intervals.
struct OpSets {
  std::vector<Interval> kernels, copies, memsets;
  uint64_t first = UINT64_MAX;
  uint64_t last = 0;

  void add(const GpuActivity& g) {
    (g.kind == GpuKind::kKernel ? kernels : g.kind == GpuKind::kMemcpy ? copies : memsets)
        .push_back({g.start_ns, g.end_ns});
    first = std::min(first, g.start_ns);
    last = std::max(last, g.end_ns);
  }
};

// Kernel, copy-only and memset-only time of `ops`, as three disjoint sets,
// and idle time within [start, end). Busy time is the three sets' sum, so no
// set of it (nor of kernels or copies) is made: with them, the sets of a
// device were three times its intervals at once (150 MB at 10M events).
// Takes the intervals over: each union is made in its parts' buffer.
struct UsageSets {
  std::vector<Interval> kernels, copies, memsets;
  explicit UsageSets(OpSets&& ops)
      : kernels(interval_union(std::move(ops.kernels))),
        copies(interval_difference(interval_union(std::move(ops.copies)), kernels)),
        memsets(interval_difference(interval_difference(interval_union(std::move(ops.memsets)), kernels), copies)) {}
  Usage within(uint64_t start, uint64_t end) const {
    Usage u;
    if (end <= start) return u;
    u.span_ns = end - start;
    u.kernel_ns = measure_within(kernels, start, end);
    u.copy_ns = measure_within(copies, start, end);
    u.memset_ns = measure_within(memsets, start, end);
    u.idle_ns = u.span_ns - (u.kernel_ns + u.copy_ns + u.memset_ns);
    return u;
  }
};

// How much work of each kind a (process, place) has: ops_on's lists are
// sized from it.
using KindCounts = std::array<size_t, 3>;  // kernels, copies, memsets

// Work per (process, place) by kind, counted in one pass over the GPU
// records (measure_devices', which finds the devices): the devices',
// streams' and steps' lists are sized from it, where each list's own
// counting pass over every record was a fourth of the devices' instructions
// (round one's longer side) and 8 M of the steps' 145 M at 1M events
// (round two's).
class PlaceCounts {
 public:
  explicit PlaceCounts(uint32_t place_count = 0) : place_count_(place_count) {}
  // Counts `g`; true where it is the first of its (process, place).
  bool add(const GpuActivity& g) {
    const size_t key = size_t{g.process} * place_count_ + g.place;
    if (key >= counts_.size()) counts_.resize(key + 1, KindCounts{});
    KindCounts& at = counts_[key];
    const bool first = at[0] + at[1] + at[2] == 0;
    ++at[g.kind == GpuKind::kKernel ? 0 : g.kind == GpuKind::kMemcpy ? 1 : 2];
    return first;
  }
  // The work of `process` on the places `places` marks, summed.
  KindCounts of(uint32_t process, const std::vector<bool>& places) const {
    KindCounts sum{};
    for (uint32_t p = 0; p < place_count_ && p < places.size(); ++p) {
      const size_t key = size_t{process} * place_count_ + p;
      if (!places[p] || key >= counts_.size()) continue;
      for (size_t k = 0; k < sum.size(); ++k) sum[k] += counts_[key][k];
    }
    return sum;
  }

 private:
  uint32_t place_count_;
  std::vector<KindCounts> counts_;  // by process * place_count + place
};

// The work of process `process` on the places `places` marks (by index into
// Run::gpu_places), in table order, into lists allocated once at their size
// `counts` (their union then needs no second buffer).
OpSets ops_on(const Run& events, uint32_t process, const std::vector<bool>& places, const KindCounts& counts) {
  OpSets ops;
  ops.kernels.reserve(counts[0]);
  ops.copies.reserve(counts[1]);
  ops.memsets.reserve(counts[2]);
  for (const GpuActivity& g : events.gpu_activities)
    if (g.process == process && places[g.place]) ops.add(g);
  return ops;
}

// The usage of `ops` over its whole span, first start to last end.
Usage whole_span_usage(OpSets&& ops) {
  const uint64_t first = ops.first, last = ops.last;
  return UsageSets(std::move(ops)).within(first, last);
}

uint64_t median(std::vector<uint64_t> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// One device or stream at a time, each a pass over the GPU records: a run
// has a handful of them, and holding every device's and every stream's
// intervals at once, with their sets, was 290 MB at 10M events.
// Leaves its count of each (process, place)'s work in `counts`.
void measure_devices(const Run& events, PlaceCounts& counts, AdviseWindow& w) {
  const uint32_t place_count = events.gpu_places.size();
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> devices;  // their streams
  counts = PlaceCounts(place_count);
  for (const GpuActivity& g : events.gpu_activities)
    if (counts.add(g)) {  // a place's records repeat it
      const GpuPlace& place = events.place(g);
      devices[{g.process, place.device_id}].insert(place.stream_id);
    }
  for (const auto& [key, streams] : devices) {
    DeviceUsage d;
    d.process = key.first;
    d.device = key.second;
    std::vector<bool> on_device(place_count);
    for (uint32_t p = 0; p < place_count; ++p) on_device[p] = events.gpu_places[p].device_id == d.device;
    d.usage = whole_span_usage(ops_on(events, d.process, on_device, counts.of(d.process, on_device)));
    for (uint32_t stream : streams) {
      std::vector<bool> on_stream(place_count);
      for (uint32_t p = 0; p < place_count; ++p)
        on_stream[p] = on_device[p] && events.gpu_places[p].stream_id == stream;
      d.streams.push_back(
          StreamUsage{stream, whole_span_usage(ops_on(events, d.process, on_stream, counts.of(d.process, on_stream)))});
    }
    w.devices.push_back(std::move(d));
  }
}

// A window's steps by (process, step index): their entries of
// AdviseWindow::steps. What is looked up comes in time order, so the step
// changes rarely: the last answer is kept and the map asked only when it does.
class StepUsageIndex {
 public:
  explicit StepUsageIndex(std::vector<StepUsage>& steps) : steps_(steps) {
    for (size_t i = 0; i < steps.size(); ++i) index_[{steps[i].process, steps[i].step}] = i;
  }
  StepUsage* find(uint32_t process, int64_t step) {
    if (looked_up_ && std::pair{process, step} == last_) return last_usage_;
    looked_up_ = true;
    last_ = {process, step};
    auto it = index_.find(last_);
    return last_usage_ = it == index_.end() ? nullptr : &steps_[it->second];
  }

 private:
  std::vector<StepUsage>& steps_;
  std::map<std::pair<uint32_t, int64_t>, size_t> index_;
  bool looked_up_ = false;
  std::pair<uint32_t, int64_t> last_{};
  StepUsage* last_usage_ = nullptr;
};

// Each step's usage, allocations, queue depth and memory: all but its idle
// causes (charge_idle_to_steps), so that it runs before the idle pieces exist.
// `every_launch`, where given, sums the depth at every launch as well (the
// launch-bound finding's figures), from the same launch queues; `counts`
// are measure_devices'.
void measure_steps(const AdviseInput& in, const PlaceCounts& counts, AdviseWindow& w,
                   QueueDepthSums* every_launch) {
  const Run& events = *in.events;
  const RunSteps& steps = *in.steps;
  // One process's sets at a time, each a pass over the GPU records.
  const std::vector<bool> every_place(events.gpu_places.size(), true);
  for (uint32_t p = 0; p < events.processes.size(); ++p) {
    if (steps.of_process(p).empty()) continue;
    const UsageSets sets(ops_on(events, p, every_place, counts.of(p, every_place)));
    for (const Step& s : steps.of_process(p)) {
      if (!in.window_steps.empty() &&
          !std::binary_search(in.window_steps.begin(), in.window_steps.end(), s.index))
        continue;
      StepUsage u;
      u.process = p;
      u.step = s.index;
      u.start_ns = s.start_ns;
      u.duration_ns = s.end_ns - s.start_ns;
      u.usage = sets.within(s.start_ns, s.end_ns);
      w.steps.push_back(u);
      w.step_time_ns += u.duration_ns;
    }
  }
  StepUsageIndex index(w.steps);
  StepLookup step_of(steps);  // each loop below asks in time order, mostly
  // Allocations and frees per step: the memory records (one per allocation,
  // where API calls would count a runtime call and its nested driver call).
  for (const MemoryEvent& m : events.memory_events) {
    if (!m.on_device) continue;
    const uint64_t t = m.called_by >= 0 ? events.cpu_events[static_cast<size_t>(m.called_by)].start_ns : m.time_ns;
    StepUsage* u = index.find(m.process, step_of.at(m.process, t));
    if (!u) continue;
    if (m.allocation) {
      ++u->allocations;
      u->allocated_bytes += m.bytes;
    } else {
      ++u->frees;
    }
  }
  // Queue depth at each launch: work launched before it less work started by then.
  std::map<StepUsage*, uint64_t> samples;
  for (const auto& [queue_process, q] : launch_queues(events)) {
    // A copy: before C++20 a lambda may not capture a structured binding
    // (clang 14, the fuzzing build, refuses it).
    const uint32_t process = queue_process;
    StepUsage* counted = nullptr;  // launches come in time order: samples is asked when the step changes
    uint64_t* count = nullptr;
    for_each_queue_depth(q, [&](uint64_t t, uint64_t depth) {
      if (every_launch) every_launch->add(depth);
      StepUsage* u = index.find(process, step_of.at(process, t));
      if (!u) return;
      if (u != counted) {
        counted = u;
        count = &samples[u];
      }
      u->mean_queue_depth += static_cast<double>(depth);
      u->max_queue_depth = std::max(u->max_queue_depth, depth);
      ++*count;
    });
  }
  for (auto& [u, n] : samples) u->mean_queue_depth /= static_cast<double>(n);
  // Device memory in use: a running sum over the whole run, its highest point per step.
  std::map<uint32_t, std::vector<const MemoryEvent*>> memory;
  for (const MemoryEvent& m : in.run->memory_events)
    if (m.on_device) memory[m.process].push_back(&m);
  for (auto& [process, list] : memory) {
    std::stable_sort(list.begin(), list.end(), [](const MemoryEvent* a, const MemoryEvent* b) { return a->time_ns < b->time_ns; });
    int64_t in_use = 0;
    for (const MemoryEvent* m : list) {
      in_use += m->signed_bytes();
      if (StepUsage* u = index.find(process, step_of.at(process, m->time_ns)))
        u->peak_memory_bytes = std::max(u->peak_memory_bytes, in_use);
    }
    // Its highest point includes what was in use when the step began.
    size_t next = 0;
    int64_t before = 0;
    for (StepUsage& u : w.steps) {
      if (u.process != process) continue;
      while (next < list.size() && list[next]->time_ns < u.start_ns) before += list[next++]->signed_bytes();
      u.peak_memory_bytes = std::max(u.peak_memory_bytes, before);
    }
  }
}

// Each idle piece is split at step boundaries, so a step is charged only
// the idle time inside it: its causes never add up to more than the step
// lasted, however long the GPU waited (a gap that starts in one step and
// ends in the next is shared between them; time between steps is no one's).
void charge_idle_to_steps(const AdviseInput& in, const IdlePieces& pieces, AdviseWindow& w) {
  const RunSteps& steps = *in.steps;
  StepUsageIndex index(w.steps);  // pieces come in time order per device
  // Pieces come per (process, device): a process's steps are asked for
  // again only when the process changes.
  std::optional<StepEndingAfter> first_step;
  const std::vector<Step>* list = nullptr;
  uint32_t process = 0;
  for (const IdlePiece& piece : pieces.pieces) {
    if (!list || pieces.process(piece) != process) {
      process = pieces.process(piece);
      list = &steps.of_process(process);
      first_step.emplace(*list);
    }
    for (auto s = first_step->at(piece.start_ns); s != list->end() && s->start_ns < piece.end_ns; ++s) {
      const uint64_t from = std::max(piece.start_ns, s->start_ns);
      const uint64_t to = std::min(piece.end_ns, s->end_ns);
      if (StepUsage* u = index.find(process, s->index); u && to > from)
        u->idle_by_cause[static_cast<size_t>(piece.cause)] += to - from;
    }
  }
}

void measure_kernels(const Run& events, AdviseWindow& w) {
  std::map<NameId, KernelTotal> totals;
  for (const GpuActivity& g : events.gpu_activities) {
    if (g.kind != GpuKind::kKernel) continue;
    KernelTotal& k = totals[g.name];
    k.name = events.name(g.name);
    ++k.count;
    k.total_ns += g.duration_ns();
    w.kernel_total_ns += g.duration_ns();
  }
  for (auto& [id, k] : totals) w.top_kernels.push_back(k);
  std::stable_sort(w.top_kernels.begin(), w.top_kernels.end(),
                   [](const KernelTotal& a, const KernelTotal& b) { return a.total_ns > b.total_ns; });
  if (w.top_kernels.size() > 10) w.top_kernels.resize(10);
}

void measure_memory(const Run& run, AdviseWindow& w) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<const MemoryEvent*>> per_device;
  for (const MemoryEvent& m : run.memory_events)
    if (m.on_device) per_device[{m.process, m.device_id}].push_back(&m);
  for (auto& [key, list] : per_device) {
    std::stable_sort(list.begin(), list.end(), [](const MemoryEvent* a, const MemoryEvent* b) { return a->time_ns < b->time_ns; });
    int64_t in_use = 0;
    int64_t peak = 0;
    for (const MemoryEvent* m : list) {
      in_use += m->signed_bytes();
      peak = std::max(peak, in_use);
    }
    MemoryPeak p{key.first, key.second, static_cast<uint64_t>(peak), 0};
    p.capacity_bytes = device_memory_bytes(run.processes[key.first], key.second);
    w.memory.push_back(p);
  }
}

void measure_ranks(const Run& events, AdviseWindow& w) {
  std::map<uint32_t, std::vector<uint64_t>> durations;
  for (const StepUsage& s : w.steps) durations[s.process].push_back(s.duration_ns);
  if (durations.size() < 2) return;
  for (auto& [process, list] : durations) {
    RankSteps r;
    r.process = process;
    const ProcessInfo& info = events.processes[process];
    r.rank = process_rank(info);
    r.steps = list.size();
    r.median_step_ns = median(list);
    uint64_t sum = 0;
    for (uint64_t d : list) sum += d;
    r.mean_step_ns = sum / list.size();
    w.ranks.push_back(r);
  }
}

}  // namespace

AdviseWindow advise_window(const AdviseInput& in) {
  AdviseWindow w;
  const Run& events = *in.events;
  const bool has_steps = in.steps && in.steps->count() > 0;
  // What does not read the idle pieces is measured before them, on two
  // cores: its lists (the devices' intervals, the steps' sets and launch
  // queues, the launch-bound finding's per-launch lists, the kernels'
  // durations per configuration; the API calls' sums per site, a pass over
  // every CPU event) are then never beside the pieces (109 MB at 10M
  // events). In two rounds, so that no two of the 60-70 MB lists (a
  // device's or a process's intervals, the steps' launch queues, the
  // per-launch lists) are ever made at once, however the cores are shared:
  // in one round their overlap depended on timing, 586-610 MB at 10M
  // events. The two sides of a round write different variables and
  // members of `w`; at 1M events the rounds' longer sides are 218 M and
  // 138 M instructions.
  OutermostCalls calls;
  LaunchFacts launches;
  std::vector<KernelSpread> spreads;
  ApiCallTotals api_calls;
  QueueDepthSums launch_depths;  // the launch-bound finding's, in round two
  PlaceCounts place_counts;      // measure_devices', for the steps' lists
  std::vector<TensorMemoryDevice> tensor_devices;
  side_by_side(
      in.jobs,
      [&] {
        calls = outermost_calls(events);  // 14 MB
        api_calls = api_call_totals(events);
      },
      [&] {
        launches = launch_facts(events);  // up to 67 MB, freed
        measure_devices(events, place_counts, w);  // up to 65 MB, freed
      });
  // The kernel and memory tables and the tensor-memory finding's devices
  // read the events only, and hold little: on round two's shorter side
  // (kernel_spreads, 50 M instructions at 1M events beside the steps' 138
  // M), not after the pieces, where they were 49 M of the serial rest.
  side_by_side(
      in.jobs,
      [&] {
        spreads = kernel_spreads(events);  // 25 MB, freed
        measure_kernels(events, w);
        measure_memory(*in.run, w);
        tensor_devices = tensor_memory(events);
      },
      [&] {
        // The launch queues (up to 52 MB, freed) are made once: the
        // launch-bound finding's depths are summed by the steps' pass, or
        // by a pass of their own where there are no steps.
        QueueDepthSums* depths = launches.launch_bound() ? &launch_depths : nullptr;
        if (has_steps)
          measure_steps(in, place_counts, w, depths);  // up to 61 MB, freed
        else if (depths)
          *depths = queue_depth_sums(events);
      });
  launches.mean_queue_depth = launch_depths.mean();
  launches.max_queue_depth = launch_depths.max_depth;
  const IdlePieces pieces = idle_pieces(events, calls);
  calls = OutermostCalls();
  for (const IdlePiece& piece : pieces.pieces)
    for (DeviceUsage& d : w.devices)
      if (d.process == pieces.process(piece) && d.device == pieces.device(piece))
        d.idle_by_cause[static_cast<size_t>(piece.cause)] += piece.end_ns - piece.start_ns;
  if (has_steps) charge_idle_to_steps(in, pieces, w);
  for (const DeviceUsage& d : w.devices) w.gpu_span_ns += d.usage.span_ns;
  measure_ranks(events, w);
  FindingInput f;
  f.input = &in;
  f.pieces = &pieces;
  f.launches = &launches;
  f.kernel_spreads = &spreads;
  f.api_calls = &api_calls;
  f.tensor_memory = &tensor_devices;
  f.step_count = w.steps.size();
  add_findings(f, w);
  return w;
}

}  // namespace prof::analyzer
