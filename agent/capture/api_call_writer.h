#pragma once
// The one writer of an API call's record, for both paths that see calls:
// CUPTI's callbacks (cuda_capture.cpp) and the hooks (hooks/hooked_call.cpp).
// Each says what it knows of the call; this takes the stack, truncates the
// kernel name, fills the record and commits it, as every Tracy emitter goes
// through one prepare/fill/commit.
#include <cstdint>
#include <cstring>

#include "capture/cuda_call_args.h"
#include "capture/cuda_call_kind.h"
#include "encode/file_records.h"
#include "record/records.h"
#include "record/recorder.h"
#include "stacks/call_stack.h"

namespace prof {

// What decides an API call's record's size, known before it is reserved:
// whether it takes a stack, and the kernel name it carries.
struct ApiCallShape {
  CudaCallKind kind = CudaCallKind::unknown;
  // Inside another call that describes work on this thread (cuLaunchKernel
  // inside cudaLaunchKernel): the outer call, which shares its correlation
  // id, carries the stack, the arguments and the kernel's name.
  bool nested = false;
  const char* kernel_name = nullptr;  // a launch's kernel, when known
};

// The rest of what the path that saw the call knows of it.
struct ApiCallSeen {
  uint64_t start_ticks = 0;  // host ticks (common/host_clock.h)
  uint64_t end_ticks = 0;
  const char* function_name = nullptr;  // static for the life of the process
  uint32_t correlation_id = 0;
  int32_t return_code = 0;
  file::ApiDomain domain = file::ApiDomain::runtime;
  file::CaptureBackend backend = file::CaptureBackend::cupti;
  uint16_t callback_id = 0;
  const void* params = nullptr;  // the call's parameters, as CUPTI lays them out
};

// Always inlined, so that `agent_frames` (the agent's frames at the leaf,
// which the stack walk skips) counts its callers' frames only. `stacks`:
// null when no stack is taken. `seen_now()` returns the ApiCallSeen; it is
// called once the record is reserved, so that what it reads goes straight
// into the record: read before the name's strnlen, the values were held
// across that call, saved to the stack and read back (~20 instructions per
// launch, callgrind, tiny_kernels).
template <typename SeenNow>
[[gnu::always_inline]] inline void write_api_call(ThreadBuffer& buffer, const CallStackSettings* stacks,
                                                  uint32_t agent_frames, const ApiCallShape& shape,
                                                  SeenNow&& seen_now) {
  // `taken`: the stack if one was taken, else null, which the fill tests
  // rather than the 2 KB CallStack's depths in memory. (A walk out of line
  // would spare the common call a few more, but cost `native` one more
  // frame to unwind and the seen fields' copy: +44 per launch.)
  CallStack stack;
  const CallStack* taken = nullptr;
  if (stacks != nullptr && stacks->any() && describes_work(shape.kind) && !shape.nested) {
    capture_call_stack(*stacks, agent_frames, buffer.native_walk_memo(), stack);
    taken = &stack;
  }
  uint32_t name_bytes = 0;
  if (shape.kind == CudaCallKind::launch && !shape.nested && shape.kernel_name != nullptr) {
    name_bytes = static_cast<uint32_t>(strnlen(shape.kernel_name, kMaxKernelName));
  }
  const uint32_t stack_bytes = taken != nullptr ? taken->payload_bytes() : 0;
  auto* record = begin_record<ApiCallRecord>(buffer, RecordType::api_call, stack_bytes + name_bytes);
  if (record == nullptr) return;
  const ApiCallSeen call = seen_now();
  record->start_ticks = call.start_ticks;
  record->end_ticks = call.end_ticks;
  record->function_name = call.function_name;
  record->correlation_id = call.correlation_id;
  record->return_code = call.return_code;
  record->domain = static_cast<uint8_t>(call.domain);
  record->backend = static_cast<uint8_t>(call.backend);
  record->callback_id = call.callback_id;
  record->stack_depth = static_cast<uint16_t>(taken != nullptr ? taken->native_depth : 0);
  record->python_depth = static_cast<uint16_t>(taken != nullptr ? taken->python_depth : 0);
  record->kernel_name_bytes = static_cast<uint16_t>(name_bytes);
  if (shape.nested) {
    record->args = ApiCallArgs::none;
  } else {
    read_call_args(call.domain == file::ApiDomain::runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                   call.callback_id, call.params, *record);
  }
  char* out = reinterpret_cast<char*>(record + 1);
  if (taken != nullptr) out = taken->write(out);
  if (name_bytes != 0) {
    memcpy(out, shape.kernel_name, name_bytes);
    // After read_call_args: a launch's arguments leave `bytes` alone.
    if (record->args == ApiCallArgs::launch) record->kernel_name_address = shape.kernel_name;
  }
  buffer.commit();
}

}  // namespace prof
