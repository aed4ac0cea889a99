#pragma once
// Which API call launched each piece of GPU work (or made each memory
// record): the call with the same correlation id in the same process. A
// runtime call and the driver calls inside it share one correlation id; the
// launching call is the outermost, the one that starts first (the first in
// the Run on a tie).
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/run.h"

namespace prof::analyzer {

class LaunchingCalls {
 public:
  explicit LaunchingCalls(const Run& run);

  // Index into Run::cpu_events, or -1 when no call of that id was recorded.
  int64_t find(uint32_t process, uint32_t correlation_id) const;

 private:
  // CUPTI numbers correlation ids 1, 2, 3, ... per process, so a table
  // indexed by id is small and needs no hashing (a hash map of millions of
  // calls was a tenth of `report`). Ids far sparser than the calls (not
  // CUPTI's numbering: a foreign or corrupt file) get a hash map instead of
  // a huge table.
  // An event's index in 32 bits, as GpuActivity::launched_by: 4 bytes per
  // id where an int64_t took 8 (13 MB at 10M events, held through trace).
  static constexpr uint32_t kNone = UINT32_MAX;
  struct OfProcess {
    bool dense = true;
    std::vector<uint32_t> by_id;  // dense: index by correlation id, kNone: none
    std::unordered_map<uint32_t, uint32_t> sparse;
  };
  std::vector<OfProcess> processes_;
};

}  // namespace prof::analyzer
