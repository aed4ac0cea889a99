#pragma once
// Start times in a chunk are delta-encoded per record list (FORMAT.md, Time):
// the first record is relative to Chunk.time_base_ns, each later one to the
// previous record of the same list. Deltas are signed because records of
// different threads are not sorted.
#include <cstdint>

namespace prof::analyzer {

class DeltaDecoder {
 public:
  explicit DeltaDecoder(uint64_t time_base_ns) : previous_(time_base_ns) {}

  uint64_t next(int64_t delta_ns) {
    // Unsigned wrap-around: a corrupt delta must not be signed-overflow UB.
    previous_ += static_cast<uint64_t>(delta_ns);
    return previous_;
  }

 private:
  uint64_t previous_;
};

// end = start + duration, saturating so a corrupt duration cannot wrap
// around to before the start.
inline uint64_t end_of(uint64_t start_ns, uint64_t duration_ns) {
  return duration_ns > UINT64_MAX - start_ns ? UINT64_MAX : start_ns + duration_ns;
}

}  // namespace prof::analyzer
