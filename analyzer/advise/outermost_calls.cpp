#include "advise/outermost_calls.h"

#include <algorithm>

namespace prof::analyzer {
namespace {

using Thread = OutermostCalls::key_type;

// Calls visit(per_thread[thread], index) for each API call, in table
// order. A thread's calls mostly come in a row, so the map is looked up
// only when the thread changes (a lookup per call was a third of this).
template <typename PerThread, typename Visit>
void for_each_api_call(const Run& events, PerThread& per_thread, Visit&& visit) {
  typename PerThread::mapped_type* value = nullptr;
  Thread last{};
  for (size_t i = 0; i < events.cpu_events.size(); ++i) {
    const CpuEvent& e = events.cpu_events[i];
    if (e.kind != CpuEventKind::kApiCall) continue;
    const Thread thread{e.process, e.tid};
    if (value == nullptr || thread != last) {
      value = &per_thread[thread];
      last = thread;
    }
    visit(*value, static_cast<uint32_t>(i));
  }
}

// Each thread's API calls in table order, each list allocated once at its size.
OutermostCalls calls_per_thread(const Run& events) {
  OutermostCalls all;
  {
    std::map<Thread, size_t> counts;
    for_each_api_call(events, counts, [](size_t& count, uint32_t) { ++count; });
    for (const auto& [thread, count] : counts) all[thread].reserve(count);
  }
  for_each_api_call(events, all, [](std::vector<uint32_t>& list, uint32_t i) { list.push_back(i); });
  return all;
}

// The sort's key: (start, -end).
bool starts_before(const CpuEvent& x, const CpuEvent& y) {
  return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
}

// The sort's rule as stated, on calls in its order: each kept that starts
// where the last kept one ended or later.
void keep_outermost(const EventTable<CpuEvent>& events, std::vector<uint32_t>& calls) {
  size_t outer = 0;  // calls[0, outer): the outermost ones so far
  for (uint32_t i : calls)
    if (outer == 0 || events[i].start_ns >= events[calls[outer - 1]].end_ns) calls[outer++] = i;
  calls.resize(outer);
}

// Whether `calls` rise strictly by the sort's key, (start, -end).
bool in_start_order(const EventTable<CpuEvent>& events, const std::vector<uint32_t>& calls) {
  for (size_t k = 1; k < calls.size(); ++k) {
    const CpuEvent& x = events[calls[k - 1]];
    const CpuEvent& y = events[calls[k]];
    if (!starts_before(x, y)) return false;
  }
  return true;
}

// `thread`'s API calls again, in table order, after the walk gave up on them.
std::vector<uint32_t> calls_of(const Run& events, const Thread& thread, size_t count) {
  std::vector<uint32_t> calls;
  calls.reserve(count);
  for (size_t i = 0; i < events.cpu_events.size(); ++i) {
    const CpuEvent& e = events.cpu_events[i];
    if (e.kind == CpuEventKind::kApiCall && Thread{e.process, e.tid} == thread) calls.push_back(static_cast<uint32_t>(i));
  }
  return calls;
}

}  // namespace

bool outermost_in_end_order(const EventTable<CpuEvent>& events, std::vector<uint32_t>& calls) {
  // calls[0, kept): a stack of the outermost calls so far, in start order,
  // each ending where (or before) the next starts. A call in end order
  // contains every kept one that starts at or after its start (they ended
  // by its end): those are popped, and it is kept.
  size_t kept = 0;
  uint64_t last_end = 0;
  for (size_t k = 0; k < calls.size(); ++k) {
    const uint32_t i = calls[k];
    const CpuEvent& call = events[i];
    if (call.end_ns <= call.start_ns || call.end_ns < last_end) return false;
    last_end = call.end_ns;
    for (; kept > 0 && events[calls[kept - 1]].start_ns >= call.start_ns; --kept)
      if (events[calls[kept - 1]].start_ns == call.start_ns && events[calls[kept - 1]].end_ns == call.end_ns)
        return false;
    if (kept > 0 && events[calls[kept - 1]].end_ns > call.start_ns) return false;
    calls[kept++] = i;  // k >= kept: calls[k] was read above
  }
  calls.resize(kept);
  return true;
}

OutermostCalls outermost_calls(const Run& events) {
  OutermostCalls all = calls_per_thread(events);
  for (auto& [thread, calls] : all) {
    // The sort by start was two thirds of this. Calls that come in its
    // order, no two with the same key (a bench capture's), are its answer
    // whatever sort is used; calls in the agent's end order, nested
    // properly (a real capture's), give its answer without it.
    if (in_start_order(events.cpu_events, calls)) {
      keep_outermost(events.cpu_events, calls);
    } else if (const size_t count = calls.size(); !outermost_in_end_order(events.cpu_events, calls)) {
      calls = calls_of(events, thread, count);  // the walk overwrote them
      std::sort(calls.begin(), calls.end(),
                [&](uint32_t a, uint32_t b) { return starts_before(events.cpu_events[a], events.cpu_events[b]); });
      keep_outermost(events.cpu_events, calls);
    }
    // The nested half, kept as capacity, was 7 MB beside the idle pieces.
    calls.shrink_to_fit();
  }
  return all;
}

}  // namespace prof::analyzer
