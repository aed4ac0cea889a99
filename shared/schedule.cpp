#include "schedule.h"

namespace prof {

std::string Schedule::validate() const {
  if (active <= 0) return "--active must be greater than 0";
  if (skip_first < 0 || wait < 0 || warmup < 0 || repeat < 0)
    return "--skip-first, --wait, --warmup and --repeat must not be negative";
  return {};
}

ScheduleAction schedule_action(const Schedule& s, int64_t step) {
  if (step < s.skip_first) return ScheduleAction::kNone;
  step -= s.skip_first;
  const int64_t cycle = s.wait + s.warmup + s.active;
  if (s.repeat > 0 && step / cycle >= s.repeat) return ScheduleAction::kNone;
  const int64_t m = step % cycle;
  if (m < s.wait) return ScheduleAction::kNone;
  if (m < s.wait + s.warmup) return ScheduleAction::kWarmup;
  return m < cycle - 1 ? ScheduleAction::kRecord : ScheduleAction::kRecordAndSave;
}

std::vector<StepWindow> schedule_windows(const Schedule& schedule, int64_t step_count) {
  std::vector<StepWindow> windows;
  StepWindow current;
  for (int64_t step = 0; step < step_count; ++step) {
    const ScheduleAction action = schedule_action(schedule, step);
    if (action == ScheduleAction::kRecord || action == ScheduleAction::kRecordAndSave)
      current.steps.push_back(step);
    if (action == ScheduleAction::kRecordAndSave) {
      current.index = static_cast<int64_t>(windows.size());
      windows.push_back(std::move(current));
      current = StepWindow{};
    }
  }
  if (!current.steps.empty()) {
    current.index = static_cast<int64_t>(windows.size());
    current.partial = true;
    windows.push_back(std::move(current));
  }
  return windows;
}

}  // namespace prof
