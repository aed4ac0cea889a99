#include "capture/capture_range.h"

#include <mutex>

#include "agent_state.h"
#include "capture/cupti_activity.h"

namespace prof {
namespace {
std::mutex g_gate_mutex;
uint32_t g_closed_gates = 0;  // under g_gate_mutex
}  // namespace

bool set_capture_gate(CaptureGate gate, bool open, uint64_t time_ns) {
  std::lock_guard lock(g_gate_mutex);
  const bool was_open = g_closed_gates == 0;
  if (open) {
    g_closed_gates &= ~static_cast<uint32_t>(gate);
  } else {
    g_closed_gates |= static_cast<uint32_t>(gate);
  }
  const bool now_open = g_closed_gates == 0;
  if (now_open == was_open) return now_open;
  if (CuptiActivity* activity = agent_state().cuda.activity.load(std::memory_order_acquire)) {
    if (now_open) {
      activity->open_window(time_ns);
    } else {
      activity->close_window(time_ns);
    }
  }
  g_capture_range_open.store(now_open, std::memory_order_release);
  return now_open;
}

}  // namespace prof
