#pragma once
// Turns advise's measurements into findings (advise.h): one function per
// kind of problem, each adding a finding when it costs enough.
#include <vector>

#include "advise/advise.h"
#include "advise/idle_causes.h"

namespace prof::analyzer {

// What the finding builders read besides the AdviseWindow's own tables.
struct FindingInput {
  const AdviseInput* input = nullptr;
  const IdlePieces* pieces = nullptr;
  size_t step_count = 0;  // steps in the window, summed over processes (0: no steps)
};

// Short host-work pieces sit between launches: the loop's own CPU time,
// counted as launch overhead rather than as a gap in the host's feeding.
constexpr uint64_t kBetweenLaunchesNs = 10'000;

void add_findings(const FindingInput& in, AdviseWindow& window);

// "1.234 ms", "56.7 us", "2.000 s"
std::string advise_time(uint64_t ns);
std::string advise_bytes(uint64_t bytes);

}  // namespace prof::analyzer
