#pragma once
// Capture windows: which steps or seconds the agent records, and the state
// it is in between them. One instance per process (AgentState::control),
// made at start-up when any of PROF_SCHEDULE, PROF_DELAY, PROF_DURATION,
// PROF_START=off or PROF_STEP is set.
//
// Step boundaries come from app threads (an NVTX push or pop, a CUDA call:
// see shared/step_rule.h); they are rare (a few per step), so they may take a
// mutex. Everything else an app thread does outside windows is unchanged
// in cost or skipped: the capture gate is closed, and CUPTI's callbacks and
// activity kinds are off except those the step rule needs.
//
// It reaches the rest of the agent through three interfaces, so that it
// knows nothing of capture/ or record/ and is unit-tested with fakes: the
// capture side reports step boundaries to it (StepListener), it opens and
// closes the capture gates and switches CUDA capture (CaptureSwitch), and
// hands its windows to the writer (WindowSink).
//
// Each window goes to its own file (WindowSink::begin_window/end_window):
// PROF_SCHEDULE's windows to run.stepN.pb (N: the window's first step),
// PROF_DELAY/PROF_DURATION's one window to PROF_OUTPUT, a capture asked for
// by `profanalyze capture` to the file it names.
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "common/option_words.h"
#include "control/capture_switch.h"
#include "control/step_listener.h"
#include "control/window_sink.h"
#include "step_rule.h"
#include "schedule.h"

namespace prof {

struct CaptureControlOptions {
  std::optional<StepRule> step_rule;                 // PROF_STEP
  std::optional<Schedule> schedule;        // PROF_SCHEDULE
  uint64_t delay_ns = 0;                             // PROF_DELAY
  uint64_t duration_ns = 0;                          // PROF_DURATION (0: to the end)
  bool start_off = false;                            // PROF_START=off
  bool time_window() const { return delay_ns != 0 || duration_ns != 0; }
  // Whether the process records in windows rather than from start to exit.
  bool windowed() const { return schedule.has_value() || time_window() || start_off; }
};

// PROF_START's words: off starts with no window open.
inline constexpr OptionWord<bool> kStartOffWords[] = {{"on", false}, {"off", true}};

// What a `profanalyze capture` asks for.
struct OnDemandRequest {
  int64_t steps = 0;         // > 0: the next N whole steps
  uint64_t duration_ns = 0;  // else: this long from now
  std::string path;          // the window's file
};

class CaptureControl final : public StepListener {
 public:
  CaptureControl(CaptureControlOptions options, std::string output_path, uint64_t start_ns,
                 CaptureSwitch& capture);

  const CaptureControlOptions& options() const { return options_; }
  const StepRule* step_rule() const { return options_.step_rule ? &*options_.step_rule : nullptr; }
  // Where windows go, once started.
  const WindowSink* window_sink() const { return window_sink_; }

  // Called once the writer runs; opens the first window when recording
  // starts at once (an end rule's step 0 begins here too).
  void start(WindowSink& windows, uint64_t now_ns);

  // ---- app threads: step boundaries (StepListener) ----
  void step_begins(uint64_t now_ns) override;
  void step_ends(uint64_t now_ns) override;
  void step_boundary(uint64_t now_ns) override;

  // ---- the writer thread ----
  // Time-based windows: opens or closes them when their time has come.
  void tick(uint64_t now_ns);
  // Arms an on-demand capture; false with `error` when one is running.
  bool request(const OnDemandRequest& request, uint64_t now_ns, std::string& error);
  // PROF_MAX_MB reached: nothing more is recorded.
  void stop_for_good(uint64_t now_ns);

  // Whether CUPTI should deliver everything (in or just before a window).
  bool wants_full_capture() const;

 private:
  enum class Trigger { schedule, duration, on_demand };
  void open_window(Trigger trigger, int64_t first_step, uint64_t now_ns, const std::string& path);
  void close_window(uint64_t now_ns);
  void update_cuda_mode();  // under mutex_
  std::string schedule_path(int64_t first_step) const;

  const CaptureControlOptions options_;
  const std::string output_path_;
  const uint64_t start_ns_;
  CaptureSwitch& capture_;
  WindowSink* window_sink_ = nullptr;  // set by start()

  mutable std::mutex mutex_;
  int64_t step_ = -1;       // the step in progress or last ended
  bool in_step_ = false;
  bool window_open_ = false;
  Trigger trigger_ = Trigger::schedule;
  bool warmup_ = false;      // CUPTI on for a warmup step
  bool stopped_ = false;     // PROF_MAX_MB
  bool delay_done_ = false;  // PROF_DELAY's window was opened (once per run)
  uint64_t window_start_ns_ = 0;
  uint32_t windows_ = 0;
  // An on-demand capture: armed until its first step begins (steps) or open.
  bool demand_armed_ = false;
  OnDemandRequest demand_;
  int64_t demand_steps_left_ = 0;
  uint64_t demand_end_ns_ = 0;
};

}  // namespace prof
