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

// What the path that saw the call knows of it.
struct ApiCallSeen {
  uint64_t start_ticks = 0;  // host ticks (common/host_clock.h)
  uint64_t end_ticks = 0;
  const char* function_name = nullptr;  // static for the life of the process
  uint32_t correlation_id = 0;
  int32_t return_code = 0;
  file::ApiDomain domain = file::ApiDomain::runtime;
  file::CaptureBackend backend = file::CaptureBackend::cupti;
  uint16_t callback_id = 0;
  CudaCallKind kind = CudaCallKind::unknown;
  // Inside another call that describes work on this thread (cuLaunchKernel
  // inside cudaLaunchKernel): the outer call, which shares its correlation
  // id, carries the stack, the arguments and the kernel's name.
  bool nested = false;
  const void* params = nullptr;      // the call's parameters, as CUPTI lays them out
  const char* kernel_name = nullptr;  // a launch's kernel, when known
};

// Always inlined, so that `agent_frames` (the agent's frames at the leaf,
// which the stack walk skips) counts its callers' frames only. `stacks`:
// null when no stack is taken.
[[gnu::always_inline]] inline void write_api_call(ThreadBuffer& buffer, const CallStackSettings* stacks,
                                                  uint32_t agent_frames, const ApiCallSeen& call) {
  CallStack stack;
  if (stacks != nullptr && stacks->any() && describes_work(call.kind) && !call.nested) {
    capture_call_stack(*stacks, agent_frames, buffer.native_walk_memo(), stack);
  }
  uint32_t name_bytes = 0;
  if (call.kind == CudaCallKind::launch && !call.nested && call.kernel_name != nullptr) {
    name_bytes = static_cast<uint32_t>(strnlen(call.kernel_name, kMaxKernelName));
  }
  auto* record = begin_record<ApiCallRecord>(buffer, RecordType::api_call, stack.payload_bytes() + name_bytes);
  if (record == nullptr) return;
  record->start_ticks = call.start_ticks;
  record->end_ticks = call.end_ticks;
  record->function_name = call.function_name;
  record->correlation_id = call.correlation_id;
  record->return_code = call.return_code;
  record->domain = static_cast<uint8_t>(call.domain);
  record->backend = static_cast<uint8_t>(call.backend);
  record->callback_id = call.callback_id;
  record->stack_depth = static_cast<uint16_t>(stack.native_depth);
  record->python_depth = static_cast<uint16_t>(stack.python_depth);
  record->kernel_name_bytes = static_cast<uint16_t>(name_bytes);
  if (call.nested) {
    record->args = ApiCallArgs::none;
  } else {
    read_call_args(call.domain == file::ApiDomain::runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                   call.callback_id, call.params, *record);
  }
  char* out = stack.write(reinterpret_cast<char*>(record + 1));
  if (name_bytes != 0) {
    memcpy(out, call.kernel_name, name_bytes);
    // After read_call_args: a launch's arguments leave `bytes` alone.
    if (record->args == ApiCallArgs::launch) record->kernel_name_address = call.kernel_name;
  }
  buffer.commit();
}

}  // namespace prof
