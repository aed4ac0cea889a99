#include "model/end_order_parents.h"

#include <algorithm>

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

// Runs that reach this few elements back are merged by insertion: most
// are a runtime call and the driver call in it, and std::inplace_merge
// takes and frees a buffer for each (the end order's merges were 15% of
// report's instructions, most of them in that buffer).
constexpr size_t kInsertedRun = 16;

// Merges the sorted [sorted_end, run_end) into the sorted [from,
// sorted_end) by insertion, stably as std::inplace_merge: an element moves
// only past those it strictly ends before.
void insert_run(EndsBefore ends_before, uint32_t* from, uint32_t* sorted_end, uint32_t* run_end) {
  for (uint32_t* next = sorted_end; next != run_end; ++next) {
    const uint32_t value = *next;
    uint32_t* hole = next;
    while (hole != from && ends_before(value, hole[-1])) {
      *hole = hole[-1];
      --hole;
    }
    *hole = value;
  }
}

// std::upper_bound(first, last, value), searched from `last` back with a
// step that doubles: the runs reach a few elements back, where a binary
// search over the whole sorted part took some 20 compares, each a look-up
// in the event table (a third of the merges' instructions).
uint32_t* upper_bound_from_end(EndsBefore ends_before, uint32_t* first, uint32_t* last, uint32_t value) {
  // Every element of [high, last) ends after `value`.
  uint32_t* high = last;
  for (size_t step = 1;; step *= 2) {
    if (static_cast<size_t>(high - first) <= step) return std::upper_bound(first, high, value, ends_before);
    uint32_t* probe = high - step;
    if (!ends_before(value, *probe)) return std::upper_bound(probe + 1, high, value, ends_before);
    high = probe;
  }
}

// Merges the sorted runs of `first..last` in that order. A run is merged
// into the sorted part from the first element that ends after the run's
// first: for one kind of record of one thread, written chunk after chunk
// as calls or ranges end, that is at most a few elements back (the calls
// of a file written at entry, a runtime call before the driver call in
// it, are pairs out of order), so the merges are linear. False when they
// would move more than `moves_left` (runs reaching far back, which the
// sort handles better).
bool merge_runs(EndsBefore ends_before, uint32_t* first, uint32_t* last, size_t& moves_left) {
  uint32_t* sorted_end = std::is_sorted_until(first, last, ends_before);
  while (sorted_end != last) {
    uint32_t* run_end = std::is_sorted_until(sorted_end, last, ends_before);
    uint32_t* from = upper_bound_from_end(ends_before, first, sorted_end, *sorted_end);
    const auto moved = static_cast<size_t>(run_end - from);
    if (moved > moves_left) return false;
    moves_left -= moved;
    if (moved <= kInsertedRun) insert_run(ends_before, from, sorted_end, run_end);
    else std::inplace_merge(from, sorted_end, run_end, ends_before);
    sorted_end = run_end;
  }
  return true;
}

// The thread's events in end order. A chunk holds its API calls and its
// ranges in fields of their own: each kind is put in order by itself, as
// it was written, then the two are merged once.
bool merge_by_end(const EventTable<CpuEvent>& events, uint32_t* first, uint32_t* last) {
  const EndsBefore ends_before{events};
  size_t moves_left = 4 * static_cast<size_t>(last - first) + (size_t{1} << 20);
  uint32_t* calls_end =
      std::stable_partition(first, last, [&](uint32_t i) { return events[i].kind == CpuEventKind::kApiCall; });
  if (!merge_runs(ends_before, first, calls_end, moves_left) || !merge_runs(ends_before, calls_end, last, moves_left))
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
