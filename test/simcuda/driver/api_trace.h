// Every exported API function runs in an ApiScope (simcuda/api_scope.h), which calls
// these: they assign the correlation id, time the call, and report enter/exit to the
// installed tracer (simcuda's CUPTI) and to the truth log. A runtime call and the
// driver calls nested in it share one correlation id, so the work a runtime call
// launched correlates with both API records.
#pragma once

#include "simcuda/tracer_abi.h"

namespace simcuda {

void api_enter(SimApiCall& call);
void api_exit(SimApiCall& call);
// The correlation id of the innermost API call running on this thread (0 if none).
uint32_t current_correlation_id();
const SimTracer* current_tracer();

}  // namespace simcuda
