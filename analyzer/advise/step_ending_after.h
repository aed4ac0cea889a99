#pragma once
// The first of a process's steps that ends after a time, for times that
// come mostly rising: a device's idle pieces, in start order, charged to
// the steps they overlap (advise.cpp, charge_idle_to_steps).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "window/steps.h"

namespace prof::analyzer {

// std::upper_bound's answer over the steps' ends (the first step with
// end_ns > t). Where the ends rise (never fall: the steps do not nest), the
// answer for a later time is at or after the last one, so it is walked to
// from there; a binary search per piece over thousands of steps was 95 M
// instructions at 1M events, the most of advise's work after the pieces,
// for about 50 pieces a step. Where the ends do not rise, or the time goes
// back, the binary search is made as before, so its answer, whatever the
// list, is the same.
class StepEndingAfter {
 public:
  using Iterator = std::vector<Step>::const_iterator;

  explicit StepEndingAfter(const std::vector<Step>& steps)
      : steps_(steps),
        ends_rise_(std::is_sorted(steps.begin(), steps.end(),
                                  [](const Step& a, const Step& b) { return a.end_ns < b.end_ns; })),
        last_(steps.begin()) {}

  Iterator at(uint64_t t) {
    if (ends_rise_ && asked_ && t >= last_t_) {
      while (last_ != steps_.end() && last_->end_ns <= t) ++last_;
    } else {
      last_ = std::upper_bound(steps_.begin(), steps_.end(), t,
                               [](uint64_t time, const Step& step) { return time < step.end_ns; });
    }
    asked_ = true;
    last_t_ = t;
    return last_;
  }

 private:
  const std::vector<Step>& steps_;
  bool ends_rise_;
  bool asked_ = false;
  uint64_t last_t_ = 0;
  Iterator last_;
};

}  // namespace prof::analyzer
