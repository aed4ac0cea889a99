#include "capture/cuda_capture.h"
#include "common/large_zeroed.h"

#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "agent_state.h"
#include "capture/api_call_writer.h"
#include "capture/capture_range.h"
#include "capture/cuda_call_args.h"
#include "capture/cuda_call_kind.h"
#include "capture/cuda_steps.h"
#include "capture/cupti_activity.h"
#include "step_rule.h"
#include "capture/cupti_library.h"
#include "capture/hooks/event_timing.h"
#include "capture/hooks/hooked_call.h"
#include "capture/quiet_callbacks.h"
#include "stacks/call_stack.h"
#include "capture/reentry_guard.h"
#include "capture/thread_capture_state.h"
#include "common/clock.h"
#include "common/host_clock.h"
#include "common/log.h"
#include "record/recorder.h"
#include "record/writer.h"

namespace prof {
// What CUDA capture set up when CUDA started; agent_state().cuda.capture.
struct CudaCapture {
  CuptiLibrary cupti;
  // AgentConfig::cuda, the one copy (leaked with the configuration).
  const CudaCaptureOptions* options = nullptr;
  Recorder* recorder = nullptr;
  CuptiActivity* activity = nullptr;
  CUpti_SubscriberHandle subscriber = nullptr;
  const CallStackSettings* stacks = nullptr;
  QuietCallbacks quiet;  // the callbacks left on outside windows
};

namespace {

// The agent's own frames at the leaf of a captured stack, by the path to
// on_api_exit: on_api_exit and on_callback, or on_api_exit,
// on_any_api_exit and on_callback (all noinline, and their calls of each
// other never tail calls, so the counts hold at every optimisation level).
// CUPTI's and the CUDA libraries' frames below them vary by release; the
// analyzer drops those by module.
constexpr uint32_t kAgentFramesFromCallback = 2;
constexpr uint32_t kAgentFramesFromAnyExit = 3;

// After a call whose frame is one of the agent's frames counted above: it
// must not become a tail call (at -O2 it would, leaving one frame fewer).
inline void keep_frame() { asm volatile("" ::: "memory"); }

// Why a callback cannot take its common path: the bits of
// CudaCaptureState::callback_blockers, each set and cleared where its
// reason changes (set_blocker), so that on_callback tests one word.
enum CallbackBlocker : uint8_t {
  kNotStarted = 1 << 0,       // start() has not set the others yet
  kNotReady = 1 << 1,         // no call has returned yet (on_any_api_exit runs on_cuda_ready)
  kStepRule = 1 << 2,         // a CUDA step rule: entries look for boundaries
  kStepRuleAtExit = 1 << 3,   // one that ends steps where a call returns
  kDetachRequested = 1 << 4,  // the next call to return detaches CUPTI
  kClockNotTsc = 1 << 5,      // the entry's inline clock read is the TSC's
};
constexpr uint8_t kEntryBlockers = kNotStarted | kStepRule | kClockNotTsc;
constexpr uint8_t kExitBlockers = kNotStarted | kNotReady | kStepRuleAtExit | kDetachRequested;

// Relaxed, as the flags each bit mirrors were read: a callback that misses
// a change by a moment takes the path the flag alone would have given it
// (a detach asked is done by a later call to return).
void set_blocker(CallbackBlocker blocker, bool set) {
  std::atomic<uint8_t>& blockers = agent_state().cuda.callback_blockers;
  if (set) {
    blockers.fetch_or(blocker, std::memory_order_relaxed);
  } else {
    blockers.fetch_and(static_cast<uint8_t>(~blocker), std::memory_order_relaxed);
  }
}

// The thread's calls in flight live in its ThreadCaptureState
// (capture/thread_capture_state.h), beside the re-entry guard and the
// hooks' wait, one thread_local for all.
// A call that describes work begins or ends: one more or fewer in flight.
// Each count by its own name: through a reference chosen by the kind, GCC
// computed the field's address (the thread pointer plus its offset) where
// it can now add to the field through %fs.
void count_work_begun(CudaCallKind kind) {
  if (kind == CudaCallKind::launch) {
    ++t_capture.work_in_flight.launches;
  } else {
    ++t_capture.work_in_flight.others;
  }
}
void count_work_ended(CudaCallKind kind) {
  if (kind == CudaCallKind::launch) {
    if (t_capture.work_in_flight.launches > 0) --t_capture.work_in_flight.launches;
  } else if (t_capture.work_in_flight.others > 0) {
    --t_capture.work_in_flight.others;
  }
}

// Whether a call is nested in another that describes work on this thread
// (counted after its own entry and before its own exit).
// Both counts in one load: an entry tested the sum of two, and kept both in
// registers for the count after.
bool nested_in_work() {
  static_assert(sizeof(WorkInFlight) == sizeof(uint64_t));
  uint64_t both = 0;
  memcpy(&both, &t_capture.work_in_flight, sizeof both);
  return both != 0;
}

// Before the counts are read (count_entry, on_api_exit): forgets them when
// the callbacks of calls that describe work were switched off since this
// thread last looked. Not needed before an exit's decrement (count_exit):
// the catch-up sets a count to 0, or leaves it (launches, when their
// callbacks stay on), and a decrement that stops at 0 before it ends in the
// same count after it. So the exit of a call not recorded (the driver's
// launch inside the runtime's) does not look.
void catch_up_with_cuts() {
  const uint32_t cuts = agent_state().cuda.work_callbacks_cut.load(std::memory_order_relaxed);
  if (t_capture.work_callbacks_cuts_seen == cuts) [[likely]] return;
  t_capture.work_callbacks_cuts_seen = cuts;
  t_capture.work_in_flight.others = 0;
  if (!agent_state().cuda.capture->quiet.launches_always_on) t_capture.work_in_flight.launches = 0;
}

// Each callback id's kind, classified by name once: the driver's and the
// runtime's ids side by side (CUPTI's domains 1 and 2: on_callback lets no
// other through), after slot 0, which is no id's and stays unknown. Not in
// AgentState: a cache of a pure function (the name's kind).
PROF_LARGE_ZEROED std::atomic<CudaCallKind> g_kinds[1 + 2 * kMaxCallbackId];

// The callback id's slot in g_kinds; in 32 bits, which the domain check
// left in a register. Side by side, one `lea` finds it (a domain's ids in a
// row took a shift and an add; a two-dimensional index three more).
uint32_t kind_slot(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  return 2 * cbid + static_cast<uint32_t>(domain);
}

// The kind cached for a callback id; unknown when it is not classified yet,
// or is beyond the table. An id beyond it reads slot 0 rather than branch:
// a branch of its own there made GCC set up on_callback's stack frame
// before it, for every callback, entries too.
CudaCallKind cached_kind(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const uint32_t slot = cbid < kMaxCallbackId ? kind_slot(domain, cbid) : 0;
  return g_kinds[slot].load(std::memory_order_relaxed);
}

CudaCallKind kind_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name) {
  if (cbid >= kMaxCallbackId) return classify_cuda_call(name);
  std::atomic<CudaCallKind>& slot = g_kinds[kind_slot(domain, cbid)];
  CudaCallKind kind = slot.load(std::memory_order_relaxed);
  if (kind == CudaCallKind::unknown) {
    // Races only compute the same answer twice.
    kind = classify_cuda_call(name);
    slot.store(kind, std::memory_order_relaxed);
  }
  return kind;
}

// The kinds a callback's fast path handles (on_callback, enter_commonly):
// classified, recorded by default, and neither starting nor stopping the
// profiler range: one run of CudaCallKind's values, one compare.
bool is_plain(CudaCallKind kind) {
  static_assert(static_cast<int>(CudaCallKind::other) == 1 && static_cast<int>(CudaCallKind::allocation) == 6);
  return static_cast<uint8_t>(static_cast<uint8_t>(kind) - 1u) < 6u;
}

// on_callback's callees (on_api_exit, on_any_api_enter, on_any_api_exit)
// take the call's kind first, in place of its unused first parameter, and
// then its three others, so that those stay in the registers they came in
// (in any other order, GCC moved them at each of the four callbacks per
// launch).
[[gnu::noinline]] void on_api_exit(CudaCallKind kind, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                   const CUpti_CallbackData& call, uint32_t agent_frames) {
  const uint64_t end_ticks = host_ticks();
  ReentryGuard guard;
  if (!guard) return;
  // After the end timestamp: a thread's first call allocates its ring here,
  // outside the call's recorded interval.
  ThreadBuffer* buffer = agent_state().cuda.capture->recorder->thread_buffer();
  if (buffer == nullptr) return;

  // A call inside another that describes work (cuLaunchKernel inside
  // cudaLaunchKernel) would repeat the same stack and arguments: the outer
  // call, which shares its correlation id, stands for both. That halves the
  // cost of stacks per launch and the bytes per launch in the file.
  catch_up_with_cuts();
  const bool nested = nested_in_work();
  const CudaCapture& capture = *agent_state().cuda.capture;
  write_api_call(*buffer, capture.stacks, agent_frames, {kind, nested, call.symbolName /* may be null */}, [&] {
    ApiCallSeen seen;
    seen.start_ticks = *call.correlationData;
    seen.end_ticks = end_ticks;
    seen.function_name = call.functionName;
    seen.correlation_id = call.correlationId;
    seen.return_code =
        call.functionReturnValue != nullptr ? *static_cast<const int32_t*>(call.functionReturnValue) : 0;
    seen.domain = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? file::ApiDomain::runtime : file::ApiDomain::driver;
    seen.backend = file::CaptureBackend::cupti;
    seen.callback_id = static_cast<uint16_t>(cbid);
    seen.params = call.functionParams;
    return seen;
  });
}

// What on_callback keeps in CUPTI's correlationData slot for a call it
// will not record: one that began while nothing was recorded (outside
// capture windows; a step rule keeps the callbacks on there, and a clock
// read per call was most of their cost), or, unless PROF_API=all, a call
// that describes work nested in another (repeats_outer_call). Its entry
// was seen, its time not read.
constexpr uint64_t kEntryNotTimed = 1;

// Whether a call that describes work, beginning now, repeats the call it is
// nested in (cuLaunchKernel inside cudaLaunchKernel, cuMemAlloc_v2 inside
// cudaMalloc): the outer call, with the same correlation id, stands for
// both. Kineto and Nsight Systems show the outer one alone, as profanalyze
// does unless told --driver-calls; recording the inner one was a quarter of
// the agent's cost per launch (callgrind, tiny_kernels), so only
// PROF_API=all records it. Other calls inside (a module loaded lazily by a
// first launch) are recorded: they say why the outer call took long. As
// the hooks decide (hooked_call.cpp, nested_work_).
bool repeats_outer_call(bool work) {
  return work && nested_in_work() && !agent_state().cuda.all_api_calls;
}

// At a call's entry, on both entry paths: counts it when it describes
// work, and says whether it is recorded (read before the count, which
// repeats_outer_call must not see).
[[gnu::always_inline]] inline bool count_entry(CudaCallKind kind) {
  catch_up_with_cuts();
  const bool work = describes_work(kind);
  const bool recorded = capture_range_open() && !repeats_outer_call(work);
  if (work) count_work_begun(kind);
  return recorded;
}

// At a call's exit, on both exit paths: balanced with count_entry. A call
// whose entry we never saw (`entry` 0: it began before the subscription)
// did not count either.
[[gnu::always_inline]] inline void count_exit(CudaCallKind kind, uint64_t entry) {
  if (describes_work(kind) && entry != 0) count_work_ended(kind);
}

// A call's entry time in ns, read now if it was not at its entry: a step
// boundary found there opens a window that records the call itself. The
// call then carries this ns value as its start (kNsMark), so that it lies
// exactly at the boundary in the file.
uint64_t entry_time(const CUpti_CallbackData& call) {
  if (*call.correlationData == kEntryNotTimed) *call.correlationData = host_ticks();
  const uint64_t ns = host_ticks_to_ns_now(*call.correlationData);
  *call.correlationData = ns_in_place_of_ticks(ns);
  return ns;
}

// PROF_STEP=kernel:... and api:NAME (a start rule): a boundary where the
// call begins, so that the call itself is in the step it starts.
void find_step_at_entry(CudaCallKind kind, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const CUpti_CallbackData& call) {
  const StepRule* rule = cuda_step_rule();
  if (rule == nullptr) return;
  if (rule->kind() == StepRule::Kind::kKernel) {
    // Counted on entry: above one, a launch inside a launch (cuLaunchKernel
    // in cudaLaunchKernel) names the same kernel again.
    if (kind != CudaCallKind::launch || t_capture.work_in_flight.launches > 1) return;
    if (kernel_starts_step(*rule, call.symbolName)) step_starts_at(entry_time(call));
  } else if (rule->kind() == StepRule::Kind::kApi && !rule->ends_steps()) {
    if (is_step_call(*rule, domain == CUPTI_CB_DOMAIN_RUNTIME_API, cbid, call.functionName)) {
      step_starts_at(entry_time(call));
    }
  }
}

// PROF_STEP=api:NAME where NAME synchronizes: the step ends where it returns.
void find_step_at_exit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& call) {
  const StepRule* rule = cuda_step_rule();
  if (rule != nullptr && is_step_call(*rule, domain == CUPTI_CB_DOMAIN_RUNTIME_API, cbid, call.functionName)) {
    step_ends_now();
  }
}

void detach_at_exit();

// An entry callback, in full (on_callback takes the common case, with
// enter_commonly).
// `cached`: on_callback's look-up, unknown when not classified yet.
[[gnu::noinline]] void on_any_api_enter(CudaCallKind cached, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                        const CUpti_CallbackData& call) {
  const CudaCallKind kind = cached != CudaCallKind::unknown ? cached : kind_of(domain, cbid, call.functionName);
  if (kind == CudaCallKind::query && !agent_state().cuda.all_api_calls) return;
  // The hooks record this call already (it began before CUPTI took over):
  // like a call whose entry CUPTI never saw, it is left to them.
  const file::ApiDomain api_domain =
      domain == CUPTI_CB_DOMAIN_RUNTIME_API ? file::ApiDomain::runtime : file::ApiDomain::driver;
  if (!cupti_sees_entry(api_domain, cbid)) return;
  const bool recorded = count_entry(kind);
  if (kind == CudaCallKind::profiler_stop && agent_state().cuda.capture->options->range == CaptureRange::cuda_profiler_api) {
    set_capture_gate(CaptureGate::profiler_api, false, monotonic_ns());
  }
  // CUPTI keeps this slot for us from the call's entry to its exit: the
  // entry's host ticks, the last thing before the call goes on.
  *call.correlationData =
      recorded || kind == CudaCallKind::profiler_start ? host_ticks() : kEntryNotTimed;
  if (agent_state().cuda.step_rule != StepRuleOrigin::none) find_step_at_entry(kind, domain, cbid, call);
}

// An entry callback's common case (a plain kind, no call the hooks may be
// recording, no entry blocker: no step rule, the TSC as clock): on_any_api_enter's path
// without its calls, inline in on_callback, so that an entry needs no stack
// frame and moves no argument: four callbacks per runtime launch (enter and
// exit, of it and of the driver's launch inside) were two thirds of the
// agent's instructions on the app thread (callgrind, tiny_kernels). False:
// not the common case, on_any_api_enter's to take.
[[gnu::always_inline]] inline bool enter_commonly(const CUpti_CallbackData& call, CudaCallKind kind) {
  if (!is_plain(kind) || t_capture.call_awaits_cupti_entry ||
      (agent_state().cuda.callback_blockers.load(std::memory_order_relaxed) & kEntryBlockers) != 0) [[unlikely]] {
    return false;
  }
  const bool recorded = count_entry(kind);
  // The entry's host ticks, the last thing before the call goes on.
  *call.correlationData = recorded ? host_clock::read_tsc() : kEntryNotTimed;
  return true;
}

// An exit callback, in full (on_callback takes the common case).
[[gnu::noinline]] void on_any_api_exit(CudaCallKind cached, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                       const CUpti_CallbackData& call) {
  const CudaCallKind kind = cached != CudaCallKind::unknown ? cached : kind_of(domain, cbid, call.functionName);
  if (kind == CudaCallKind::query && !agent_state().cuda.all_api_calls) return;

  const file::ApiDomain api_domain =
      domain == CUPTI_CB_DOMAIN_RUNTIME_API ? file::ApiDomain::runtime : file::ApiDomain::driver;
  count_exit(kind, *call.correlationData);
  if (kind == CudaCallKind::profiler_start && agent_state().cuda.capture->options->range == CaptureRange::cuda_profiler_api) {
    const uint64_t start_ns = host_ticks_to_ns_now(*call.correlationData);
    *call.correlationData = ns_in_place_of_ticks(start_ns);  // as entry_time()
    set_capture_gate(CaptureGate::profiler_api, true, start_ns);
  }
  std::atomic<bool>& ready = agent_state().cuda.ready;
  if (!ready.load(std::memory_order_relaxed) && !ready.exchange(true)) {
    // The first call to return ran after the CUDA runtime initialised, and
    // so after it registered its own exit-time teardown.
    if (agent_state().cuda.capture->options->on_cuda_ready != nullptr) agent_state().cuda.capture->options->on_cuda_ready();
    set_blocker(kNotReady, false);
  }
  // No entry time: the call began before we subscribed (cuInit, which loads
  // the agent through CUDA_INJECTION64_PATH from inside itself), and the
  // hooks record it: with CUPTI's correlation id, which the calls nested in
  // it that CUPTI records carry too.
  if (capture_range_open()) {
    if (*call.correlationData == 0) {
      note_unseen_cupti_call(api_domain, cbid, call.correlationId);
    } else if (*call.correlationData != kEntryNotTimed) {  // else it is not recorded (see kEntryNotTimed)
      on_api_exit(kind, domain, cbid, call, kAgentFramesFromAnyExit);
      keep_frame();
    }
  }
  // After recording it: a synchronization belongs to the step it ends.
  if (agent_state().cuda.step_rule == StepRuleOrigin::api_end) find_step_at_exit(domain, cbid, call);
  if (agent_state().cuda.detach_requested.load(std::memory_order_relaxed)) detach_at_exit();
}

[[gnu::noinline]] void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
  const auto& call = *static_cast<const CUpti_CallbackData*>(data);
  const CudaCallKind cached = cached_kind(domain, cbid);
  if (call.callbackSite == CUPTI_API_ENTER) {
    if (!enter_commonly(call, cached)) [[unlikely]] on_any_api_enter(cached, domain, cbid, call);
    return;
  }
  // The common exit (a plain kind, no exit blocker: not the first call, no
  // step rule ending steps here, no detach asked; an entry seen):
  // on_any_api_exit's path without its rare branches. The exit of a call
  // not recorded (the driver's launch inside the runtime's) then makes no
  // call and needs no stack frame.
  const uint64_t entry = *call.correlationData;
  if (is_plain(cached) && entry != 0 &&
      (agent_state().cuda.callback_blockers.load(std::memory_order_relaxed) & kExitBlockers) == 0) [[likely]] {
    count_exit(cached, entry);
    if (entry != kEntryNotTimed && capture_range_open()) {
      on_api_exit(cached, domain, cbid, call, kAgentFramesFromCallback);
      keep_frame();
    }
    return;
  }
  on_any_api_exit(cached, domain, cbid, call);
  keep_frame();
}

// ---- PROF_CUPTI_DETACH: CUPTI detached between windows ----
// With CUPTI attached, every CUDA call and kernel pays for it even with
// nothing enabled; PyTorch's profiler measured 10-20% of training throughput
// lost after a trace until it called cuptiFinalize (pytorch#146604), and
// Kineto now detaches after each trace. The writer asks for the detach once
// the last window's records are in; the next CUDA call to return does it,
// from its exit callback, where CUPTI's documentation says cuptiFinalize is
// safe. The next window (or the warmup step before it) attaches CUPTI again.

bool detach_allowed(const CudaCapture& capture) {
  // A CUDA step rule or cudaProfilerStart/Stop needs callbacks between windows.
  return capture.options->detach_between_windows && capture.cupti.Finalize != nullptr &&
         agent_state().cuda.step_rule == StepRuleOrigin::none && capture.options->range == CaptureRange::all;
}

// Under mode_mutex, as every change of detach_requested: its blocker bit
// follows it in the same order.
void set_detach_requested(bool requested) {
  agent_state().cuda.detach_requested.store(requested, std::memory_order_relaxed);
  set_blocker(kDetachRequested, requested);
}

bool detach_wanted() {
  CudaCaptureState& state = agent_state().cuda;
  std::lock_guard lock(state.mode_mutex);
  return !state.full && !state.detach_requested.load(std::memory_order_relaxed) && detach_allowed(*state.capture);
}

void request_detach() {
  CudaCaptureState& state = agent_state().cuda;
  std::lock_guard lock(state.mode_mutex);
  if (state.full || !detach_allowed(*state.capture)) return;
  set_detach_requested(true);
  // The callbacks that carry the detach: the next call of either domain.
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    state.capture->cupti.EnableDomain(1, state.capture->subscriber, domain);
  }
}

void detach_at_exit() {
  CudaCaptureState& state = agent_state().cuda;
  // Never waits: a window opening, or the writer inside CUPTI, and a later
  // call detaches instead.
  std::unique_lock lock(state.mode_mutex, std::try_to_lock);
  if (!lock.owns_lock() || state.full || !state.detach_requested.load(std::memory_order_relaxed)) return;
  CudaCapture& capture = *state.capture;
  if (!capture.activity->try_detach(capture.cupti.Finalize)) return;
  set_detach_requested(false);
  state.applied_full = false;
  agent_state().cuda.work_callbacks_cut.fetch_add(1, std::memory_order_relaxed);
  log_debug("CUPTI detached until the next window");
}

// CUPTI converts GPU timestamps into this clock (registered before any kind
// is enabled, as CUPTI requires), so GPU and CPU times share one timeline.
uint64_t CUPTIAPI cupti_timestamp() { return monotonic_ns(); }

// "" once subscribed, else why not.
std::string subscribe_callbacks(CudaCapture& capture) {
  CUptiResult result;
  char other[256] = {};
  if (capture.cupti.Subscribe_v2 != nullptr) {
    CUpti_SubscriberParams params = {};
    params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
    params.subscriberName = "libprof";
    params.oldSubscriberName = other;
    params.oldSubscriberSize = sizeof(other);
    result = capture.cupti.Subscribe_v2(&capture.subscriber, on_callback, nullptr, &params);
  } else {
    result = capture.cupti.Subscribe(&capture.subscriber, on_callback, nullptr);
  }
  if (result == CUPTI_SUCCESS) return {};
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return std::string("CUPTI is in use by another tool") + (other[0] ? " (" : "") + other + (other[0] ? ")" : "");
  }
  return std::string("CUPTI refused a subscriber (") + capture.cupti.describe(result) + ")";
}

bool subscribe(CudaCapture& capture, const char* without_cupti) {
  const std::string refused = subscribe_callbacks(capture);
  if (refused.empty()) return true;
  log_error("%s; %s", refused.c_str(), without_cupti);
  return false;
}

// The hooks record everything from here; GPU work is timed with events
// unless PROF_GPU_TIMING says otherwise.
void hooks_take_everything(Writer& writer, const CudaCaptureOptions& options) {
  hooks_keep_recording();
  if (options.gpu_timing == GpuTiming::automatic || options.gpu_timing == GpuTiming::events) {
    writer.set_activity_source(&EventTiming::instance());
    use_event_timing();
  }
}

// Full: every callback but the skipped queries, every activity kind. Quiet:
// no activity kind, and only the callbacks that find step boundaries or the
// profiler range. Under mode_mutex.
void apply_mode(CudaCapture& capture, bool full, bool first) {
  CudaCaptureState& state = agent_state().cuda;
  if (!first && full == state.applied_full) return;
  if (!capture.activity->attached()) {
    if (!full) return;  // detached is as quiet as it gets; any CUPTI call would attach it
    const std::string refused = capture.activity->attach([&capture] {
      std::string why = subscribe_callbacks(capture);
      if (why.empty() && capture.cupti.ActivityRegisterTimestampCallback != nullptr) {
        capture.cupti.ActivityRegisterTimestampCallback(cupti_timestamp);
      }
      return why;
    });
    if (!refused.empty()) {
      log_error("CUPTI could not be attached again for a window (%s): the window has no CUDA records", refused.c_str());
      return;
    }
    log_debug("CUPTI attached again for a window");
  }
  if (full) set_detach_requested(false);  // a window needs CUPTI after all
  state.applied_full = full;
  if (full) {
    const std::string refused = capture.activity->enable_kinds();
    if (first && !refused.empty()) log_error("CUPTI did not enable activity kinds: %s", refused.c_str());
  } else if (!first) {
    capture.activity->disable_kinds();
  }
  // Until the next call detaches CUPTI, once that is asked, every call carries the detach.
  const bool all_on = full || capture.quiet.whole_domains || state.detach_requested.load();
  for (CUpti_CallbackDomain domain : {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API}) {
    capture.cupti.EnableDomain(all_on ? 1 : 0, capture.subscriber, domain);
    if (capture.cupti.EnableCallback == nullptr) continue;
    if (all_on && !capture.options->all_api_calls) {
      for (CUpti_CallbackId cbid : query_callback_ids(domain)) {
        capture.cupti.EnableCallback(0, capture.subscriber, domain, cbid);
      }
    }
    if (!all_on) {
      for (CUpti_CallbackId cbid : capture.quiet.ids(domain)) capture.cupti.EnableCallback(1, capture.subscriber, domain, cbid);
    }
  }
  if (!all_on && !first) agent_state().cuda.work_callbacks_cut.fetch_add(1, std::memory_order_relaxed);
}

// The callbacks' common paths, from now on where nothing blocks them: the
// blockers of what was set before CUDA started (the step rule, the clock)
// and of what may have changed since the subscription (a call returned, a
// detach asked). Under mode_mutex, which orders it with the detach's bit;
// `ready`'s bit is cleared again if a call returned while it was stored.
void open_common_paths() {
  const CudaCaptureState& state = agent_state().cuda;
  uint8_t blockers = kNotReady;
  if (state.step_rule != StepRuleOrigin::none) blockers |= kStepRule;
  if (state.step_rule == StepRuleOrigin::api_end) blockers |= kStepRuleAtExit;
  if (state.detach_requested.load()) blockers |= kDetachRequested;
  if (!host_ticks_are_tsc()) blockers |= kClockNotTsc;  // decides the clock, if no call has yet
  agent_state().cuda.callback_blockers.store(blockers);
  if (state.ready.load()) set_blocker(kNotReady, false);
}

void start(Recorder& recorder, Writer& writer, const CudaCaptureOptions& options) {
  auto* capture = new CudaCapture;
  capture->options = &options;
  capture->recorder = &recorder;

  if (options.backend == CaptureBackend::hooks) {
    hooks_take_everything(writer, options);
    delete capture;
    return;
  }
  // What is left of CUDA capture when CUPTI is not to be had.
  const bool hooked = options.backend == CaptureBackend::automatic && hooks_interposed();
  const char* without_cupti = hooked ? "CUDA API calls are recorded through the agent's hooks"
                                     : "CUDA API calls and GPU activity are not recorded";
  std::string why;
  if (!load_cupti(capture->cupti, why)) {
    log_error("%s; %s", why.c_str(), without_cupti);
    if (hooked) hooks_take_everything(writer, options);
    delete capture;
    return;
  }
  uint32_t version = 0;
  capture->cupti.GetVersion(&version);
  log_debug("using %s (CUPTI API version %u, built against %u)", capture->cupti.path.c_str(),
            version, CUPTI_API_VERSION);
  // Nothing of CUPTI is touched before we hold the subscription: an app (or
  // tool) that subscribed first keeps its callbacks, its activity buffers and
  // its timestamps as they were.
  agent_state().cuda.capture = capture;  // leaked: callbacks may run during exit
  agent_state().cuda.all_api_calls = options.all_api_calls;
  if (!subscribe(*capture, without_cupti)) {
    if (hooked) hooks_take_everything(writer, options);
    return;
  }

  // Null when no stack is taken: the record's exit tests the pointer alone.
  const CallStackSettings& stacks = call_stack_settings(options.stacks, options.stack_depth);
  capture->stacks = stacks.any() ? &stacks : nullptr;
  capture->quiet = quiet_callbacks(capture->cupti, cuda_step_rule(), options.range == CaptureRange::cuda_profiler_api);
  if (log_level() >= LogLevel::debug) {
    log_debug("outside capture windows, CUPTI calls back for: %s", describe(capture->quiet, capture->cupti).c_str());
  }

  // Timestamps first: CUPTI takes the callback only before any kind is on.
  if (capture->cupti.ActivityRegisterTimestampCallback != nullptr) {
    capture->cupti.ActivityRegisterTimestampCallback(cupti_timestamp);
  }
  capture->activity = new CuptiActivity(capture->cupti);
  const bool windowed = options.windowed;
  if (options.range == CaptureRange::cuda_profiler_api || windowed) capture->activity->use_windows();
  if (windowed && detach_allowed(*capture)) capture->activity->set_detacher({detach_wanted, request_detach});
  // A window that opened before CUDA started (PROF_DELAY) holds its GPU work.
  if (windowed && capture_range_open()) capture->activity->open_window(0);
  const std::string refused = capture->activity->register_buffers();
  if (!refused.empty()) log_error("CUPTI did not enable activity kinds: %s", refused.c_str());
  writer.set_activity_source(capture->activity);
  {
    std::lock_guard lock(agent_state().cuda.mode_mutex);
    apply_mode(*capture, agent_state().cuda.full, /*first=*/true);
    // Calls that begin from now on are CUPTI's; the hooks finish the ones in flight.
    hand_over_to_cupti();
    open_common_paths();
  }
  // CUDA starting between windows (PROF_START=off, PROF_DELAY, a schedule's
  // first steps) has recorded nothing for the writer to drain first: the
  // first call to return detaches CUPTI, not one a writer pass later.
  if (windowed && detach_allowed(*capture)) request_detach();
}

}  // namespace

void set_cuda_capture_full(bool full) {
  CudaCaptureState& state = agent_state().cuda;
  std::lock_guard lock(state.mode_mutex);
  state.full = full;
  CudaCapture* capture = state.capture;
  if (capture == nullptr || capture->activity == nullptr) return;  // start() applies it
  apply_mode(*capture, full, false);
}

void start_cuda_capture(Recorder& recorder, Writer& writer, const CudaCaptureOptions& options) {
  std::call_once(agent_state().cuda.start_once, [&] { start(recorder, writer, options); });
}

void start_cuda_without_cupti(Writer& writer, const CudaCaptureOptions& options) {
  std::call_once(agent_state().cuda.start_once, [&] { hooks_take_everything(writer, options); });
}


}  // namespace prof
