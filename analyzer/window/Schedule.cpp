#include "window/Schedule.h"

namespace prof::analyzer {

std::string Schedule::validate() const {
  if (active <= 0) return "--active must be greater than 0";
  if (skipFirst < 0 || wait < 0 || warmup < 0 || repeat < 0)
    return "--skip-first, --wait, --warmup and --repeat must not be negative";
  return {};
}

ScheduleAction scheduleAction(const Schedule& s, int64_t step) {
  if (step < s.skipFirst) return ScheduleAction::kNone;
  step -= s.skipFirst;
  const int64_t cycle = s.wait + s.warmup + s.active;
  if (s.repeat > 0 && step / cycle >= s.repeat) return ScheduleAction::kNone;
  const int64_t m = step % cycle;
  if (m < s.wait) return ScheduleAction::kNone;
  if (m < s.wait + s.warmup) return ScheduleAction::kWarmup;
  return m < cycle - 1 ? ScheduleAction::kRecord : ScheduleAction::kRecordAndSave;
}

std::vector<StepWindow> scheduleWindows(const Schedule& schedule, int64_t stepCount) {
  std::vector<StepWindow> windows;
  StepWindow current;
  for (int64_t step = 0; step < stepCount; ++step) {
    const ScheduleAction action = scheduleAction(schedule, step);
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

}  // namespace prof::analyzer
