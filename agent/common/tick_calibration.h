#pragma once
// Host ticks (host_clock.h) -> CLOCK_MONOTONIC ns, on the writer thread.
// The writer adds a (ticks, ns) pair on each of its passes; a time between
// two pairs is placed on the line through them, one after the last pair on
// the last segment's line, one before the first on the first's. Pairs are
// a few milliseconds apart, so the line follows CLOCK_MONOTONIC as NTP
// slews it (up to 500 ppm: a single rate for the whole run would drift by
// milliseconds an hour), and each pair is read to a few ns, so a time is
// within well under a microsecond of what clock_gettime would have said.
// Pure arithmetic: tick_calibration_test.cpp feeds it a fake tick source.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/host_clock.h"

namespace prof {

class TickCalibration {
 public:
  // `identity`: ticks are ns already (no invariant TSC, PROF_CLOCK=monotonic).
  explicit TickCalibration(bool identity = true) : identity_(identity) {}

  bool identity() const { return identity_; }
  // Pairs closer than this to the last one are not added (but for the
  // second, which any span will do: a process that records for 50 us).
  static constexpr uint64_t kMinSpacingNs = 1'000'000;
  // Segments kept: older times are placed on the oldest line kept.
  static constexpr size_t kMaxPairs = 4096;

  // A pair read after every pair added before. Ignored when it is not later
  // in both clocks, or too close to the last.
  void add(TickPair pair);
  size_t pairs() const { return pairs_.size(); }
  TickPair last_pair() const { return pairs_.empty() ? TickPair{0, 0} : TickPair{pairs_.back().ticks, pairs_.back().ns}; }
  // The latest segment's rate, ns per tick * 2^32; 0 before two pairs.
  uint64_t ns_per_tick_q32() const { return pairs_.size() < 2 ? 0 : pairs_.back().ns_per_tick_q32; }

  uint64_t to_ns(uint64_t ticks) const {
    if (is_marked_ns(ticks)) return ticks & ~kNsMark;  // converted on the app thread already
    if (identity_ || pairs_.empty()) return ticks;
    // The writer adds a pair as each pass begins, then converts what the
    // rings hold: mostly times of the last segment, found without a search.
    const size_t n = pairs_.size();
    const Pair& from = ticks >= pairs_[n - 1].ticks               ? pairs_[n - 1]
                       : n >= 2 && ticks >= pairs_[n - 2].ticks ? pairs_[n - 2]
                                                                : segment_of(ticks);
    if (ticks >= from.ticks) return from.ns + scale(ticks - from.ticks, from.ns_per_tick_q32);
    const uint64_t before = scale(from.ticks - ticks, from.ns_per_tick_q32);
    return from.ns > before ? from.ns - before : 0;
  }

 private:
  // A pair, and the rate of the line from it to the next pair (the last
  // pair: its segment's rate, carried on).
  struct Pair {
    uint64_t ticks;
    uint64_t ns;
    uint64_t ns_per_tick_q32;
  };
  static uint64_t scale(uint64_t ticks, uint64_t ns_per_tick_q32) {
    // Rounded to the nearest ns.
    return static_cast<uint64_t>((static_cast<TickProduct>(ticks) * ns_per_tick_q32 + (1u << 31)) >> 32);
  }
  // The pair that begins the segment holding `ticks` (the first pair for
  // times before it).
  const Pair& segment_of(uint64_t ticks) const;

  bool identity_;
  std::vector<Pair> pairs_;
};

}  // namespace prof
