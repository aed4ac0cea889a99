#pragma once
// NVTX capture through NVTX's injection interface: NVTX3 (header-only) reads
// NVTX_INJECTION64_PATH on its first call in each module, dlopens that
// library and calls its InitializeInjectionNvtx2, which fills NVTX's
// function table with ours.

namespace prof {

class Recorder;

// Makes the NVTX hooks record into `recorder`; before this they pass.
void enable_nvtx_capture(Recorder* recorder);

}  // namespace prof
