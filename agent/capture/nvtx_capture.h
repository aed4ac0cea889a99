#pragma once
#include <cstdint>

// NVTX capture through NVTX's injection interface: NVTX3 (header-only) reads
// NVTX_INJECTION64_PATH on its first call in each module, dlopens that
// library and calls its InitializeInjectionNvtx2, which fills NVTX's
// function table with ours.

namespace prof {

// The hooks record into agent_state().recorder once it is set (recording
// started) and while it accepts records; before and after, they pass.

// Ranges of the Python bootstrap (torch_entry.cpp: nn.Module calls,
// ProfilerStep#N), recorded as NVTX ranges of the default domain exactly as
// nvtxRangePushA/Pop and nvtxRangeStartA/End would be, with the same
// pairing, back-pressure and PROF_STEP detection.
int push_named_range(const char* name);
int pop_named_range();
uint64_t start_named_range(const char* name);
void end_named_range(uint64_t id);

}  // namespace prof
