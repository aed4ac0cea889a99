// The simulated device's hands: the memory effects of copies and memsets, host
// functions and stream-ordered frees run on one simcuda thread at their simulated
// time, never on the thread that enqueued them (as on a GPU, an asynchronous copy
// returns before its bytes move). Tasks run in order of their due time, which
// keeps stream order and event dependencies: a dependent operation never starts
// before the one it waits for.
#pragma once

#include <cstdint>
#include <functional>

namespace simcuda {

// Runs `task` on the device thread once CLOCK_MONOTONIC reaches `due_ns`.
void run_at(uint64_t due_ns, std::function<void()> task);
// True when every task due at or before `deadline_ns` has run.
bool tasks_done_through(uint64_t deadline_ns);
// Blocks until tasks_done_through(deadline_ns).
void wait_for_tasks_through(uint64_t deadline_ns);

}  // namespace simcuda
