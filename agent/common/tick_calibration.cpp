#include "common/tick_calibration.h"

#include <algorithm>

namespace prof {

uint64_t TickCalibration::rate_between(const Pair& from, TickPair to) {
  const uint64_t span = to.ticks - from.ticks;
  return static_cast<uint64_t>(((static_cast<TickProduct>(to.ns - from.ns) << 32) + span / 2) / span);
}

void TickCalibration::add(TickPair pair) {
  if (identity_) return;
  if (pairs_.empty()) {
    pairs_.push_back({pair.ticks, pair.ns, 0});
    return;
  }
  Pair& last = pairs_.back();
  if (pair.ticks <= last.ticks || pair.ns <= last.ns) return;
  // Between the last pair and this one: the line through both.
  last.ns_per_tick_q32 = rate_between(last, pair);
  // Beyond this one: the line from the newest pair at least kMinSpacingNs
  // older (pairs come a pass apart, so this looks back a few of them; with
  // one pair so far, the line through both).
  size_t from = pairs_.size() - 1;
  while (from > 0 && pair.ns - pairs_[from].ns < kMinSpacingNs) --from;
  const uint64_t beyond = rate_between(pairs_[from], pair);
  pairs_.push_back({pair.ticks, pair.ns, beyond});
  if (pairs_.size() > kMaxPairs) thin_older_half();
}

void TickCalibration::thin_older_half() {
  const size_t older = pairs_.size() / 2;
  size_t kept = 1;  // the first pair stays: times before it use its line
  for (size_t i = 2; i < older; i += 2) pairs_[kept++] = pairs_[i];
  pairs_.erase(pairs_.begin() + static_cast<ptrdiff_t>(kept), pairs_.begin() + static_cast<ptrdiff_t>(older));
  // The lines from the pairs kept to the next one, drawn again.
  for (size_t i = 0; i < kept; ++i) pairs_[i].ns_per_tick_q32 = rate_between(pairs_[i], {pairs_[i + 1].ticks, pairs_[i + 1].ns});
}

const TickCalibration::Pair& TickCalibration::segment_of(uint64_t ticks) const {
  // The last pair at or before `ticks`; records come in time order per
  // thread, mostly from the last segment or two. Pairs' ticks only rise, so
  // a segment whose pair is at or before `ticks` and whose next pair is
  // after it is the one.
  const size_t guess = last_segment_;
  if (guess + 1 < pairs_.size() && pairs_[guess].ticks <= ticks && ticks < pairs_[guess + 1].ticks) {
    return pairs_[guess];
  }
  const auto after = std::upper_bound(pairs_.begin(), pairs_.end(), ticks,
                                      [](uint64_t t, const Pair& pair) { return t < pair.ticks; });
  if (after == pairs_.begin()) return pairs_.front();
  last_segment_ = static_cast<size_t>(after - 1 - pairs_.begin());
  return *(after - 1);
}

}  // namespace prof
