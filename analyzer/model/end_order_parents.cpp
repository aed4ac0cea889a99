#include "model/end_order_parents.h"

#include <algorithm>

#include "model/sorted_runs.h"

namespace prof::analyzer {
namespace {

// Of two that end together, the later start first: the inner of two
// nested events, which the agent writes first (though an API call and the
// range that ends with it are in different fields of a chunk). Equal
// intervals keep their order (the merges are stable), and are declined.
struct EndsBefore {
  const EventTable<CpuEvent>& events;
  bool operator()(uint32_t a, uint32_t b) const {
    if (events[a].end_ns != events[b].end_ns) return events[a].end_ns < events[b].end_ns;
    return events[a].start_ns > events[b].start_ns;
  }
};

// The thread's events in end order. A chunk holds its API calls and its
// ranges in fields of their own: each kind is put in order by itself, as
// it was written, then the two are merged once.
bool merge_by_end(const EventTable<CpuEvent>& events, uint32_t* first, uint32_t* last) {
  const EndsBefore ends_before{events};
  size_t moves_left = 4 * static_cast<size_t>(last - first) + (size_t{1} << 20);
  uint32_t* calls_end =
      std::stable_partition(first, last, [&](uint32_t i) { return events[i].kind == CpuEventKind::kApiCall; });
  // A run is merged into the sorted part from the first element that ends
  // after the run's first: for one kind of record of one thread, written
  // chunk after chunk as calls or ranges end, that is at most a few
  // elements back (the calls of a file written at entry, a runtime call
  // before the driver call in it, are pairs out of order), so the merges
  // are linear.
  if (!merge_sorted_runs(first, calls_end, ends_before, moves_left) ||
      !merge_sorted_runs(calls_end, last, ends_before, moves_left))
    return false;
  std::inplace_merge(first, calls_end, last, ends_before);
  return true;
}

}  // namespace

bool parents_in_end_order(const EventTable<CpuEvent>& events, uint32_t* thread_events, size_t count, uint32_t* parent,
                          std::vector<uint32_t>& roots) {
  if (!merge_by_end(events, thread_events, thread_events + count)) return false;
  // The events seen so far that have no parent yet, disjoint and in time
  // order. Each new event ends at or after all of them: those starting at
  // or after its start are inside it, and it is the first to contain them.
  roots.clear();
  for (size_t k = 0; k < count; ++k) {
    const uint32_t i = thread_events[k];
    const CpuEvent& event = events[i];
    if (event.start_ns >= event.end_ns) return false;
    while (!roots.empty()) {
      const CpuEvent& root = events[roots.back()];
      if (root.start_ns < event.start_ns) break;
      if (root.start_ns == event.start_ns && root.end_ns == event.end_ns) return false;
      parent[roots.back()] = i;
      roots.pop_back();
    }
    // What is left started before it: it must have ended by its start.
    if (!roots.empty() && events[roots.back()].end_ns > event.start_ns) return false;
    roots.push_back(i);
  }
  return true;
}

}  // namespace prof::analyzer
