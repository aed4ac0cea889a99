#pragma once
// Every hook starts with a ReentryGuard: if the agent's own work calls back
// into a hooked function on the same thread, the inner call is passed through
// unrecorded instead of recursing.
#include "capture/thread_capture_state.h"

namespace prof {

class ReentryGuard {
 public:
  ReentryGuard() : entered_(!t_capture.in_agent) { t_capture.in_agent = true; }
  ~ReentryGuard() {
    if (entered_) t_capture.in_agent = false;
  }
  ReentryGuard(const ReentryGuard&) = delete;
  ReentryGuard& operator=(const ReentryGuard&) = delete;

  // False when this thread is already inside the agent.
  explicit operator bool() const { return entered_; }

  // Whether this thread is inside the agent now (the hooks pass the agent's
  // own CUDA calls through unrecorded).
  static bool inside_agent() { return t_capture.in_agent; }

 private:
  bool entered_;
};

}  // namespace prof
