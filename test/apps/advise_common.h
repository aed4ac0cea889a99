// Shared by the advise apps (one planted problem each): host work that takes
// a known time, as data loading or logging would.
#pragma once

#include <time.h>

#include "app_common.h"

// Busy-waits `us` microseconds of CPU time on the calling thread.
__attribute__((noinline)) inline void spin_us(long us) {
  timespec start{}, now{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}
