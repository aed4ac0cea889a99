// The writer's host ticks -> CLOCK_MONOTONIC arithmetic, fed by a fake tick
// source whose true relation to the monotonic clock the test knows: a TSC
// at a fixed rate, and CLOCK_MONOTONIC slewed by NTP against it.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "common/host_clock.h"
#include "common/tick_calibration.h"

namespace {

using prof::TickCalibration;
using prof::TickPair;

// A fake machine: ticks at `ticks_per_ns` from `origin_ticks`; the
// monotonic clock runs at 1 + `slew_ppm` ns per true ns after
// `slew_from_ns` (NTP correcting an offset). ns_at(ticks) is the truth.
struct FakeClock {
  double ticks_per_ns = 2.445426;  // this VM's TSC
  uint64_t origin_ticks = 123'456'789'000;
  uint64_t origin_ns = 50'000'000'000;
  double slew_ppm = 0;
  double slew_from_ns = 0;

  double true_ns(uint64_t ticks) const {
    return (static_cast<double>(ticks) - static_cast<double>(origin_ticks)) / ticks_per_ns;
  }
  uint64_t ns_at(uint64_t ticks) const {
    const double t = true_ns(ticks);
    const double slewed = t <= slew_from_ns ? t : slew_from_ns + (t - slew_from_ns) * (1 + slew_ppm * 1e-6);
    return static_cast<uint64_t>(std::llround(static_cast<double>(origin_ns) + slewed));
  }
  uint64_t ticks_after_ns(double ns) const { return origin_ticks + static_cast<uint64_t>(ns * ticks_per_ns); }
  // A pair as read_tick_pair reads it: the true ns of `ticks`, off by
  // `error_ns` (the reading's own error).
  TickPair pair_at_ns(double ns, int64_t error_ns = 0) const {
    const uint64_t ticks = ticks_after_ns(ns);
    return {ticks, static_cast<uint64_t>(static_cast<int64_t>(ns_at(ticks)) + error_ns)};
  }
};

int64_t error_of(const TickCalibration& clock, const FakeClock& fake, uint64_t ticks) {
  return static_cast<int64_t>(clock.to_ns(ticks)) - static_cast<int64_t>(fake.ns_at(ticks));
}

}  // namespace

TEST_CASE("without a TSC, ticks are ns and pass through unchanged") {
  TickCalibration clock;  // identity
  clock.add({100, 5});
  CHECK(clock.identity());
  CHECK(clock.pairs() == 0);
  CHECK(clock.to_ns(123'456'789) == 123'456'789);
}

TEST_CASE("two pairs place every time between them, before and after, on the TSC's line") {
  const FakeClock fake;
  TickCalibration clock(false);
  clock.add(fake.pair_at_ns(0));
  CHECK(clock.ns_per_tick_q32() == 0);  // one pair gives no rate
  clock.add(fake.pair_at_ns(10e6));     // 10 ms later
  CHECK(clock.pairs() == 2);
  for (double at_ns : {0.0, 1.0, 1234.5, 5e6, 10e6, 10e6 + 1, 20e6, 1e9}) {
    INFO("at " << at_ns << " ns");
    CHECK(std::abs(error_of(clock, fake, fake.ticks_after_ns(at_ns))) <= 1);
  }
  // A record read just before the first pair (the app's first event).
  CHECK(std::abs(error_of(clock, fake, fake.origin_ticks - 2'000)) <= 1);
}

TEST_CASE("pairs read with a few ns of error keep every time within a microsecond") {
  const FakeClock fake;
  TickCalibration clock(false);
  clock.add(fake.pair_at_ns(0, 30));
  clock.add(fake.pair_at_ns(50e3, -30));  // a process that records for 50 us
  int64_t worst = 0;
  for (double at_ns = 0; at_ns <= 50e3; at_ns += 997) {
    worst = std::max(worst, std::abs(error_of(clock, fake, fake.ticks_after_ns(at_ns))));
  }
  CHECK(worst <= 30);
  // Beyond the last pair the rate's error grows with the distance: the
  // writer adds a pair every pass, so the distance stays a pass or two.
  CHECK(std::abs(error_of(clock, fake, fake.ticks_after_ns(100e3))) <= 200);
}

TEST_CASE("pairs every pass follow CLOCK_MONOTONIC as NTP slews it") {
  FakeClock fake;
  fake.slew_ppm = 500;  // the kernel's largest adjtime slew
  fake.slew_from_ns = 1e9;
  TickCalibration clock(false);
  for (double at_ns = 0; at_ns <= 3e9; at_ns += 10e6) clock.add(fake.pair_at_ns(at_ns));
  int64_t worst = 0;
  for (double at_ns = 0; at_ns <= 3e9; at_ns += 1.37e6) {
    worst = std::max(worst, std::abs(error_of(clock, fake, fake.ticks_after_ns(at_ns))));
  }
  CHECK(worst <= 2);
  // One rate for the whole run, as the first two pairs give it, would be
  // off by 500 ppm of the 2 s after the slew began: a millisecond.
  TickCalibration one_rate(false);
  one_rate.add(fake.pair_at_ns(0));
  one_rate.add(fake.pair_at_ns(10e6));
  CHECK(std::abs(error_of(one_rate, fake, fake.ticks_after_ns(3e9))) > 900'000);
}

TEST_CASE("times never run backwards across segments, and old times use the oldest line kept") {
  FakeClock fake;
  fake.slew_ppm = -300;
  fake.slew_from_ns = 5e6;
  TickCalibration clock(false);
  for (int pass = 0; pass < 3 * static_cast<int>(TickCalibration::kMaxPairs); ++pass) {
    clock.add(fake.pair_at_ns(pass * 2e6, pass % 2 == 0 ? 20 : -20));
  }
  CHECK(clock.pairs() <= TickCalibration::kMaxPairs);
  uint64_t previous = 0;
  for (double at_ns = 0; at_ns <= 3 * TickCalibration::kMaxPairs * 2e6; at_ns += 0.77e6) {
    const uint64_t ns = clock.to_ns(fake.ticks_after_ns(at_ns));
    CHECK(ns >= previous);
    previous = ns;
  }
  // Within the segments kept, still within the reading error.
  CHECK(std::abs(error_of(clock, fake, fake.ticks_after_ns(3 * TickCalibration::kMaxPairs * 2e6 - 3e6))) <= 40);
}

TEST_CASE("pairs not later than the last are not added; close ones are, beyond them the line spans 1 ms") {
  FakeClock fake;
  TickCalibration clock(false);
  clock.add(fake.pair_at_ns(0));
  clock.add(fake.pair_at_ns(10e3));  // the second: any span will do
  clock.add(fake.pair_at_ns(5e3));   // earlier
  CHECK(clock.pairs() == 2);
  clock.add(fake.pair_at_ns(2e6));
  // Passes 20 us apart under load, each pair read 30 ns off: their own
  // lines would be 1,500 ppm off; the line beyond the last spans 1 ms.
  for (int pass = 1; pass <= 50; ++pass) clock.add(fake.pair_at_ns(2e6 + pass * 20e3, pass % 2 == 0 ? 30 : -30));
  CHECK(clock.pairs() == 53);
  const double last_ns = 2e6 + 50 * 20e3;
  CHECK(std::abs(error_of(clock, fake, fake.ticks_after_ns(last_ns + 100e3))) <= 40);
  // Between pairs, within their reading error.
  CHECK(std::abs(error_of(clock, fake, fake.ticks_after_ns(last_ns - 10e3))) <= 30);
}

TEST_CASE("a time converted before later pairs came converts the same after them") {
  // The writer converts what was committed before its pass's pair: an API
  // call's end in one pass and the memory event the hooks recorded at the
  // same ticks in the next must read the same ns, however close the passes
  // (under load they come every few hundred microseconds).
  FakeClock fake;
  fake.slew_ppm = 200;
  TickCalibration clock(false);
  std::vector<uint64_t> ticks;
  std::vector<uint64_t> first;
  for (int pass = 0; pass < 2000; ++pass) {
    const double pair_ns = pass * 310e3 + (pass % 7) * 11e3;
    clock.add(fake.pair_at_ns(pair_ns, pass % 2 == 0 ? 25 : -25));
    if (pass == 0) continue;
    // What this pass drains: committed before its pair.
    for (double before_ns : {150e3, 40e3, 1.0}) {
      ticks.push_back(fake.ticks_after_ns(pair_ns - before_ns));
      first.push_back(clock.to_ns(ticks.back()));
    }
  }
  for (size_t i = 0; i < ticks.size(); ++i) {
    INFO("ticks " << ticks[i]);
    CHECK(clock.to_ns(ticks[i]) == first[i]);
  }
}

TEST_CASE("past the pairs kept, older pairs are thinned, not dropped: old times stay on their lines") {
  const FakeClock fake;
  TickCalibration clock(false);
  for (int pass = 0; pass < 3 * static_cast<int>(TickCalibration::kMaxPairs); ++pass) {
    clock.add(fake.pair_at_ns(pass * 1e6, pass % 2 == 0 ? 20 : -20));
  }
  CHECK(clock.pairs() <= TickCalibration::kMaxPairs);
  // The first pass's times, and one in the middle, still within the reading error.
  CHECK(std::abs(error_of(clock, fake, fake.ticks_after_ns(0.5e6))) <= 40);
  CHECK(std::abs(error_of(clock, fake, fake.ticks_after_ns(1.5 * TickCalibration::kMaxPairs * 1e6))) <= 40);
}

TEST_CASE("host ticks read now convert back to about now, on the TSC and on the forced fallback") {
  // Whatever this machine chose: a tick read now is now, give or take the
  // time between the two reads.
  const uint64_t ticks = prof::host_ticks();
  const uint64_t before = prof::monotonic_ns();
  const uint64_t ns = prof::host_ticks_to_ns_now(ticks);
  CHECK(ns <= prof::monotonic_ns());
  // Not a timing test: a loaded machine may preempt between the reads.
  CHECK(ns + 1'000'000'000 >= before);
  if (prof::host_ticks_are_tsc()) {
    const TickPair first = prof::first_tick_pair();
    CHECK(first.ticks != 0);
    CHECK(first.ns != 0);
  }
}

TEST_CASE("a start converted on the app thread (a step boundary) passes through as the ns it holds") {
  const FakeClock fake;
  TickCalibration clock(false);
  clock.add(fake.pair_at_ns(0));
  clock.add(fake.pair_at_ns(10e6));
  CHECK(clock.to_ns(prof::ns_in_place_of_ticks(fake.origin_ns + 1234)) == fake.origin_ns + 1234);
  CHECK(TickCalibration().to_ns(prof::ns_in_place_of_ticks(777)) == 777);
  CHECK(prof::host_ticks_to_ns_now(prof::ns_in_place_of_ticks(888)) == 888);
}

TEST_CASE("an interval's two ends convert as each converts alone") {
  // The writer's to_ns(start, end) takes one segment for both where it can:
  // every pair of times around and between the last pairs, the app thread's
  // ns marks and ends before starts included, must give to_ns()'s answers.
  FakeClock fake;
  fake.slew_ppm = 400;
  fake.slew_from_ns = 3e6;
  TickCalibration clock(false);
  std::vector<uint64_t> times;
  for (int pass = 0; pass < 6; ++pass) {
    // Pairs 2.5 ms apart, each but the first followed 0.2 ms later by
    // another: the last pair's line beyond it then runs over 1 ms and more,
    // not along the segment before it.
    if (pass > 0) clock.add(fake.pair_at_ns(pass * 2.5e6, pass % 3 - 1));
    if (pass > 1) clock.add(fake.pair_at_ns(pass * 2.5e6 + 2e5, 1 - pass % 3));
    times.push_back(fake.origin_ticks - 2'000);  // before the first pair
    for (double at_ns : {0.0, 1.0, 1.2e6, 2.5e6 - 1, 2.5e6, 2.5e6 + 1, 2.6e6, 2.7e6, 4e6, 5e6 - 1, 5e6, 5e6 + 2,
                         5.1e6, 5.2e6 + 1, 7.5e6, 7.6e6, 1e7, 1.01e7, 1.02e7, 1.25e7, 1.25e7 + 1, 1.26e7, 1.27e7, 1.3e7,
                         2e7}) {
      times.push_back(fake.ticks_after_ns(at_ns));
    }
    times.push_back(prof::ns_in_place_of_ticks(42'000));
    size_t checked = 0;
    for (uint64_t start : times) {
      for (uint64_t end : times) {
        uint64_t start_ns = 0;
        uint64_t end_ns = 0;
        clock.to_ns(start, end, start_ns, end_ns);
        if (start_ns != clock.to_ns(start) || end_ns != clock.to_ns(end)) {
          FAIL_CHECK("pass " << pass << ": " << start << ", " << end << " -> " << start_ns << ", " << end_ns);
        }
        ++checked;
      }
    }
    CHECK(checked == times.size() * times.size());
  }
  TickCalibration identity;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  identity.to_ns(7, 5, start_ns, end_ns);
  CHECK((start_ns == 7 && end_ns == 5));
}
