#pragma once
// Where the capture side reports step boundaries it finds (an NVTX range of
// PROF_STEP=nvtx:, a kernel: launch, an api: call): CaptureControl implements
// it, so that capture/ reaches control/ only through this interface.
// Boundaries are rare (a few per step): a virtual call is nothing to them.
#include <cstdint>

namespace prof {

class StepListener {
 public:
  virtual void step_begins(uint64_t now_ns) = 0;
  virtual void step_ends(uint64_t now_ns) = 0;
  // A start rule's boundary: the current step ends where the next begins.
  virtual void step_boundary(uint64_t now_ns) = 0;

 protected:
  ~StepListener() = default;
};

}  // namespace prof
