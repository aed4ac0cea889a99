#include "advise/idle_causes.h"

#include <algorithm>
#include <map>
#include <utility>

#include "advise/intervals.h"
#include "model/sorted_runs.h"

namespace prof::analyzer {
namespace {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

using CallList = OutermostCalls::mapped_type;

class DeviceGaps {
 public:
  DeviceGaps(const Run& events, const OutermostCalls& calls, std::vector<IdlePiece>& out)
      : events_(events), calls_(calls), out_(out) {}

  void add(uint32_t place, std::vector<uint32_t> ops) {
    place_ = place;
    sort_by_start(ops);
    // Copy waits: each copy or memset's time with no kernel running (and
    // not already charged to an earlier one), charged to its call. The
    // copies come in start order, and each asks from where the last one's
    // charge ended, so the kernels' union is merged as it is read: made
    // whole beside the pieces, it was 51 MB of advise's peak at 10M events.
    size_t next_kernel = 0;
    UnionReader kernel_set([&](Interval& part) {
      for (; next_kernel < ops.size(); ++next_kernel) {
        const GpuActivity& g = events_.gpu_activities[ops[next_kernel]];
        if (g.kind != GpuKind::kKernel) continue;
        part = {g.start_ns, g.end_ns};
        ++next_kernel;
        return true;
      }
      return false;
    });
    uint64_t charged_until = 0;
    for (size_t i : ops) {
      const GpuActivity& g = events_.gpu_activities[i];
      if (g.kind == GpuKind::kKernel) continue;
      const uint64_t from = std::max(g.start_ns, charged_until);
      if (from >= g.end_ns) continue;
      charged_until = g.end_ns;
      kernel_set.difference(from, g.end_ns, [&](uint64_t start, uint64_t end) {
        emit(start, end, IdleCause::kCopyWait, g.launched_by, static_cast<int64_t>(i));
      });
    }

    // Gaps with nothing running: why the next work had not started. The
    // work comes in start order, so the time it keeps the device busy is
    // merged as it is read, and a gap is found where the next work starts
    // after all before it ended (no list of the busy time is made).
    gaps_begin_ = out_.size();
    size_t next = 0;
    bool busy = false;
    uint64_t busy_until = 0;
    for (size_t i : ops) {
      const GpuActivity& g = events_.gpu_activities[i];
      if (g.end_ns <= g.start_ns) continue;  // no time: keeps nothing busy
      if (busy && g.start_ns > busy_until) {
        // The work that ended the gap: the first, in start order, to start then.
        while (events_.gpu_activities[ops[next]].start_ns < g.start_ns) ++next;
        explain_gap(busy_until, g.start_ns, ops[next]);
      }
      busy_until = busy ? std::max(busy_until, g.end_ns) : g.end_ns;
      busy = true;
    }
  }
  // Where add()'s gap pieces began in the output, after its copy waits.
  size_t gaps_begin() const { return gaps_begin_; }

 private:
  // The work in start order. Sorted as (start, index) pairs compared by
  // start alone, rather than indices compared through the table (a cache
  // miss per comparison, 5% of advise's instructions): std::sort makes the
  // same moves on the same comparisons, so equal starts keep the order the
  // indices had. The work comes per GPU place, each place's in start order,
  // so its rising runs are merged first, read from the pairs into `ops`
  // through a heap of one cursor per run: where no two starts are equal
  // that is the sort's answer (the sort was two fifths of the idle pieces);
  // where some are, the sort decides their order, and is made as before on
  // the pairs, which the merge left as they were. No buffer beyond the
  // pairs (16 bytes a record, freed before any piece of this device is
  // made): an in-place merge's, up to half the pairs, raised advise's peak
  // by 21 MB at 10M events.
  void sort_by_start(std::vector<uint32_t>& ops) const {
    struct Keyed {
      uint64_t start_ns;
      uint32_t index;
    };
    std::vector<Keyed> keyed(ops.size());
    for (size_t k = 0; k < ops.size(); ++k) keyed[k] = {events_.gpu_activities[ops[k]].start_ns, ops[k]};
    if (!merge_rising_runs_into(keyed, ops)) {
      std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.start_ns < b.start_ns; });
      for (size_t k = 0; k < ops.size(); ++k) ops[k] = keyed[k].index;
    }
  }

  void emit(uint64_t start, uint64_t end, IdleCause cause, int64_t site, int64_t work) {
    if (end > start)
      out_.push_back(IdlePiece{start, end, place_, static_cast<int32_t>(site), static_cast<int32_t>(work), cause});
  }

  static IdleCause blocking_cause(CallKind kind) {
    switch (kind) {
      case CallKind::kSync:
      case CallKind::kBlockingCopy:
        return IdleCause::kSync;
      case CallKind::kAllocation:
        return IdleCause::kAllocation;
      default:
        return IdleCause::kCount;  // not a blocking call
    }
  }

  void explain_gap(uint64_t a, uint64_t b, size_t work_index) {
    const GpuActivity& work = events_.gpu_activities[work_index];
    const auto work_id = static_cast<int64_t>(work_index);
    if (work.launched_by < 0) return emit(a, b, IdleCause::kUnattributed, -1, work_id);
    const CpuEvent& launch = events_.cpu_events[static_cast<size_t>(work.launched_by)];
    if (launch.start_ns <= a) return emit(a, b, IdleCause::kQueued, work.launched_by, work_id);
    auto found = calls_.find({launch.process, launch.tid});
    static const CallList kNone;
    const CallList& calls = found == calls_.end() ? kNone : found->second;
    // The first outermost call that ends after the GPU ran dry.
    auto it = std::lower_bound(calls.begin(), calls.end(), a,
                               [&](uint32_t c, uint64_t t) { return events_.cpu_events[c].end_ns <= t; });
    if (it != calls.end()) {
      const CpuEvent& call = events_.cpu_events[*it];
      const IdleCause blocked = blocking_cause(call_kind(events_.name(call.name)));
      if (call.start_ns <= a && blocked != IdleCause::kCount)
        return emit(a, b, blocked, static_cast<int64_t>(*it), work_id);
    }
    // Nothing queued: the thread was in CUDA calls or outside them.
    uint64_t t = a;
    for (; it != calls.end() && events_.cpu_events[*it].start_ns < b; ++it) {
      const CpuEvent& call = events_.cpu_events[*it];
      const uint64_t from = std::max(a, call.start_ns);
      const uint64_t to = std::min(b, call.end_ns);
      outside(t, from, launch.start_ns, work.launched_by, work_id);
      IdleCause cause = IdleCause::kOtherCalls;
      const CallKind kind = call_kind(events_.name(call.name));
      if (kind == CallKind::kLaunch) cause = IdleCause::kLaunchOverhead;
      if (kind == CallKind::kAllocation) cause = IdleCause::kAllocation;
      emit(from, to, cause, static_cast<int64_t>(*it), work_id);
      t = std::max(t, to);
    }
    outside(t, b, launch.start_ns, work.launched_by, work_id);
  }

  // Time outside CUDA calls: host work before the launch, queued after it.
  void outside(uint64_t from, uint64_t to, uint64_t launch_start, int64_t launch, int64_t work) {
    if (to <= from) return;
    emit(from, std::min(to, launch_start), IdleCause::kHostWork, launch, work);
    emit(std::max(from, launch_start), to, IdleCause::kQueued, launch, work);
  }

  const Run& events_;
  const OutermostCalls& calls_;
  std::vector<IdlePiece>& out_;
  uint32_t place_ = 0;
  size_t gaps_begin_ = 0;
};

// A device's pieces in time order, stably (equal starts keep their order).
// add() emits two runs that each come in time order, its copy waits and
// then its gaps: merged, they need a buffer of the shorter run only, where
// a stable sort of all pieces took half their size again.
void order_by_start(std::vector<IdlePiece>& pieces, size_t begin, size_t middle) {
  auto by_start = [](const IdlePiece& x, const IdlePiece& y) { return x.start_ns < y.start_ns; };
  const auto first = pieces.begin() + static_cast<std::ptrdiff_t>(begin);
  const auto second = pieces.begin() + static_cast<std::ptrdiff_t>(middle);
  if (std::is_sorted(first, second, by_start) && std::is_sorted(second, pieces.end(), by_start))
    std::inplace_merge(first, second, pieces.end(), by_start);
  else
    std::stable_sort(first, pieces.end(), by_start);
}

}  // namespace

CallKind call_kind(std::string_view name) {
  if (contains(name, "Launch")) return CallKind::kLaunch;
  if (contains(name, "Synchronize")) return CallKind::kSync;
  if (contains(name, "Async")) return CallKind::kOther;  // stream-ordered: never blocks
  if (contains(name, "emcpy")) return CallKind::kBlockingCopy;
  if (contains(name, "Malloc") || contains(name, "Free") || contains(name, "MemAlloc") ||
      contains(name, "HostAlloc"))
    return CallKind::kAllocation;
  return CallKind::kOther;
}

IdlePieces idle_pieces(const Run& events, const OutermostCalls& calls) {
  // Each device's work, counted first so that each list is allocated once
  // at its size: grown by doubling, they held twice their 13 MB at 10M
  // events. A place's records mostly come together, so the maps are looked
  // up only when the place changes.
  using DeviceKey = std::pair<uint32_t, uint32_t>;  // (process, device)
  auto for_each_place_run = [&](auto&& visit) {  // visit(key, records of one place in a row)
    size_t begin = 0;
    for (size_t i = 1; i <= events.gpu_activities.size(); ++i) {
      const GpuActivity& first = events.gpu_activities[begin];
      if (i < events.gpu_activities.size() && events.gpu_activities[i].process == first.process &&
          events.gpu_activities[i].place == first.place)
        continue;
      visit(DeviceKey{first.process, events.place(first).device_id}, begin, i);
      begin = i;
    }
  };
  std::map<DeviceKey, std::vector<uint32_t>> devices;
  if (!events.gpu_activities.empty()) {
    std::map<DeviceKey, size_t> counts;
    for_each_place_run([&](const DeviceKey& key, size_t begin, size_t end) { counts[key] += end - begin; });
    for (const auto& [key, count] : counts) devices[key].reserve(count);
    for_each_place_run([&](const DeviceKey& key, size_t begin, size_t end) {
      std::vector<uint32_t>& list = devices[key];
      for (size_t i = begin; i < end; ++i) list.push_back(static_cast<uint32_t>(i));
    });
  }
  // Room for two pieces per operation reserved up front (more grows the
  // vector as before): the pages past the last piece are never touched, so
  // they cost address space only, where growing by doubling held the old
  // and the new buffer resident together while one was copied into the
  // other (at 10M events 33 MB of advise's peak).
  IdlePieces out;
  out.pieces.reserve(2 * events.gpu_activities.size());
  DeviceGaps gaps(events, calls, out.pieces);
  // Devices come in (process, device) order, so ordering each one's pieces
  // by start orders them all by (process, device, start).
  for (auto& [key, ops] : devices) {
    const size_t begin = out.pieces.size();
    gaps.add(static_cast<uint32_t>(out.places.size()), std::move(ops));
    out.places.push_back(IdlePlace{key.first, key.second});
    order_by_start(out.pieces, begin, gaps.gaps_begin());
  }
  return out;
}

const char* idle_cause_key(IdleCause cause) {
  switch (cause) {
    case IdleCause::kCopyWait: return "copy_wait";
    case IdleCause::kSync: return "sync_wait";
    case IdleCause::kAllocation: return "allocation";
    case IdleCause::kLaunchOverhead: return "launch_overhead";
    case IdleCause::kOtherCalls: return "other_calls";
    case IdleCause::kHostWork: return "host_work";
    case IdleCause::kQueued: return "queued";
    default: return "unattributed";
  }
}

}  // namespace prof::analyzer
