#pragma once
// Start times in a chunk are delta-encoded per record list (FORMAT.md, Time):
// the first record is relative to Chunk.time_base_ns, each later one to the
// previous record of the same list. Deltas are signed because records of
// different threads are not sorted.
#include <cstdint>

namespace prof::analyzer {

class DeltaDecoder {
 public:
  explicit DeltaDecoder(uint64_t timeBaseNs) : previous_(timeBaseNs) {}

  uint64_t next(int64_t deltaNs) {
    // Unsigned wrap-around: a corrupt delta must not be signed-overflow UB.
    previous_ += static_cast<uint64_t>(deltaNs);
    return previous_;
  }

 private:
  uint64_t previous_;
};

// end = start + duration, saturating so a corrupt duration cannot wrap
// around to before the start.
inline uint64_t endOf(uint64_t startNs, uint64_t durationNs) {
  return durationNs > UINT64_MAX - startNs ? UINT64_MAX : startNs + durationNs;
}

}  // namespace prof::analyzer
