// The one clock of simcuda: CLOCK_MONOTONIC nanoseconds, shared by host and device time.
#pragma once

#include <cstdint>
#include <ctime>

namespace simcuda {

inline uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// Blocks the calling thread until the simulated device time `deadline_ns` has passed,
// so that a synchronising call never returns before the work it waits for has ended.
inline void sleep_until_ns(uint64_t deadline_ns) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(deadline_ns / 1000000000ull);
  ts.tv_nsec = static_cast<long>(deadline_ns % 1000000000ull);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
  }
}

}  // namespace simcuda
