#pragma once
// PROF_STEP=kernel:REGEX and api:NAME, found in CUDA calls: by CUPTI's
// callbacks (cuda_capture.cpp) or, without CUPTI, by the hooks
// (hooks/hooked_call.cpp). Both ask the same questions, answered from the
// same caches, so that a step starts at the same call either way.
#include <cstdint>

namespace prof {

struct StepRule;

// The CUDA step rule in force (kernel: or api:), or null: an NVTX rule, none,
// or no capture control.
const StepRule* cuda_step_rule();

// kernel:REGEX: whether a launch of the kernel `name` starts a step. Cached
// per name pointer (CUPTI's symbolName and the driver's cuFuncGetName are the
// registered function's, stable for the process): the regex runs once per
// kernel, not per launch.
bool kernel_starts_step(const StepRule& rule, const char* name);

// api:NAME: whether a call is NAME. Cached per (domain, callback id): a call
// costs a table load, not a string compare.
bool is_step_call(const StepRule& rule, bool runtime, uint32_t callback_id, const char* function_name);

// A step boundary at `time_ns`: for a start rule (kernel:, api:NAME) where the
// call begins, so that the call is in the step it starts.
void step_starts_at(uint64_t time_ns);
// api:...Synchronize: the step ends where the call returns, now.
void step_ends_now();

}  // namespace prof
