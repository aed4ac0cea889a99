#pragma once
// Fields the format stores in a compact form (FORMAT.md, "Compact fields"):
// an ApiCall's tid and correlation id relative to the previous ApiCall of
// its chunk, and launch dimensions minus one.
#include <cstdint>

#include "proto/prof.pb.h"

namespace prof::analyzer {

// Feed it every ApiCall of one chunk, in order.
class ApiCallDecoder {
 public:
  struct Ids {
    uint32_t tid;
    uint32_t correlation_id;
  };

  Ids next(const prof::proto::ApiCall& call) {
    if (call.tid() != 0) tid_ = call.tid();
    // Unsigned wrap-around: a corrupt delta must not be signed-overflow UB.
    correlation_id_ += static_cast<uint32_t>(static_cast<uint64_t>(call.correlation_id_delta()));
    return {tid_, correlation_id_};
  }

 private:
  uint32_t tid_ = 0;
  uint32_t correlation_id_ = 0;
};

struct Dim3 {
  uint32_t x, y, z;
};

// LaunchArgs and Kernel name their dimensions alike.
template <typename Message>
Dim3 grid_of(const Message& m) {
  return {m.grid_x_minus_one() + 1u, m.grid_y_minus_one() + 1u, m.grid_z_minus_one() + 1u};
}

template <typename Message>
Dim3 block_of(const Message& m) {
  return {m.block_x_minus_one() + 1u, m.block_y_minus_one() + 1u, m.block_z_minus_one() + 1u};
}

}  // namespace prof::analyzer
