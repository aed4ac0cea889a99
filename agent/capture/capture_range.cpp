#include "capture/capture_range.h"

#include <mutex>

#include "agent_state.h"
#include "capture/cuda_capture.h"
#include "capture/cupti_activity.h"

namespace prof {
bool set_capture_gate(CaptureGate gate, bool open, uint64_t time_ns) {
  CaptureGateState& gates = agent_state().gates;
  std::lock_guard lock(gates.mutex);
  const bool was_open = gates.closed == 0;
  if (open) {
    gates.closed &= ~static_cast<uint32_t>(gate);
  } else {
    gates.closed |= static_cast<uint32_t>(gate);
  }
  const bool now_open = gates.closed == 0;
  if (now_open == was_open) return now_open;
  if (CuptiActivity* activity = agent_state().cuda.activity.load(std::memory_order_acquire)) {
    if (now_open) {
      activity->open_window(time_ns);
    } else {
      activity->close_window(time_ns);
    }
  }
  gates.open.store(now_open, std::memory_order_release);
  return now_open;
}

void CaptureGates::set_window_open(bool open, uint64_t time_ns) { set_capture_gate(CaptureGate::window, open, time_ns); }

void CaptureGates::close_for_good(uint64_t time_ns) { set_capture_gate(CaptureGate::budget, false, time_ns); }

void CaptureGates::set_cuda_full(bool full) { set_cuda_capture_full(full); }

}  // namespace prof
