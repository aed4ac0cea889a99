#pragma once
// What every wrapper of capture/hooks/ does around the real function: decide
// whether the hooks record this call (begin), then write the same
// ApiCallRecord the CUPTI path writes (end). The only interface between the
// wrappers and the rest of the agent.
//
// Who records a call (PROF_BACKEND=auto): the hooks record every call that
// began before CUPTI took over (hand_over_to_cupti), CUPTI every call whose
// entry it saw, and CUPTI leaves alone a call the hooks already record (see
// cupti_sees_entry), so no call is in the file twice.
#include <atomic>
#include <cstdint>

#include "capture/cuda_call_kind.h"
#include "capture/cuda_capture.h"
#include "capture/hooks/memory_events.h"
#include "capture/thread_capture_state.h"
#include "encode/file_records.h"

namespace prof {

class Recorder;

// The names the hooked functions are recorded under, each table's in one
// text (name_text.h): driver_hooks.cpp's and runtime_hooks.cpp's.
extern const char kDriverHookNames[];
extern const char kRuntimeRecordedNames[];

struct HookedFunction {
  uint16_t name_at;      // in its domain's text of names
  uint16_t callback_id;  // CUPTI's callback id within the domain
  file::ApiDomain domain;
  std::atomic<CudaCallKind> kind{CudaCallKind::unknown};  // classified on the first call

  // As CUPTI's functionName: the exported (ABI) name.
  const char* name() const {
    return (domain == file::ApiDomain::runtime ? kRuntimeRecordedNames : kDriverHookNames) + name_at;
  }
};

// At agent start: the hooks record from now on (PROF_BACKEND=auto or hooks).
// `options`: AgentConfig::cuda, kept by pointer (see start_cuda_capture).
void start_cuda_hooks(Recorder& recorder, const CudaCaptureOptions& options);
// CUPTI subscribed and enabled its callbacks: calls that begin from now on
// are CUPTI's to record.
void hand_over_to_cupti();
// In a forked child, before start_cuda_hooks with the child's recorder:
// forgets the parent's CUDA (its first call, CUPTI's hand-over, event
// timing), which the child cannot use; the child starts CUDA afresh.
void reset_cuda_hooks_after_fork();
// CUPTI was refused or not wanted: the hooks keep recording everything, with
// their own correlation ids.
void hooks_keep_recording();
// Called (once) when the first cuInit returns and CUPTI has not subscribed.
void set_cupti_absent_handler(void (*handler)());
// GPU work the hooks record is timed with CUDA events from now on, and the
// writer drains them (EventTiming).
void use_event_timing();
// Whether the agent's exported CUDA entry points are the ones the process
// binds to (LD_PRELOAD); false when it was only loaded as the driver's
// injection library, where nothing reaches the hooks.
bool hooks_interposed();

// On a CUPTI exit callback of a call whose entry CUPTI did not record: its
// correlation id, which the hooks' record of the call takes (so that the
// nested calls CUPTI records and their GPU records link to it).
void note_unseen_cupti_call(file::ApiDomain domain, uint32_t callback_id, uint32_t correlation_id);

namespace hooks_detail {
enum class HookMode : uint8_t {
  off,           // not started, or PROF_BACKEND=cupti
  before_cupti,  // auto: CUPTI has not subscribed (yet)
  cupti,         // auto: CUPTI records every call that begins from now on
  only,          // the hooks record everything (CUPTI refused, or PROF_BACKEND=hooks)
};
// Not in AgentState: read by every exported wrapper's inline fast
// path (two loads, a test and a jump between windows) through this header,
// which includes no AgentState. Hidden, and under an assembler name of its
// own: the x86-64 wrappers are assembly (wrapper_definition.h) and read it
// PC-relative by that name.
[[gnu::visibility("hidden")]] extern std::atomic<HookMode> g_mode __asm__("prof_hook_mode");
extern std::atomic<int> g_open_captures;
// t_capture.call_awaits_cupti_entry (capture/thread_capture_state.h):
// whether a call the hooks record on this thread began before CUPTI
// subscribed, so that CUPTI's entry callback for it may still come (the
// call itself is in ThreadHookState, hooked_call.cpp). Apart from that
// state, in the capture's thread block: CUPTI's entry callback reads it on
// every call, and it is set only in the moments around CUPTI's subscription.
bool cupti_sees_entry_of_awaited(file::ApiDomain domain, uint32_t callback_id);
}  // namespace hooks_detail

// ---- for the CUPTI callback (cuda_capture.cpp) ----
// On a CUPTI entry callback: false when this call is the one the hooks are
// already recording on this thread; CUPTI then leaves it alone. Inline: one
// thread-local load per call (callgrind: the call into hooked_call.cpp cost
// ~17 instructions per entry).
inline bool cupti_sees_entry(file::ApiDomain domain, uint32_t callback_id) {
  if (!t_capture.call_awaits_cupti_entry) [[likely]] return true;
  return hooks_detail::cupti_sees_entry_of_awaited(domain, callback_id);
}

// Whether a call beginning now may be the hooks' to record. When not (CUPTI
// records every call, or PROF_BACKEND=cupti), a wrapper goes straight to the
// real function: this load is then all the hooks cost a call.
inline bool hooks_may_record() {
  const hooks_detail::HookMode mode = hooks_detail::g_mode.load(std::memory_order_acquire);
  return mode == hooks_detail::HookMode::before_cupti || mode == hooks_detail::HookMode::only;
}
// The same test as the assembly wrappers make it (wrapper_definition.h):
// the mode's byte with bit 1 cleared is 1 for before_cupti and only alone.
namespace hooks_detail {
constexpr bool mode_byte_may_record(HookMode mode) { return (static_cast<int>(mode) & ~2) == 1; }
static_assert(sizeof(std::atomic<HookMode>) == 1);
static_assert(mode_byte_may_record(HookMode::before_cupti) && mode_byte_may_record(HookMode::only) &&
              !mode_byte_may_record(HookMode::off) && !mode_byte_may_record(HookMode::cupti));
}  // namespace hooks_detail

struct TimedOperation;

class HookedCall {
 public:
  // False: call the real function and return; nothing is recorded.
  // `params` as CUPTI's params struct of the function (nullptr: none); it
  // must stay valid until end().
  bool begin(HookedFunction& function, const void* params);
  // After the real function returned `result`.
  [[gnu::noinline]] void end(int32_t result);

  // The kernel a nested driver launch ran, for the enclosing runtime call.
  static void note_kernel_name(const char* name);

 private:
  HookedFunction* function_ = nullptr;
  CudaCallKind kind_ = CudaCallKind::unknown;
  bool work_ = false;
  bool nested_work_ = false;
  bool outermost_ = false;
  const void* params_ = nullptr;
  TimedOperation* timed_ = nullptr;
  MemoryCall memory_;  // hooks only: what the call allocates or releases
  uint32_t correlation_id_ = 0;
  uint64_t start_ticks_ = 0;  // host ticks (common/host_clock.h)
};

}  // namespace prof
