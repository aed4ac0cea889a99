#pragma once
// The step rule's answer per distinct name (shared/step_rule.h), as the agent
// asks it: on the app's threads, inside CUDA calls and NVTX pushes. Each
// distinct name is matched once (the regex, and for a kernel the demangler,
// run once per name, not per launch or push), then answered from a table.
// The callers keep a small lock-free cache in front (cuda_steps.h,
// nvtx_capture.cpp); this table is what stays behind it when their slots are
// taken by other names.
#include <cstdint>
#include <string_view>

#include "step_rule.h"

namespace prof {

// A name's key in the table: 64-bit FNV-1a of its bytes, never 0 (the empty
// slot of the callers' caches). Two names colliding (about 1 in 2^64 per
// pair) would share an answer.
uint64_t step_name_key(std::string_view name);

// Whether `rule` (nvtx:) takes the NVTX range `name`; `key` is its step_name_key.
bool rule_takes_range(const StepRule& rule, std::string_view name, uint64_t key);

// Whether `rule` (kernel:) takes the kernel `symbol`, named as CUPTI and the
// driver name it (a C++ kernel mangled): matched as users write it, demangled,
// as the analyzer's --step matches the names it reports.
bool rule_takes_kernel(const StepRule& rule, std::string_view symbol, uint64_t key);

}  // namespace prof
