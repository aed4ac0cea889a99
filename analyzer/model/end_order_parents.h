#pragma once
// One thread's parent links by torch's rule (range_tree.h) without sorting
// its events by start: the agent writes a call or a push/pop range when it
// ends, so a thread's events come in end order, each field of a chunk a
// sorted run, and the parent of an event in a properly nested family is the
// first later event that contains it, found with a stack of the subtrees
// still without a parent. That is torch's answer only where ties and
// overlaps cannot matter; the walk checks for them as it goes and gives up
// (false) on the first, and the caller sorts as before. What it checks:
//  - every event has a positive length (a zero-length event at the end of
//    another is no child of it by torch's rule, at its start it is);
//  - no two events have the same interval (file order decides then);
//  - every two events are nested or disjoint (no partial overlap).
// The sort behind range_tree.h's rule costs a 24-byte (start, end, index)
// copy per event of the longest thread; this costs nothing beyond the
// caller's index array and a stack as deep as the widest level.
#include <cstdint>
#include <vector>

#include "model/event_table.h"
#include "model/run.h"

namespace prof::analyzer {

// `thread_events`: indices into `events` of one thread's nesting events,
// in any order (file order is the cheap one). On true, they are in end
// order, the later start first on a tie (children before their parent), and parent[i] holds each one's
// parent index or is left as it was for those without one. On false,
// `thread_events` is permuted and some of parent[] written: the caller
// resets them. `roots` is scratch space, kept by the caller across threads.
bool parents_in_end_order(const EventTable<CpuEvent>& events, uint32_t* thread_events, size_t count, uint32_t* parent,
                          std::vector<uint32_t>& roots);

}  // namespace prof::analyzer
