#pragma once
// Everything the agent holds for the life of the process, in one object:
// its configuration, the recorder app threads write into, the writer, and
// the state of each capture (CUDA, NVTX, signals). The C callbacks that CUPTI,
// NVTX, the signal handlers and pthread_atfork call into reach it through
// agent_state().
//
// One instance per process, constant-initialised: the preload constructor
// may run before this library's C++ initialisers, so no constructor may run
// for it. Never destroyed: app threads and CUPTI may call in during exit,
// after static destructors. Per-thread hot-path state (re-entry guards, NVTX
// depths, calls in flight) stays thread_local in its capture's file.
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <mutex>

struct nvtxDomainRegistration_st;
struct nvtxStringRegistration_st;

namespace prof {

class CaptureControl;
class CuptiActivity;
class Recorder;
class Writer;
struct AgentConfig;
class RunClaim;
struct CudaCapture;

enum class AgentPhase { off, recording, finished };

// Where CUDA callbacks look for step boundaries (PROF_STEP): none (no rule,
// or an NVTX rule), at a call's entry (kernel:, api:NAME), or at the exit of
// a synchronization (api:cuda...Synchronize).
enum class StepRuleOrigin : uint8_t { none, entry, api_end };

struct CudaCaptureState {
  std::once_flag start_once;
  CudaCapture* capture = nullptr;  // set once, before CUPTI can call back
  std::atomic<bool> ready{false};  // the first CUDA call has returned
  // Where CUPTI's buffer callbacks go.
  std::atomic<CuptiActivity*> activity{nullptr};
  StepRuleOrigin step_rule = StepRuleOrigin::none;  // set before CUDA starts
  // set_cuda_capture_full(): the mode asked for, and the one CUPTI is in.
  std::mutex mode_mutex;
  bool full = true;
  bool applied_full = true;
  // PROF_CUPTI_DETACH: asked of the next CUDA call to return (on_callback).
  std::atomic<bool> detach_requested{false};
};

struct NvtxCaptureState {
  std::atomic<uint64_t> next_range_id{1};
  // Registered domains and strings, kept for the process (nvtx_capture.cpp).
  std::atomic<nvtxDomainRegistration_st*> domains{nullptr};
  std::atomic<nvtxStringRegistration_st*> registered_strings{nullptr};
};

struct SignalState {
  struct Managed {
    std::atomic<bool> active{false};   // our handler is installed
    struct sigaction app_action = {};  // what the app believes is installed
  };
  Managed managed[NSIG];
};

struct AgentState {
  std::atomic<AgentPhase> phase{AgentPhase::off};
  // Set once recording starts, before phase turns to recording; leaked.
  const AgentConfig* config = nullptr;
  // The recorder app threads record into: null until recording starts.
  std::atomic<Recorder*> recorder{nullptr};
  std::atomic<Writer*> writer{nullptr};
  // The run this process belongs to (run_claim.h): set before recording
  // starts; leaked.
  RunClaim* run = nullptr;
  // The process the recorder and writer belong to: a vfork child, which
  // shares this memory, must not finish them (process_exit.h).
  std::atomic<int> recording_pid{0};
  // Capture windows (PROF_SCHEDULE, PROF_DELAY, ...): null when the process
  // records from start to exit. Set before recording starts; leaked.
  std::atomic<CaptureControl*> control{nullptr};
  CudaCaptureState cuda;
  NvtxCaptureState nvtx;
  SignalState signals;
};

namespace detail {
extern AgentState g_agent_state;
}

// A hidden global in this library: one PC-relative address, as cheap as the
// separate globals it replaces.
inline AgentState& agent_state() { return detail::g_agent_state; }

}  // namespace prof
