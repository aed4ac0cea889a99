#include "capture/cuda_steps.h"
#include "common/large_zeroed.h"

#include <atomic>
#include <cstddef>
#include <cstring>

#include "capture/cuda_call_kind.h"
#include "common/clock.h"
#include "control/step_listener.h"
#include "control/step_names.h"
#include "step_rule.h"

namespace prof {
namespace cuda_steps_detail {

// Not in AgentState: a cache of a pure function (the rule's answer for a
// kernel name), read inline on every launch (cuda_steps.h).
PROF_LARGE_ZEROED std::atomic<uint64_t> g_seen_names[kSeenNames];

bool kernel_matches(const StepRule& rule, const char* name, std::atomic<uint64_t>& slot) {
  const std::string_view symbol(name, strnlen(name, kMaxKernelSymbol));
  const bool matches = rule_takes_kernel(rule, symbol, step_name_key(symbol));
  slot.store((uint64_t{reinterpret_cast<uintptr_t>(name)} << 1) | (matches ? 1 : 0), std::memory_order_relaxed);
  return matches;
}

}  // namespace cuda_steps_detail

namespace {

// Per callback id: 0: not yet known, 1: no, 2: yes. Not in AgentState: a
// cache of a pure function, as g_seen_names.
PROF_LARGE_ZEROED std::atomic<uint8_t> g_api_matches[2][kMaxCallbackId];

}  // namespace

bool is_step_call(const StepRule& rule, bool runtime, uint32_t callback_id, const char* function_name) {
  if (function_name == nullptr) return false;
  if (callback_id >= kMaxCallbackId) return rule.matches(function_name);
  std::atomic<uint8_t>& slot = g_api_matches[runtime ? 0 : 1][callback_id];
  const uint8_t seen = slot.load(std::memory_order_relaxed);
  if (seen != 0) return seen == 2;
  const bool matches = rule.matches(function_name);
  slot.store(matches ? 2 : 1, std::memory_order_relaxed);
  return matches;
}

void step_starts_at(uint64_t time_ns) {
  if (StepListener* steps = agent_state().steps.load(std::memory_order_acquire)) steps->step_boundary(time_ns);
}

void step_ends_now() {
  StepListener* steps = agent_state().steps.load(std::memory_order_acquire);
  if (steps == nullptr) return;
  const uint64_t now = monotonic_ns();
  steps->step_ends(now);
  steps->step_begins(now);
}

}  // namespace prof
