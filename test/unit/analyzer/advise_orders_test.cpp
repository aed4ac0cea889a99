// The orders advise takes without a sort where its input already gives
// them: each answer against the sort it stands for, on random input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "advise/outermost_calls.h"
#include "advise/step_ending_after.h"
#include "nested_family.h"
#include "model/sorted_runs.h"
#include "window/steps.h"

using namespace prof::analyzer;
using prof::testing::nested_family;

namespace {

using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;

// One thread's API calls, one per interval, in the given order.
void add_calls(Run& run, uint32_t tid, const Intervals& intervals) {
  for (auto [start, end] : intervals) {
    CpuEvent e;
    e.kind = CpuEventKind::kApiCall;
    e.tid = tid;
    e.start_ns = start;
    e.end_ns = end;
    run.cpu_events.push_back(e);
  }
}

// The rule as stated: a thread's calls in table order sorted by (start,
// -end), each kept that starts where the last kept one ended or later.
OutermostCalls sorted_rule(const Run& run) {
  OutermostCalls all;
  for (size_t i = 0; i < run.cpu_events.size(); ++i)
    if (run.cpu_events[i].kind == CpuEventKind::kApiCall)
      all[{run.cpu_events[i].process, run.cpu_events[i].tid}].push_back(static_cast<uint32_t>(i));
  for (auto& [thread, calls] : all) {
    std::sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) {
      const CpuEvent& x = run.cpu_events[a];
      const CpuEvent& y = run.cpu_events[b];
      return x.start_ns != y.start_ns ? x.start_ns < y.start_ns : x.end_ns > y.end_ns;
    });
    std::vector<uint32_t> kept;
    for (uint32_t i : calls)
      if (kept.empty() || run.cpu_events[i].start_ns >= run.cpu_events[kept.back()].end_ns) kept.push_back(i);
    calls = kept;
  }
  return all;
}

bool end_order_walk_answers(const Intervals& intervals) {
  Run run;
  add_calls(run, 1, intervals);
  std::vector<uint32_t> calls(intervals.size());
  for (uint32_t i = 0; i < calls.size(); ++i) calls[i] = i;
  return outermost_in_end_order(run.cpu_events, calls);
}

}  // namespace

TEST_CASE("Outermost calls: a properly nested family in end order is walked, and the answer is the sort's",
          "[advise]") {
  std::mt19937 random(5);
  for (int round = 0; round < 500; ++round) {
    Intervals family;
    nested_family(random, 0, 300, 4, family);
    if (family.empty()) continue;
    REQUIRE(end_order_walk_answers(family));
    // Two threads, their calls interleaved in the table; the second's in
    // start order (a bench capture's): parents before children.
    Intervals in_start_order = family;
    std::sort(in_start_order.begin(), in_start_order.end(), [](auto a, auto b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    Run run;
    for (size_t k = 0; k < std::max(family.size(), in_start_order.size()); ++k) {
      if (k < family.size()) add_calls(run, 1, {family[k]});
      if (k < in_start_order.size()) add_calls(run, 2, {in_start_order[k]});
    }
    REQUIRE(outermost_calls(run) == sorted_rule(run));
  }
}

TEST_CASE("Outermost calls: ties, overlaps, empty calls and any order give the sort's answer", "[advise]") {
  std::mt19937 random(17);
  int walked = 0, declined = 0;
  for (int round = 0; round < 20000; ++round) {
    Intervals intervals(1 + random() % 7);
    for (auto& [start, end] : intervals) {
      start = random() % 12;
      end = start + random() % 6;
    }
    // Mostly end order or start order, sometimes neither.
    const unsigned order = random() % 3;
    if (order == 0)
      std::stable_sort(intervals.begin(), intervals.end(), [](auto a, auto b) { return a.second < b.second; });
    if (order == 1)
      std::stable_sort(intervals.begin(), intervals.end(), [](auto a, auto b) { return a.first < b.first; });
    (end_order_walk_answers(intervals) ? walked : declined)++;
    Run run;
    add_calls(run, 1, intervals);
    add_calls(run, 2, {{3, 5}});
    REQUIRE(outermost_calls(run) == sorted_rule(run));
  }
  CHECK(walked > 1000);
  CHECK(declined > 1000);
}

TEST_CASE("A few rising runs merged are the values sorted", "[advise]") {
  std::mt19937_64 random(23);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint64_t> values;
    const size_t runs = random() % 12;
    for (size_t r = 0; r < runs; ++r) {
      uint64_t at = random() % 50;
      for (size_t k = random() % 20; k > 0; --k) values.push_back(at += random() % 4);
    }
    std::vector<uint64_t> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    merge_rising_runs(values, std::less<uint64_t>());
    REQUIRE(values == sorted);
  }
}

TEST_CASE("A few rising runs merged through a heap give the sort's order, or say a tie leaves it open",
          "[advise]") {
  struct Keyed {
    uint64_t start_ns;
    uint32_t index;
  };
  std::mt19937_64 random(29);
  int merged = 0, tied = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<Keyed> keyed;
    const size_t runs = random() % 12;
    // Even rounds: close starts, with ties within a run and across runs;
    // odd ones: far apart, rising strictly, ties rare.
    const bool close = round % 2 == 0;
    for (size_t r = 0; r < runs; ++r) {
      uint64_t at = random() % (close ? 200 : 1'000'000);
      for (size_t k = random() % 20; k > 0; --k) {
        at += close ? random() % 4 : 1 + random() % 1000;
        keyed.push_back({at, static_cast<uint32_t>(keyed.size())});
      }
    }
    std::vector<Keyed> sorted = keyed;
    std::stable_sort(sorted.begin(), sorted.end(), [](const Keyed& a, const Keyed& b) { return a.start_ns < b.start_ns; });
    const bool any_tie = std::adjacent_find(sorted.begin(), sorted.end(), [](const Keyed& a, const Keyed& b) {
                           return a.start_ns == b.start_ns;
                         }) != sorted.end();
    std::vector<uint32_t> out(keyed.size());
    const bool answered = merge_rising_runs_into(keyed, out);
    REQUIRE(answered == !any_tie);
    if (!answered) {
      ++tied;
      continue;
    }
    ++merged;
    for (size_t k = 0; k < sorted.size(); ++k) REQUIRE(out[k] == sorted[k].index);
  }
  CHECK(merged > 1000);
  CHECK(tied > 1000);
}

TEST_CASE("A step lookup answers as step_at, asked in any order", "[advise][steps]") {
  std::mt19937_64 random(29);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::vector<Step>> per_process(2);
    for (auto& steps : per_process) {
      uint64_t at = random() % 5;
      for (int64_t i = 0, n = static_cast<int64_t>(random() % 6); i < n; ++i) {
        const uint64_t start = at + random() % 4;  // gaps between steps, or none
        at = start + 1 + random() % 6;
        steps.push_back({i, start, at});
      }
    }
    const RunSteps steps(per_process);
    StepLookup lookup(steps);
    for (int ask = 0; ask < 100; ++ask) {
      const auto process = static_cast<uint32_t>(random() % 2);
      // Mostly rising times, now and then a step back.
      const uint64_t t = random() % 5 == 0 ? random() % 40 : static_cast<uint64_t>(ask) * 40 / 100;
      REQUIRE(lookup.at(process, t) == steps.step_at(process, t));
    }
  }
}

// The binary search charge_idle_to_steps made per idle piece, as it was.
std::vector<Step>::const_iterator first_ending_after(const std::vector<Step>& steps, uint64_t t) {
  return std::upper_bound(steps.begin(), steps.end(), t, [](uint64_t time, const Step& s) { return time < s.end_ns; });
}

TEST_CASE("The first step ending after a time is the binary search's, asked in any order", "[advise][steps]") {
  std::mt19937_64 random(31);
  int unordered = 0;
  for (int round = 0; round < 2000; ++round) {
    // Steps end to end or with gaps (their ends rise), or now and then
    // nested or out of order (they do not): the binary search's answer on
    // such a list is whatever it is, and must be given all the same.
    const bool shuffled = round % 4 == 0;
    std::vector<Step> steps;
    uint64_t at = random() % 5;
    for (int64_t i = 0, n = static_cast<int64_t>(random() % 12); i < n; ++i) {
      const uint64_t start = at + random() % 4;
      at = start + random() % 6;  // empty steps and equal ends among them
      steps.push_back({i, start, at});
    }
    if (shuffled) {
      std::shuffle(steps.begin(), steps.end(), random);
      unordered += !std::is_sorted(steps.begin(), steps.end(),
                                   [](const Step& a, const Step& b) { return a.end_ns < b.end_ns; });
    }
    StepEndingAfter first_step(steps);
    uint64_t t = 0;
    for (int ask = 0; ask < 60; ++ask) {
      // Mostly rising times, by 0 to a few steps at once; now and then a step back.
      t = random() % 6 == 0 ? random() % (at + 3) : t + random() % 5;
      REQUIRE(first_step.at(t) == first_ending_after(steps, t));
    }
  }
  CHECK(unordered > 100);
}
