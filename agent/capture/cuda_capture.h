#pragma once
// CUDA capture through CUPTI: API calls from the callback API, GPU work from
// the activity API. Started when CUDA initialises (the driver calls the
// agent's InitializeInjection from cuInit), not at load: an app that
// subscribes to CUPTI itself before its first CUDA call keeps its subscription.
#include <cstdint>

#include "common/option_words.h"
#include "stacks/stack_mode.h"

namespace prof {

class Recorder;
class Writer;

enum class CaptureRange { all, cuda_profiler_api };
// Who records API calls (PROF_BACKEND). auto: CUPTI once it subscribes, the
// hooks (capture/hooks/) for what CUPTI does not see: the calls that start
// CUDA, and everything when CUPTI is refused.
enum class CaptureBackend : uint8_t { automatic, cupti, hooks };
// How GPU work is timed (PROF_GPU_TIMING). automatic: CUPTI's activity
// records when CUPTI subscribed, else CUDA events around launches and copies.
enum class GpuTiming : uint8_t { automatic, cupti, events, none };

// The words of each option (common/option_words.h): PROF_CAPTURE,
// PROF_BACKEND, PROF_GPU_TIMING, PROF_API, PROF_CUPTI_DETACH.
inline constexpr OptionWord<CaptureRange> kCaptureRangeWords[] = {
    {"all", CaptureRange::all}, {"cudaProfilerApi", CaptureRange::cuda_profiler_api}};
inline constexpr OptionWord<CaptureBackend> kCaptureBackendWords[] = {
    {"auto", CaptureBackend::automatic}, {"cupti", CaptureBackend::cupti}, {"hooks", CaptureBackend::hooks}};
inline constexpr OptionWord<GpuTiming> kGpuTimingWords[] = {
    {"auto", GpuTiming::automatic}, {"cupti", GpuTiming::cupti}, {"events", GpuTiming::events},
    {"none", GpuTiming::none}};
inline constexpr OptionWord<bool> kApiCallWords[] = {{"default", false}, {"all", true}};
inline constexpr OptionWord<bool> kOffOnDigitWords[] = {{"0", false}, {"1", true}};

struct CudaCaptureOptions {
  bool all_api_calls = false;  // PROF_API=all: also the query calls skipped by default
  StackMode stacks = StackMode::automatic;
  uint32_t stack_depth = 64;
  CaptureRange range = CaptureRange::all;
  CaptureBackend backend = CaptureBackend::automatic;
  GpuTiming gpu_timing = GpuTiming::automatic;
  // PROF_CUPTI_DETACH=1: between capture windows CUPTI is detached from the
  // process (cuptiFinalize) and attached again for the next window. Only
  // where no CUDA callback is needed between windows (PROF_STEP=nvtx:..., a
  // time window or on-demand capture; not with PROF_CAPTURE=cudaProfilerApi).
  bool detach_between_windows = false;
  // The process records in capture windows (CaptureControlOptions::windowed).
  bool windowed = false;
  // Called once, when the first CUDA call returns: the CUDA runtime has
  // initialised by then, and an atexit handler registered now runs before
  // the runtime's own teardown (atexit handlers run last-in, first-out).
  void (*on_cuda_ready)() = nullptr;
};

// `options` is AgentConfig::cuda, which lives as long as the process: the
// capture keeps a pointer to it, the one copy of the CUDA options.
// Once per process; later calls do nothing. Every failure is reported once
// and leaves the rest of the agent recording.
void start_cuda_capture(Recorder& recorder, Writer& writer, const CudaCaptureOptions& options);

// CUPTI did not start (the driver never called InitializeInjection): the
// hooks record every call, and time GPU work with events as configured.
void start_cuda_without_cupti(Writer& writer, const CudaCaptureOptions& options);

// Full capture (every callback but the skipped queries, every activity kind)
// or quiet: no activity kind, and only the callbacks that find step
// boundaries (PROF_STEP) or cudaProfilerStart/Stop (PROF_CAPTURE). Any
// thread; before CUDA starts it sets the mode CUDA capture starts in.
void set_cuda_capture_full(bool full);


}  // namespace prof
