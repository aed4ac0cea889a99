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
// depths, calls in flight) stays thread_local in the capture's files (the
// CUDA callbacks' in one block, capture/thread_capture_state.h).
//
// What stays at namespace scope elsewhere says why at its definition, one of:
//  - a cache of a pure function of the process's code (a callback id's kind,
//    a return address's unwind rule, a kernel name's match): a lookup table,
//    not state of the agent, kept beside the function it caches;
//  - read by the exported wrappers' inline fast path, where an extern in a
//    header is one load with no AgentState include;
//  - used by code that runs before or outside the agent (the interposed
//    dlsym and sigaction, the symbol lookups of the loader's libraries),
//    which must not depend on AgentState's initialisation;
//  - pthread keys and once flags, whose destructors run on thread exit.
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <mutex>

struct nvtxDomainRegistration_st;
struct nvtxStringRegistration_st;

namespace prof {

class CaptureControl;
class CuptiActivity;
class StepListener;
struct StepRule;
class Recorder;
class Writer;
struct CudaCaptureOptions;
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
  // PROF_API=all (CudaCaptureOptions::all_api_calls), set with `capture`:
  // read on every callback of a nested call, one load here.
  bool all_api_calls = false;
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
  // Times the callbacks of calls that describe work were switched off (a
  // window ended, or CUPTI was detached): see cuda_capture.cpp.
  std::atomic<uint32_t> work_callbacks_cut{0};
  // What keeps the CUPTI callbacks off their common paths (not ready, a
  // step rule, a detach asked, no TSC, not set up yet), one bit per reason
  // (cuda_capture.cpp, CallbackBlocker): each callback tests this one word
  // where it loaded up to four. Every bit set until CUDA capture starts.
  std::atomic<uint8_t> callback_blockers{0xff};
};

// The capture gates (capture/capture_range.h): which are closed, and their AND.
struct CaptureGateState {
  std::atomic<bool> open{true};  // read by every recording app thread
  std::mutex mutex;              // serialises set_capture_gate
  uint32_t closed = 0;           // CaptureGate bits, under mutex
};

// What the CUDA hooks (capture/hooks/hooked_call.cpp) are given at start.
struct HookState {
  Recorder* recorder = nullptr;  // the recorder at start_cuda_hooks (a forked child's own)
  // AgentConfig::cuda, the one copy; null until start_cuda_hooks.
  const CudaCaptureOptions* options = nullptr;
  std::atomic<uint32_t> next_correlation_id{1};
  std::atomic<bool> cuda_ready{false};    // the first hooked CUDA call returned
  std::atomic<bool> event_timing{false};  // GPU work is timed with CUDA events
  void (*cupti_absent)() = nullptr;       // called once when cuInit ends without CUPTI
  std::atomic<bool> cupti_absent_called{false};
};

struct NvtxCaptureState {
  std::atomic<uint64_t> next_range_id{1};
  // Start/end ranges open in the process: they may end on another thread,
  // so any of them may hold any thread's time.
  std::atomic<int64_t> open_started{0};
  // Registered domains and strings, kept for the process (nvtx_capture.cpp).
  std::atomic<nvtxDomainRegistration_st*> domains{nullptr};
  std::atomic<nvtxStringRegistration_st*> registered_strings{nullptr};
};

// The signals the agent may handle (signals.h), each with its entry in
// SignalState::managed at its place here.
inline constexpr int kManagedSignals[] = {SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

struct SignalState {
  struct Managed {
    std::atomic<bool> active{false};   // our handler is installed
    // Odd while app_action is being written: a handler on another thread
    // reads it while the app may be changing it (signals.cpp, app_action_of).
    std::atomic<uint32_t> app_action_writes{0};
    struct sigaction app_action = {};  // what the app believes is installed
  };
  // Seven entries, not one per signal (NSIG, 10 KB): AgentState stays
  // within the one page start-up writes (agent_state.cpp).
  Managed managed[sizeof(kManagedSignals) / sizeof(kManagedSignals[0])];
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
  // The same object as the capture side sees it (control/step_listener.h),
  // and its PROF_STEP rule: the rule is set before `steps` is stored, and
  // neither changes after.
  const StepRule* step_rule = nullptr;
  std::atomic<StepListener*> steps{nullptr};
  CudaCaptureState cuda;
  CaptureGateState gates;
  HookState hooks;
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
