#pragma once
// The one clock of the agent (see proto/FORMAT.md, "Time").
#include <cerrno>
#include <cstdint>
#include <ctime>

namespace prof {

// CLOCK_MONOTONIC goes through the vDSO: no syscall on the hot path.
inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Sleeps `ms` in all, resuming after signals; async-signal-safe (the crash
// handler naps while the writer flushes).
inline void sleep_ms(uint32_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1'000'000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

}  // namespace prof
