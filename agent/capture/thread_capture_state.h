#pragma once
// What the capture paths keep per thread, in one thread_local: in a shared
// library each initial-exec thread_local costs a load of its offset from the
// GOT before its %fs access, and the CUPTI callbacks read three of these on
// every call (callgrind, tiny_kernels: one block spares ~6 instructions per
// launch). The re-entry guard (reentry_guard.h), the hooks' wait for CUPTI's
// entry (hooks/hooked_call.h) and CUPTI's calls in flight (cuda_capture.cpp)
// each own their fields.
#include <cstdint>

namespace prof {

// Calls in flight on a thread that describe work (cuda_capture.cpp,
// on_api_exit): launches, and the others. Eight bytes, so that whether
// there is any is one load (nested_in_work).
struct WorkInFlight {
  uint32_t launches;
  uint32_t others;
};

struct ThreadCaptureState {
  WorkInFlight work_in_flight;
  // Times the callbacks of calls that describe work were switched off
  // (AgentState::cuda.work_callbacks_cut): the exits of such calls in flight
  // then never come, so a thread's counts from before are void.
  uint32_t work_callbacks_cuts_seen;
  // Inside the agent's own work on this thread (ReentryGuard).
  bool in_agent;
  // Whether a call the hooks record on this thread began before CUPTI
  // subscribed, so that CUPTI's entry callback for it may still come
  // (hooks_detail::cupti_sees_entry_of_awaited).
  bool call_awaits_cupti_entry;
};

[[gnu::tls_model("initial-exec")]] inline thread_local ThreadCaptureState t_capture{};

}  // namespace prof
