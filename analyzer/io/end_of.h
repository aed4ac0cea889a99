#pragma once
// A record's end from its start and duration. (Start times themselves come
// out of the generated decoder absolute: io/records.h.)
#include <cstdint>

namespace prof::analyzer {

// end = start + duration, saturating so a corrupt duration cannot wrap
// around to before the start.
inline uint64_t end_of(uint64_t start_ns, uint64_t duration_ns) {
  return duration_ns > UINT64_MAX - start_ns ? UINT64_MAX : start_ns + duration_ns;
}

}  // namespace prof::analyzer
