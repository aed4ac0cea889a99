// The ground-truth log (SIMCUDA_TRUTH=path): one JSON object per line for every API
// call and every simulated operation. Schema in test/simcuda/README.md.
#pragma once

#include "simcuda/tracer_abi.h"

namespace simcuda {

bool truth_enabled();
void truth_api(const SimApiCall& call);
void truth_operation(const SimOperation& op);
void truth_memory(const SimMemoryEvent& event);
void truth_sync(const SimSyncEvent& event);

}  // namespace simcuda
