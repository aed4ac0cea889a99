#pragma once
// Each thread's outermost API calls: a launch is often two calls (the
// runtime's, and the driver call nested in it), which share the outer one's
// interval and blame (idle_causes.h).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "model/event_table.h"
#include "model/run.h"

namespace prof::analyzer {

// Per thread, (process, tid), its outermost API calls in start order: those
// kept by sorting its calls by (start, -end) and keeping each that starts
// where the last kept one ended or later. 4 bytes a call (an index into
// cpu_events), as GpuActivity::launched_by.
using OutermostCalls = std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>>;
OutermostCalls outermost_calls(const Run& events);

// One thread's outermost calls taken from its calls in end order, the
// order the agent writes them in, without the sort: `calls` (indices into
// `events`, in table order) become the outermost ones in start order, the
// sort's answer, and true is returned. That is the sort's answer only where
// ties and overlaps cannot matter, so the walk checks as it goes and gives
// up (false, `calls` left overwritten) on the first call that
//  - ends before the one before it (not end order);
//  - has no length (at another's end the sort keeps it, inside it not);
//  - has the interval of an outermost one so far (the sort's order decides);
//  - overlaps an outermost one so far without containing it.
bool outermost_in_end_order(const EventTable<CpuEvent>& events, std::vector<uint32_t>& calls);

}  // namespace prof::analyzer
