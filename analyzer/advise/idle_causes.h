#pragma once
// Splits each device's time with no kernel running into causes (advise.h
// lists them), each piece charged to the API call responsible for it.
#include <cstdint>
#include <string_view>
#include <vector>

#include "advise/advise.h"
#include "model/run.h"

namespace prof::analyzer {

enum class CallKind : uint8_t { kLaunch, kSync, kBlockingCopy, kAllocation, kOther };
// From the API name: launches (cudaLaunchKernel, cuLaunchKernel,
// cudaGraphLaunch), synchronizations (...Synchronize), blocking copies
// (cudaMemcpy, cuMemcpyDtoH_v2: no Async), allocations (cudaMalloc,
// cudaFree, cudaMallocHost, cuMemAlloc...: stream-ordered ones excluded).
CallKind call_kind(std::string_view name);

// About one per GPU record (3.4M at 10M events), held through all of
// advise: fields widest first, indices in 32 bits as GpuActivity's.
struct IdlePiece {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t process = 0;
  uint32_t device = 0;
  int32_t site = -1;       // index into the Run's cpu_events; -1: none
  int32_t next_work = -1;  // index into gpu_activities of the work that ended the gap
  IdleCause cause = IdleCause::kUnattributed;
};
static_assert(sizeof(IdlePiece) == 40, "IdlePiece is one of millions: keep it packed");

// Every piece of kernel-idle time of `events`, per (process, device), in time order.
std::vector<IdlePiece> idle_pieces(const Run& events);

}  // namespace prof::analyzer
