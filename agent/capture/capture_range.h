#pragma once
// Whether the agent records right now: the one flag app threads read. It is
// the AND of independent gates, each owned by one trigger:
//  - profiler_api: PROF_CAPTURE=cudaProfilerApi, like nsys
//    --capture-range=cudaProfilerApi: open between cudaProfilerStart and
//    cudaProfilerStop (always open otherwise);
//  - window: a capture window (PROF_SCHEDULE, PROF_DELAY/PROF_DURATION,
//    PROF_START=off and profanalyze capture; always open without them);
//  - budget: closed for good once PROF_MAX_MB is reached.
// When the AND changes, GPU records are cut at that time too (the CUPTI
// decoder keeps records whose start is inside an open interval).
#include <atomic>
#include <cstdint>

#include "agent_state.h"
#include "control/capture_switch.h"

namespace prof {

inline bool capture_range_open() { return agent_state().gates.open.load(std::memory_order_acquire); }

enum class CaptureGate : uint32_t { profiler_api = 1, window = 2, budget = 4 };

// Sets one gate (any thread; rare: at most a few times per step) and
// returns whether recording is open after it.
bool set_capture_gate(CaptureGate gate, bool open, uint64_t time_ns);

// What capture windows switch (CaptureControl): the window and budget gates
// here, and CUDA capture's full or quiet mode (cuda_capture.h).
class CaptureGates final : public CaptureSwitch {
 public:
  void set_window_open(bool open, uint64_t time_ns) override;
  void close_for_good(uint64_t time_ns) override;
  void set_cuda_full(bool full) override;
};

}  // namespace prof
