#pragma once
// NVTX capture through NVTX's injection interface: NVTX3 (header-only) reads
// NVTX_INJECTION64_PATH on its first call in each module, dlopens that
// library and calls its InitializeInjectionNvtx2, which fills NVTX's
// function table with ours.

namespace prof {

// The hooks record into agent_state().recorder once it is set (recording
// started) and while it accepts records; before and after, they pass.

}  // namespace prof
