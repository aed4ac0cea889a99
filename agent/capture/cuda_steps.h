#pragma once
// PROF_STEP=kernel:REGEX and api:NAME, found in CUDA calls: by CUPTI's
// callbacks (cuda_capture.cpp) or, without CUPTI, by the hooks
// (hooks/hooked_call.cpp). Both ask the same questions, answered from the
// same caches, so that a step starts at the same call either way.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "agent_state.h"

namespace prof {

class StepRule;

// The CUDA step rule in force (kernel: or api:), or null: an NVTX rule, none,
// or no capture control. Inline, as the two questions below: CUDA calls ask
// them between windows.
inline const StepRule* cuda_step_rule() {
  if (agent_state().cuda.step_rule == StepRuleOrigin::none) return nullptr;
  if (agent_state().steps.load(std::memory_order_acquire) == nullptr) return nullptr;
  return agent_state().step_rule;
}

namespace cuda_steps_detail {
// A process-wide table, not thread_local: the agent's initial-exec TLS must
// stay small enough for the driver to dlopen it (CUDA_INJECTION64_PATH).
// Each slot packs the pointer and the answer in one word: (name << 1) | match.
constexpr size_t kSeenNames = 64;
// A kernel's symbol is read up to this many bytes: a longer one is corrupt.
constexpr size_t kMaxKernelSymbol = 1 << 20;
extern std::atomic<uint64_t> g_seen_names[kSeenNames];
bool kernel_matches(const StepRule& rule, const char* name, std::atomic<uint64_t>& slot);
}  // namespace cuda_steps_detail

// kernel:REGEX: whether a launch of the kernel `name` (as CUPTI and the
// driver name it: mangled for C++) starts a step; the rule matches it
// demangled (step_names.h). Cached per name pointer (CUPTI's symbolName and
// the driver's cuFuncGetName are the registered function's, stable for the
// process), in front of the table of every name seen: the regex runs once per
// kernel, not per launch.
inline bool kernel_starts_step(const StepRule& rule, const char* name) {
  if (name == nullptr) return false;
  const auto key = reinterpret_cast<uintptr_t>(name);
  std::atomic<uint64_t>& slot = cuda_steps_detail::g_seen_names[(key >> 4) % cuda_steps_detail::kSeenNames];
  const uint64_t seen = slot.load(std::memory_order_relaxed);
  if (seen != 0 && (seen >> 1) == key) return (seen & 1) != 0;
  return cuda_steps_detail::kernel_matches(rule, name, slot);
}

// api:NAME: whether a call is NAME. Cached per (domain, callback id): a call
// costs a table load, not a string compare.
bool is_step_call(const StepRule& rule, bool runtime, uint32_t callback_id, const char* function_name);

// A step boundary at `time_ns`: for a start rule (kernel:, api:NAME) where the
// call begins, so that the call is in the step it starts.
void step_starts_at(uint64_t time_ns);
// api:...Synchronize: the step ends where the call returns, now.
void step_ends_now();

}  // namespace prof
