#pragma once
// Host ticks (host_clock.h) -> CLOCK_MONOTONIC ns, on the writer thread.
// The writer adds a (ticks, ns) pair on each of its passes, before it
// drains, and drains only what was committed before the pair was read
// (Writer::run), so every time it converts lies before the newest pair and
// is placed on the line through the two pairs around it. That makes a
// conversion final: the same ticks give the same ns whichever pass converts
// them (an API call's end and the memory event the hooks record at that
// same instant, in two records a pass may fall between). Only times read
// after the last pair, in the writer's final pass and on an app thread
// (host_ticks_to_ns_now), are placed beyond it, on a line fitted over at
// least kMinSpacingNs. Pairs are a few milliseconds apart, so the lines
// follow CLOCK_MONOTONIC as NTP slews it (up to 500 ppm: a single rate for
// the whole run would drift by milliseconds an hour), and each pair is read
// to a few ns, so a time is within a few ns of what clock_gettime would
// have said.
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
  // The least span of the line a time beyond the last pair is placed on:
  // two pairs a pass apart (under load, tens of microseconds) would give a
  // rate off by their few ns of reading error over that short span.
  static constexpr uint64_t kMinSpacingNs = 1'000'000;
  // Pairs kept: when there are more, every other one of the older half goes
  // (older times on coarser lines, back to the first pair).
  static constexpr size_t kMaxPairs = 4096;

  // A pair read after every pair added before. Ignored when it is not later
  // in both clocks.
  void add(TickPair pair);
  size_t pairs() const { return pairs_.size(); }
  TickPair last_pair() const { return pairs_.empty() ? TickPair{0, 0} : TickPair{pairs_.back().ticks, pairs_.back().ns}; }
  // The rate times beyond the last pair are placed at, ns per tick * 2^32,
  // over the last kMinSpacingNs at least (or since the first pair); 0
  // before two pairs.
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

  // Both ends of an interval (an API call's), each exactly what to_ns()
  // makes of it, with one look for the segment when both lie in the same
  // one of the last two, as a pass's records mostly do (the writer converts
  // two times per call: ~50 instructions as two to_ns()).
  void to_ns(uint64_t start, uint64_t end, uint64_t& start_ns, uint64_t& end_ns) const {
    const size_t n = pairs_.size();
    if (!identity_ && n >= 2 && !is_marked_ns(start | end) && start <= end) [[likely]] {
      // to_ns() takes the last pair's line from its ticks on, the one
      // before's between the two: an end at or after its start lies on the
      // start's line unless the start is before the last pair and the end
      // at or after it.
      const Pair& last = pairs_[n - 1];
      const Pair& previous = pairs_[n - 2];
      const Pair* from = start >= last.ticks                          ? &last
                         : start >= previous.ticks && end < last.ticks ? &previous
                                                                        : nullptr;
      if (from != nullptr) {
        start_ns = from->ns + scale(start - from->ticks, from->ns_per_tick_q32);
        end_ns = from->ns + scale(end - from->ticks, from->ns_per_tick_q32);
        return;
      }
    }
    start_ns = to_ns(start);
    end_ns = to_ns(end);
  }

 private:
  // A pair, and the rate of the line from it to the next pair (the last
  // pair: the rate over at least kMinSpacingNs before it, carried on).
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
  static uint64_t rate_between(const Pair& from, TickPair to);
  // Every other pair of the older half out, the lines between those kept
  // drawn again.
  void thin_older_half();

  bool identity_;
  std::vector<Pair> pairs_;
  // The segment segment_of() found last: the records of a pass that come
  // from before the last two pairs are mostly of one older segment (a
  // thread's calls in time order), found again with two compares instead
  // of a binary search of up to kMaxPairs (callgrind, tiny_kernels: one
  // call in ten, ~90 instructions each). Any index is only a guess, checked
  // against the pairs around it, so thinning need not keep it right.
  mutable size_t last_segment_ = 0;
};

}  // namespace prof
