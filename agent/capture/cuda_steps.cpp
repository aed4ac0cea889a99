#include "capture/cuda_steps.h"

#include <atomic>
#include <cstddef>

#include "capture/cuda_call_kind.h"
#include "common/clock.h"
#include "control/step_rule.h"

namespace prof {
namespace cuda_steps_detail {

std::atomic<uint64_t> g_seen_names[kSeenNames];

bool kernel_matches(const StepRule& rule, const char* name, std::atomic<uint64_t>& slot) {
  const bool matches = rule.matches(name);
  slot.store((uint64_t{reinterpret_cast<uintptr_t>(name)} << 1) | (matches ? 1 : 0), std::memory_order_relaxed);
  return matches;
}

}  // namespace cuda_steps_detail

namespace {

// Per callback id: 0: not yet known, 1: no, 2: yes.
std::atomic<uint8_t> g_api_matches[2][kMaxCallbackId];

}  // namespace

bool is_step_call(const StepRule& rule, bool runtime, uint32_t callback_id, const char* function_name) {
  if (callback_id >= kMaxCallbackId) return rule.matches(function_name);
  std::atomic<uint8_t>& slot = g_api_matches[runtime ? 0 : 1][callback_id];
  const uint8_t seen = slot.load(std::memory_order_relaxed);
  if (seen != 0) return seen == 2;
  const bool matches = rule.matches(function_name);
  slot.store(matches ? 2 : 1, std::memory_order_relaxed);
  return matches;
}

void step_starts_at(uint64_t time_ns) {
  if (CaptureControl* control = agent_state().control.load(std::memory_order_acquire)) control->step_boundary(time_ns);
}

void step_ends_now() {
  CaptureControl* control = agent_state().control.load(std::memory_order_acquire);
  if (control == nullptr) return;
  const uint64_t now = monotonic_ns();
  control->step_ends(now);
  control->step_begins(now);
}

}  // namespace prof
