// torch.profiler.schedule as a pure function: the worked example of
// REFERENCE-FORMATS.md, and the windows of many parameter combinations
// against a reference written differently (walking the phases of each cycle
// instead of computing each step's action).
#include <catch2/catch.hpp>

#include "schedule.h"

using prof::Schedule;
using prof::ScheduleAction;
using prof::schedule_action;
using prof::schedule_windows;

namespace {

// Independent reference: skip, then per cycle wait, warmup, active steps;
// a cycle's active steps that exist form a window (the last one may be cut
// short by the end of the run; torch saves it when the profiler stops).
std::vector<std::vector<int64_t>> reference_windows(int64_t skip, int64_t wait, int64_t warmup, int64_t active,
                                                   int64_t repeat, int64_t steps) {
  std::vector<std::vector<int64_t>> windows;
  int64_t next = skip;
  for (int64_t cycle = 0; repeat == 0 || cycle < repeat; ++cycle) {
    next += wait + warmup;
    if (next >= steps) break;
    std::vector<int64_t> window;
    for (int64_t s = next; s < next + active && s < steps; ++s) window.push_back(s);
    windows.push_back(window);
    next += active;
  }
  return windows;
}

}  // namespace

TEST_CASE("The schedule's actions match the worked example of torch.profiler.schedule", "[schedule]") {
  const Schedule s{/*skip_first=*/1, /*wait=*/1, /*warmup=*/1, /*active=*/2, /*repeat=*/2};
  using A = ScheduleAction;
  const std::vector<A> expected = {A::kNone,   A::kNone,   A::kWarmup, A::kRecord, A::kRecordAndSave, A::kNone,
                                   A::kWarmup, A::kRecord, A::kRecordAndSave, A::kNone, A::kNone};
  for (int64_t step = 0; step < static_cast<int64_t>(expected.size()); ++step) {
    INFO("step " << step);
    CHECK(schedule_action(s, step) == expected[static_cast<size_t>(step)]);
  }
  const auto windows = schedule_windows(s, 11);
  REQUIRE(windows.size() == 2);
  CHECK(windows[0].steps == std::vector<int64_t>{3, 4});
  CHECK(windows[1].steps == std::vector<int64_t>{7, 8});
  CHECK_FALSE(windows[0].partial);
  CHECK(windows[1].index == 1);
}

TEST_CASE("Schedule windows equal an independent reference for many parameter combinations", "[schedule]") {
  int combinations = 0;
  for (int64_t skip = 0; skip <= 3; ++skip)
    for (int64_t wait = 0; wait <= 3; ++wait)
      for (int64_t warmup = 0; warmup <= 3; ++warmup)
        for (int64_t active = 1; active <= 4; ++active)
          for (int64_t repeat = 0; repeat <= 3; ++repeat)
            for (int64_t steps : {0, 1, 5, 12, 31}) {
              const Schedule s{skip, wait, warmup, active, repeat};
              const auto windows = schedule_windows(s, steps);
              const auto expected = reference_windows(skip, wait, warmup, active, repeat, steps);
              std::vector<std::vector<int64_t>> actual;
              for (const auto& w : windows) actual.push_back(w.steps);
              INFO("skip=" << skip << " wait=" << wait << " warmup=" << warmup << " active=" << active
                           << " repeat=" << repeat << " steps=" << steps);
              REQUIRE(actual == expected);
              for (size_t i = 0; i < windows.size(); ++i) {
                CHECK(windows[i].index == static_cast<int64_t>(i));
                // Only the last window can be cut short by the end of the run.
                CHECK(windows[i].partial == (static_cast<int64_t>(windows[i].steps.size()) < active));
              }
              ++combinations;
            }
  CHECK(combinations == 4 * 4 * 4 * 4 * 4 * 5);
}

TEST_CASE("Schedules torch refuses are refused", "[schedule]") {
  CHECK_FALSE(Schedule{0, 0, 0, 0, 0}.validate().empty());
  CHECK_FALSE(Schedule{-1, 0, 0, 1, 0}.validate().empty());
  CHECK_FALSE(Schedule{0, 0, -2, 1, 0}.validate().empty());
  CHECK(Schedule{0, 0, 0, 1, 0}.validate().empty());
}

TEST_CASE("Warmup steps are never recorded, and repeat=0 cycles to the end", "[schedule]") {
  const Schedule s{0, 1, 2, 1, 0};
  const auto windows = schedule_windows(s, 12);
  REQUIRE(windows.size() == 3);
  CHECK(windows[0].steps == std::vector<int64_t>{3});
  CHECK(windows[2].steps == std::vector<int64_t>{11});
  CHECK(schedule_action(s, 1) == ScheduleAction::kWarmup);
  CHECK(schedule_action(s, 3) == ScheduleAction::kRecordAndSave);
}
