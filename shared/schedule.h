#pragma once
// torch.profiler.schedule(wait, warmup, active, repeat, skip_first), step for
// step (torch/profiler/profiler.py), as a pure function, and the windows it
// cuts a run of steps into: each cycle's active steps are one window, like
// one on_trace_ready call.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace prof {

struct Schedule {
  int64_t skip_first = 0;
  int64_t wait = 0;
  int64_t warmup = 0;
  int64_t active = 1;
  int64_t repeat = 0;  // 0: cycle until the run ends

  // Empty when torch would accept it, else why not (active > 0, others >= 0).
  std::string validate() const;
};

enum class ScheduleAction { kNone, kWarmup, kRecord, kRecordAndSave };

// torch's schedule_fn(step). Requires a valid schedule.
ScheduleAction schedule_action(const Schedule& schedule, int64_t step);

struct StepWindow {
  int64_t index = 0;           // 0, 1, ...: the n-th on_trace_ready
  std::vector<int64_t> steps;  // the recorded (RECORD, RECORD_AND_SAVE) steps
  // The run ended inside the active phase: torch's profiler still calls
  // on_trace_ready when it stops in RECORD, so the window is kept.
  bool partial = false;
};

// The windows over steps 0..step_count-1.
std::vector<StepWindow> schedule_windows(const Schedule& schedule, int64_t step_count);

}  // namespace prof
