#pragma once
// PROF_CAPTURE=cudaProfilerApi, like nsys --capture-range=cudaProfilerApi:
// everything the agent captures (CUDA calls, GPU work, NVTX) is recorded only
// between cudaProfilerStart and cudaProfilerStop. With PROF_CAPTURE=all the
// range is always open.
#include <atomic>

namespace prof {

inline std::atomic<bool> g_capture_range_open{true};

inline bool capture_range_open() { return g_capture_range_open.load(std::memory_order_acquire); }
inline void set_capture_range_open(bool open) {
  g_capture_range_open.store(open, std::memory_order_release);
}

}  // namespace prof
