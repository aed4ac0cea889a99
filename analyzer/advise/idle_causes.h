#pragma once
// Splits each device's time with no kernel running into causes (advise.h
// lists them), each piece charged to the API call responsible for it.
#include <cstdint>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "advise/advise.h"
#include "advise/outermost_calls.h"
#include "model/run.h"

namespace prof::analyzer {

enum class CallKind : uint8_t { kLaunch, kSync, kBlockingCopy, kAllocation, kOther };
// From the API name: launches (cudaLaunchKernel, cuLaunchKernel,
// cudaGraphLaunch), synchronizations (...Synchronize), blocking copies
// (cudaMemcpy, cuMemcpyDtoH_v2: no Async), allocations (cudaMalloc,
// cudaFree, cudaMallocHost, cuMemAlloc...: stream-ordered ones excluded).
CallKind call_kind(std::string_view name);

// About one per GPU record (3.4M at 10M events), held through all of
// advise: fields widest first, indices in 32 bits as GpuActivity's, and
// where it idled (process, device) one index into IdlePieces::places, a
// handful per run: 32 bytes where the pair took 40.
struct IdlePiece {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t place = 0;      // index into IdlePieces::places
  int32_t site = -1;       // index into the Run's cpu_events; -1: none
  int32_t next_work = -1;  // index into gpu_activities of the work that ended the gap
  IdleCause cause = IdleCause::kUnattributed;
};
static_assert(sizeof(IdlePiece) == 32, "IdlePiece is one of millions: keep it packed");

// A (process, device) whose kernels idled.
struct IdlePlace {
  uint32_t process = 0;
  uint32_t device = 0;
};

struct IdlePieces {
  std::vector<IdlePlace> places;  // in (process, device) order
  std::vector<IdlePiece> pieces;  // in (place, start) order

  uint32_t process(const IdlePiece& piece) const { return places[piece.place].process; }
  uint32_t device(const IdlePiece& piece) const { return places[piece.place].device; }
};

// Every piece of kernel-idle time of `events`, per (process, device), in
// time order; `calls` are outermost_calls(events), made apart so that they
// can be made beside other work (advise_window).
IdlePieces idle_pieces(const Run& events, const OutermostCalls& calls);

}  // namespace prof::analyzer
