#pragma once
// What capture windows switch in the capture side: the window gate app
// threads read before recording, the budget gate, and whether CUPTI delivers
// everything or only what finds step boundaries. Implemented by
// capture/capture_range.h (CaptureGates); CaptureControl's unit test uses a
// fake that records the calls.
#include <cstdint>

namespace prof {

class CaptureSwitch {
 public:
  // Opens or closes the window gate at `time_ns` (GPU records are cut there).
  virtual void set_window_open(bool open, uint64_t time_ns) = 0;
  // PROF_MAX_MB was reached: nothing is recorded from `time_ns` on.
  virtual void close_for_good(uint64_t time_ns) = 0;
  // Full CUDA capture (every callback and activity kind) or quiet.
  virtual void set_cuda_full(bool full) = 0;

 protected:
  ~CaptureSwitch() = default;
};

}  // namespace prof
