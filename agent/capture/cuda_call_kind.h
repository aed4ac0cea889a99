#pragma once
// What a CUDA API function is, by its name: decides whether it is recorded
// by default and whether it gets a call stack.
#include <cupti_callbacks.h>

#include <cstdint>
#include <span>

namespace prof {

// In this order: the kinds recorded by default and neither starting nor
// stopping the profiler range (other to allocation) one run of values, and
// those that describe work (launch to allocation) the end of it, so that the
// CUPTI callbacks test each as one range (cuda_capture.cpp, is_plain).
// Nothing stores these values.
enum class CudaCallKind : uint8_t {
  unknown = 0,  // not yet classified
  other,
  launch,
  copy,
  memset,
  synchronization,
  allocation,
  query,  // skipped unless PROF_API=all: cheap lookups that only add noise
  profiler_start,
  profiler_stop,
};

CudaCallKind classify_cuda_call(const char* function_name);

// CUPTI's runtime and driver callback ids stay below this (CUDA 13: runtime
// 522, driver 806; later releases only add ids): the tables the agent keeps
// per callback id are this long, and an id beyond it is looked at afresh on
// every call.
constexpr uint32_t kMaxCallbackId = 2048;

// The callback ids of the query calls of a domain, as far as the CUPTI
// headers name them; classify_cuda_call still catches any other.
std::span<const CUpti_CallbackId> query_callback_ids(CUpti_CallbackDomain domain);

// Calls that start or wait for GPU work or memory: they take a stack, and
// one nested in another of them is described by the outer call.
inline bool describes_work(CudaCallKind kind) {
  static_assert(static_cast<int>(CudaCallKind::allocation) - static_cast<int>(CudaCallKind::launch) == 4);
  return kind >= CudaCallKind::launch && kind <= CudaCallKind::allocation;
}

}  // namespace prof
