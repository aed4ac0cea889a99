#include "common/tick_calibration.h"

#include <algorithm>

namespace prof {

void TickCalibration::add(TickPair pair) {
  if (identity_) return;
  if (pairs_.empty()) {
    pairs_.push_back({pair.ticks, pair.ns, 0});
    return;
  }
  const Pair& last = pairs_.back();
  if (pair.ticks <= last.ticks || pair.ns <= last.ns) return;
  if (pairs_.size() >= 2 && pair.ns - last.ns < kMinSpacingNs) return;
  const uint64_t span = pair.ticks - last.ticks;
  const uint64_t rate = static_cast<uint64_t>(((static_cast<TickProduct>(pair.ns - last.ns) << 32) + span / 2) / span);
  pairs_.back().ns_per_tick_q32 = rate;
  if (pairs_.size() == 1) pairs_.front().ns_per_tick_q32 = rate;
  if (pairs_.size() >= kMaxPairs) pairs_.erase(pairs_.begin(), pairs_.begin() + kMaxPairs / 2);
  pairs_.push_back({pair.ticks, pair.ns, rate});
}

const TickCalibration::Pair& TickCalibration::segment_of(uint64_t ticks) const {
  // The last pair at or before `ticks`; records come in time order per
  // thread, mostly from the last segment or two.
  const auto after = std::upper_bound(pairs_.begin(), pairs_.end(), ticks,
                                      [](uint64_t t, const Pair& pair) { return t < pair.ticks; });
  return after == pairs_.begin() ? pairs_.front() : *(after - 1);
}

}  // namespace prof
