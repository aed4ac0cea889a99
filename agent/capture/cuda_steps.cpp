#include "capture/cuda_steps.h"

#include <atomic>
#include <cstddef>

#include "agent_state.h"
#include "common/clock.h"
#include "control/capture_control.h"
#include "control/step_rule.h"

namespace prof {
namespace {

// A process-wide table, not thread_local: the agent's initial-exec TLS must
// stay small enough for the driver to dlopen it (CUDA_INJECTION64_PATH).
// Each slot packs the pointer and the answer in one word: (name << 1) | match.
constexpr size_t kSeenNames = 64;
std::atomic<uint64_t> g_seen_names[kSeenNames];

// Callback ids of one domain stay below this in CUDA 13 (runtime ~520,
// driver ~900); an id beyond it is compared on every call.
constexpr uint32_t kMaxCallbackId = 2048;
// 0: not yet known, 1: no, 2: yes.
std::atomic<uint8_t> g_api_matches[2][kMaxCallbackId];

}  // namespace

const StepRule* cuda_step_rule() {
  if (agent_state().cuda.step_rule == StepRuleOrigin::none) return nullptr;
  const CaptureControl* control = agent_state().control.load(std::memory_order_acquire);
  return control != nullptr ? control->step_rule() : nullptr;
}

bool kernel_starts_step(const StepRule& rule, const char* name) {
  if (name == nullptr) return false;
  const auto key = reinterpret_cast<uintptr_t>(name);
  std::atomic<uint64_t>& slot = g_seen_names[(key >> 4) % kSeenNames];
  const uint64_t seen = slot.load(std::memory_order_relaxed);
  if (seen != 0 && (seen >> 1) == key) return (seen & 1) != 0;
  const bool matches = rule.matches(name);
  slot.store((uint64_t{key} << 1) | (matches ? 1 : 0), std::memory_order_relaxed);
  return matches;
}

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
