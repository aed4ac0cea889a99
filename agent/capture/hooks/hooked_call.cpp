#include "capture/hooks/hooked_call.h"

#include <cuda.h>
#include <dlfcn.h>

#include <cstring>

#include "agent_state.h"
#include "capture/api_call_writer.h"
#include "capture/capture_range.h"
#include "capture/cuda_steps.h"
#include "capture/cuda_call_args.h"
#include "capture/hooks/event_timing.h"
#include "capture/hooks/real_symbols.h"
#include "stacks/call_stack.h"
#include "capture/reentry_guard.h"
#include "common/clock.h"
#include "common/host_clock.h"
#include "step_rule.h"
#include "record/recorder.h"

namespace prof {
namespace hooks_detail {
// Not in AgentState: every wrapper's pass-through loads it inline (two
// loads, a test and a jump, hooked_call.h); through AgentState it would be
// a third load.
std::atomic<HookMode> g_mode{HookMode::off};
// Stream captures begun and not yet ended that the hooks saw (hooks only):
// only while one is open does a stream-ordered allocation ask whether its
// stream is capturing.
std::atomic<int> g_open_captures{0};
}  // namespace hooks_detail

namespace {

using hooks_detail::g_mode;
using hooks_detail::HookMode;

HookState& hooks() { return agent_state().hooks; }
// AgentConfig::cuda, the one copy (leaked with the configuration), once
// start_cuda_hooks has set it, before the hooks record.
const CudaCaptureOptions& options() { return *agent_state().hooks.options; }

bool per_thread_stream(const char* name) {
  const size_t length = strlen(name);
  return length > 5 && (strcmp(name + length - 5, "_ptsz") == 0 || strcmp(name + length - 5, "_ptds") == 0);
}

bool is_capture_call(uint16_t callback_id, bool begin) {
  return begin ? callback_id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2 ||
                     callback_id == CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz
               : callback_id == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture ||
                     callback_id == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz;
}

// HookedCall::start_ticks_ of a call that began with nothing being recorded.
constexpr uint64_t kNotTimed = 0;
// write_record, HookedCall::end and the wrapper: the app's call site (or the
// CUDA library's, for a nested call) is the leaf of the stack.
constexpr uint32_t kAgentFrames = 3;

struct ThreadHookState {
  uint32_t depth;             // calls the hooks are recording on this thread
  uint32_t work_in_flight;    // of them, calls that describe work
  uint32_t correlation_id;    // of the outermost one; 0: none yet
  // The recorded call whose CUPTI entry callback may still come, while
  // t_capture.call_awaits_cupti_entry is set.
  uint8_t pending_domain;
  uint16_t pending_callback_id;
  // CUPTI's correlation id of the last call it saw only the exit of.
  uint8_t unseen_domain;
  uint16_t unseen_callback_id;
  uint32_t unseen_correlation_id;
  // The kernel of the last driver launch, for the runtime launch around it.
  const char* kernel_name;
  uint64_t outermost_start_ticks;  // when the outermost call being recorded began
};
[[gnu::tls_model("initial-exec")]] thread_local ThreadHookState t_hook{};

// Kernel names by CUfunction, per thread (no lock): the driver is asked once
// per kernel and thread.
constexpr uint32_t kNameCacheSize = 64;
struct NameCache {
  const void* function[kNameCacheSize];
  const char* name[kNameCacheSize];
};
thread_local NameCache t_names{};

// The driver's name getters: CUDA 12's runtime launches with CUkernel
// handles (cuLibraryGetKernel), which cuLaunchKernel takes in place of a
// CUfunction but cuFuncGetName refuses (an H100 with driver 580 recorded
// every runtime launch nameless); cuKernelGetName names those.
using NameGetter = CUresult (*)(const char**, void*);
struct NameGetters {
  NameGetter function = nullptr;
  NameGetter kernel = nullptr;
};

const NameGetters& name_getters() {
  static const NameGetters getters{
      reinterpret_cast<NameGetter>(next_definition("cuFuncGetName", "libcuda.so")),
      reinterpret_cast<NameGetter>(next_definition("cuKernelGetName", "libcuda.so"))};
  return getters;
}

const char* kernel_name_of(CUfunction function) {
  if (function == nullptr) return nullptr;
  const uint32_t slot = static_cast<uint32_t>((reinterpret_cast<uintptr_t>(function) >> 4) % kNameCacheSize);
  if (t_names.function[slot] == function) return t_names.name[slot];
  const NameGetters& get = name_getters();
  const char* name = nullptr;
  for (NameGetter getter : {get.function, get.kernel}) {
    if (getter != nullptr && getter(&name, function) == CUDA_SUCCESS && name != nullptr) break;
    name = nullptr;
  }
  t_names.function[slot] = function;
  t_names.name[slot] = name;
  return name;
}

// The CUfunction a driver launch ran.
CUfunction launched_function(uint16_t callback_id, const void* params) {
  if (params == nullptr) return nullptr;
  switch (callback_id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      return static_cast<const cuLaunchKernel_params*>(params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return static_cast<const cuLaunchKernelEx_params*>(params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return static_cast<const cuLaunchCooperativeKernel_params*>(params)->f;
    default:
      return nullptr;
  }
}

// api:NAME: whether `function` is NAME.
bool is_step_call(const StepRule& rule, const HookedFunction& function) {
  return is_step_call(rule, function.domain == file::ApiDomain::runtime, function.callback_id, function.name());
}

// PROF_STEP=kernel:REGEX and api:NAME without CUPTI (cuda_steps.h). A kernel
// is named by the driver's launch (a runtime launch learns it from the driver
// call inside it), so a step found there starts where the outermost call
// began: the runtime launch is in the step it starts, as with CUPTI.
[[gnu::noinline]] void find_step_at_begin(const HookedFunction& function, CudaCallKind kind, const void* params,
                                          bool outermost, ThreadHookState& t) {
  const StepRule* rule = cuda_step_rule();
  if (rule == nullptr) return;
  if (rule->kind() == StepRule::Kind::kKernel) {
    if (kind != CudaCallKind::launch || function.domain != file::ApiDomain::driver) return;
    ReentryGuard guard;
    if (!guard) return;
    const char* name = kernel_name_of(launched_function(function.callback_id, params));
    if (!kernel_starts_step(*rule, name)) return;
    if (outermost) {
      step_starts_at(monotonic_ns());  // before this call's start is read
      return;
    }
    // The outermost call (the runtime's launch) carries this ns value as its
    // start (kNsMark; HookedCall::end), so that it lies at the boundary.
    const uint64_t start_ns = host_ticks_to_ns_now(t.outermost_start_ticks);
    t.outermost_start_ticks = ns_in_place_of_ticks(start_ns);
    step_starts_at(start_ns);
  } else if (rule->kind() == StepRule::Kind::kApi && !rule->ends_steps() && is_step_call(*rule, function)) {
    step_starts_at(monotonic_ns());
  }
}

// Between capture windows a call goes straight through, as if not hooked,
// unless it may start or end a step (PROF_STEP=kernel: the launches, whose
// driver call names the kernel inside the runtime's; api:NAME: NAME), open
// the profiler range, or begin or end a stream capture, which event timing
// must know of at all times (an event recorded on a capturing stream would
// join the app's graph).
bool needed_outside_windows(const HookedFunction& function, CudaCallKind kind) {
  if (kind == CudaCallKind::profiler_start || kind == CudaCallKind::profiler_stop) return true;
  if (function.domain == file::ApiDomain::driver &&
      (is_capture_call(function.callback_id, true) || is_capture_call(function.callback_id, false))) {
    return true;
  }
  const StepRule* rule = cuda_step_rule();
  if (rule == nullptr) return false;
  if (rule->kind() == StepRule::Kind::kKernel) return kind == CudaCallKind::launch;
  return is_step_call(*rule, function);
}

[[gnu::noinline]] void write_record(const HookedFunction& function, CudaCallKind kind, bool nested,
                                    uint64_t start_ticks, uint64_t end_ticks, uint32_t correlation_id,
                                    int32_t result, const void* params, const char* kernel_name) {
  ThreadBuffer* buffer = hooks().recorder->thread_buffer();
  if (buffer == nullptr) return;
  // The stack settings are chosen on the first call that takes a stack.
  const CallStackSettings* stacks = options().stacks != StackMode::none && describes_work(kind) && !nested
                                        ? &call_stack_settings(options().stacks, options().stack_depth)
                                        : nullptr;
  write_api_call(*buffer, stacks, kAgentFrames, {kind, nested, kernel_name}, [&] {
    ApiCallSeen seen;
    seen.start_ticks = start_ticks;
    seen.end_ticks = end_ticks;
    seen.function_name = function.name();
    seen.correlation_id = correlation_id;
    seen.return_code = result;
    seen.domain = function.domain;
    seen.backend = file::CaptureBackend::hooks;
    seen.callback_id = function.callback_id;
    seen.params = params;
    return seen;
  });
}

}  // namespace

void start_cuda_hooks(Recorder& recorder, const CudaCaptureOptions& options) {
  hooks().recorder = &recorder;
  hooks().options = &options;
  // Stacks are set up with the first one recorded (call_stack_settings):
  // in a Python program, Python is running by then, not yet now.
  g_mode.store(options.backend == CaptureBackend::hooks ? HookMode::only : HookMode::before_cupti,
               std::memory_order_release);
}

void reset_cuda_hooks_after_fork() {
  g_mode.store(HookMode::off, std::memory_order_release);
  hooks_detail::g_open_captures.store(0, std::memory_order_relaxed);
  t_hook = ThreadHookState{};  // the forking thread's, possibly inside a call
  t_capture.call_awaits_cupti_entry = false;
  hooks().cuda_ready.store(false, std::memory_order_relaxed);
  hooks().cupti_absent_called.store(false, std::memory_order_relaxed);
  hooks().event_timing.store(false, std::memory_order_relaxed);
  EventTiming::forget_after_fork();
}

void hand_over_to_cupti() {
  HookMode expected = HookMode::before_cupti;
  g_mode.compare_exchange_strong(expected, HookMode::cupti);
}

void set_cupti_absent_handler(void (*handler)()) { hooks().cupti_absent = handler; }

void use_event_timing() { hooks().event_timing.store(true, std::memory_order_release); }

void hooks_keep_recording() {
  HookMode expected = HookMode::before_cupti;
  g_mode.compare_exchange_strong(expected, HookMode::only);
}

bool hooks_interposed() {
  // The address the process binds cuInit to, against our own wrapper's.
  DlsymFn lookup = real_dlsym();
  if (lookup == nullptr) return false;
  void* bound = lookup(RTLD_DEFAULT, "cuInit");
  Dl_info theirs{}, ours{};
  return bound != nullptr && dladdr(bound, &theirs) != 0 &&
         dladdr(reinterpret_cast<const void*>(&hooks_interposed), &ours) != 0 &&
         theirs.dli_fbase == ours.dli_fbase;
}

bool hooks_detail::cupti_sees_entry_of_awaited(file::ApiDomain domain, uint32_t callback_id) {
  const ThreadHookState& t = t_hook;
  if (t.pending_domain != static_cast<uint8_t>(domain) || t.pending_callback_id != callback_id) return true;
  t_capture.call_awaits_cupti_entry = false;
  return false;
}

void note_unseen_cupti_call(file::ApiDomain domain, uint32_t callback_id, uint32_t correlation_id) {
  ThreadHookState& t = t_hook;
  t.unseen_domain = static_cast<uint8_t>(domain);
  t.unseen_callback_id = static_cast<uint16_t>(callback_id);
  t.unseen_correlation_id = correlation_id;
}

void HookedCall::note_kernel_name(const char* name) { t_hook.kernel_name = name; }

bool HookedCall::begin(HookedFunction& function, const void* params) {
  const HookMode mode = g_mode.load(std::memory_order_acquire);
  if (mode != HookMode::before_cupti && mode != HookMode::only) return false;
  if (ReentryGuard::inside_agent()) return false;  // the agent's own CUDA calls
  CudaCallKind kind = function.kind.load(std::memory_order_relaxed);
  if (kind == CudaCallKind::unknown) {
    kind = classify_cuda_call(function.name());  // races compute the same answer
    function.kind.store(kind, std::memory_order_relaxed);
  }
  if (kind == CudaCallKind::query && !options().all_api_calls) return false;
  if (mode == HookMode::only && !capture_range_open() && !needed_outside_windows(function, kind)) return false;

  ThreadHookState& t = t_hook;
  function_ = &function;
  kind_ = kind;
  params_ = params;
  outermost_ = t.depth++ == 0;
  if (mode == HookMode::only && t.correlation_id == 0) {
    t.correlation_id = hooks().next_correlation_id.fetch_add(1, std::memory_order_relaxed);
  }
  work_ = describes_work(kind);
  nested_work_ = work_ && t.work_in_flight > 0;
  if (work_) ++t.work_in_flight;
  if (mode == HookMode::before_cupti) {
    t_capture.call_awaits_cupti_entry = true;
    t.pending_domain = static_cast<uint8_t>(function.domain);
    t.pending_callback_id = function.callback_id;
  }
  if (kind == CudaCallKind::profiler_stop && options().range == CaptureRange::cuda_profiler_api) {
    set_capture_gate(CaptureGate::profiler_api, false, monotonic_ns());
  }
  // Before GPU timing is decided below: the launch that starts a window is timed.
  if (mode == HookMode::only && agent_state().cuda.step_rule == StepRuleOrigin::entry) {
    find_step_at_begin(function, kind, params, outermost_, t);
  }
  if (mode == HookMode::only && function.domain == file::ApiDomain::driver &&
      hooks().event_timing.load(std::memory_order_relaxed)) {
    if (is_capture_call(function.callback_id, true)) EventTiming::capture_began();
    if ((kind == CudaCallKind::launch || kind == CudaCallKind::copy || kind == CudaCallKind::memset) &&
        capture_range_open()) {
      ApiCallRecord work{};
      read_call_args(CUPTI_CB_DOMAIN_DRIVER_API, function.callback_id, params, work);
      ReentryGuard guard;
      timed_ = EventTiming::before(work, per_thread_stream(function.name()));
    }
  }
  // Without CUPTI the hooks record memory as its MEMORY2 records would (a
  // release is described now, while its memory exists).
  if (mode == HookMode::only && function.domain == file::ApiDomain::driver && capture_range_open()) {
    ReentryGuard guard;
    if (guard) {
      memory_ = memory_call_before(function.callback_id, params,
                                   hooks_detail::g_open_captures.load(std::memory_order_relaxed) > 0);
    }
  }
  // A call that begins with nothing being recorded is not recorded (as
  // through CUPTI), so it reads no clock: unless a kernel rule may find,
  // inside it, a step that starts where it began.
  start_ticks_ = capture_range_open() || agent_state().cuda.step_rule == StepRuleOrigin::entry ? host_ticks()
                                                                                             : kNotTimed;
  if (outermost_) t.outermost_start_ticks = start_ticks_;
  return true;
}

void HookedCall::end(int32_t result) {
  const bool timed = start_ticks_ != kNotTimed;
  const uint64_t end_ticks = timed ? host_ticks() : kNotTimed;
  if (timed_ != nullptr) {
    ReentryGuard guard;
    if (!EventTiming::record_end(timed_, result == 0)) timed_ = nullptr;
  }
  // A call inside this one found a step starting where this one began.
  if (outermost_ && timed && is_marked_ns(t_hook.outermost_start_ticks)) start_ticks_ = t_hook.outermost_start_ticks;
  const void* params = params_;
  ThreadHookState& t = t_hook;
  t_capture.call_awaits_cupti_entry = false;
  --t.depth;
  if (work_) --t.work_in_flight;
  if (t.correlation_id == 0 && g_mode.load(std::memory_order_relaxed) == HookMode::only) {
    // CUPTI was refused while this call ran (inside cuInit): ids are ours now.
    t.correlation_id = hooks().next_correlation_id.fetch_add(1, std::memory_order_relaxed);
  }
  uint32_t correlation_id = t.correlation_id;
  if (t.unseen_correlation_id != 0 && t.unseen_domain == static_cast<uint8_t>(function_->domain) &&
      t.unseen_callback_id == function_->callback_id) {
    correlation_id = t.unseen_correlation_id;
    t.unseen_correlation_id = 0;
  }
  if (outermost_) t.correlation_id = 0;

  const char* kernel_name = nullptr;
  if (kind_ == CudaCallKind::launch) {
    if (function_->domain == file::ApiDomain::driver && (timed || timed_ != nullptr)) {
      ReentryGuard guard;
      if (guard) t.kernel_name = kernel_name_of(launched_function(function_->callback_id, params));
    }
    kernel_name = t.kernel_name;
    if (outermost_) t.kernel_name = nullptr;
  }
  if (timed_ != nullptr) {
    ReentryGuard guard;
    EventTiming::after(timed_, correlation_id, timed ? host_ticks_to_ns_now(start_ticks_) : 0, kernel_name);
  }
  if (hooks().event_timing.load(std::memory_order_relaxed) && function_->domain == file::ApiDomain::driver &&
      is_capture_call(function_->callback_id, false)) {
    EventTiming::capture_ended();
  }
  if (result == 0 && function_->domain == file::ApiDomain::driver) {
    if (is_capture_call(function_->callback_id, true)) hooks_detail::g_open_captures.fetch_add(1);
    if (is_capture_call(function_->callback_id, false)) hooks_detail::g_open_captures.fetch_sub(1);
  }
  if (function_->callback_id == CUPTI_DRIVER_TRACE_CBID_cuInit && function_->domain == file::ApiDomain::driver &&
      g_mode.load(std::memory_order_acquire) == HookMode::before_cupti && hooks().cupti_absent != nullptr &&
      !hooks().cupti_absent_called.exchange(true)) {
    // The driver calls its injection library from inside cuInit: none
    // subscribed CUPTI by now, so none will.
    hooks().cupti_absent();
  }
  if (kind_ == CudaCallKind::profiler_start && options().range == CaptureRange::cuda_profiler_api) {
    set_capture_gate(CaptureGate::profiler_api, true, monotonic_ns());
  }
  if (!hooks().cuda_ready.load(std::memory_order_relaxed) && !hooks().cuda_ready.exchange(true) &&
      options().on_cuda_ready != nullptr) {
    // As the CUPTI path: the first call to return ran after the runtime
    // initialised, so an atexit handler registered now runs before its teardown.
    options().on_cuda_ready();
  }
  if (timed && capture_range_open()) {
    ReentryGuard guard;
    // A call that describes work nested in another only under PROF_API=all,
    // as through CUPTI (cuda_capture.cpp, repeats_outer_call). It is still
    // timed and watched: a runtime launch's kernel name comes from the
    // driver launch inside it.
    const bool recorded = !nested_work_ || options().all_api_calls;
    if (guard && recorded) write_record(*function_, kind_, nested_work_, start_ticks_, end_ticks, correlation_id, result, params,
                             kernel_name);
    if (guard && memory_.operation != 0 && result == 0) {
      if (ThreadBuffer* buffer = hooks().recorder->thread_buffer()) {
        record_memory_call(memory_, function_->callback_id, params, correlation_id, end_ticks, *buffer);
      }
    }
  }
  // After recording it: a synchronization belongs to the step it ends.
  if (agent_state().cuda.step_rule == StepRuleOrigin::api_end && g_mode.load(std::memory_order_relaxed) == HookMode::only) {
    const StepRule* rule = cuda_step_rule();
    if (rule != nullptr && is_step_call(*rule, *function_)) step_ends_now();
  }
}

}  // namespace prof
