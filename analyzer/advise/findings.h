#pragma once
// Turns advise's measurements into findings (advise.h): one function per
// kind of problem, each adding a finding when it costs enough.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "advise/advise.h"
#include "advise/idle_causes.h"
#include "views/tensor_memory.h"

namespace prof::analyzer {

// The launch-bound finding's figures that do not read the idle pieces,
// measured before them (advise_window): their per-launch lists (a kernel
// slot per CPU event, a call per launch, one median list at a time: 68 MB
// at 10M events) were beside the pieces' 109 MB.
struct LaunchFacts {
  uint64_t count = 0;          // launches that ran a kernel
  uint64_t cpu_ns = 0;         // their CPU time
  uint64_t kernel_sum_ns = 0;  // their (last) kernels' time
  uint64_t first_ns = UINT64_MAX, last_ns = 0;  // first and last launch start
  size_t interval_count = 0;   // launches followed by another on their thread
  uint64_t shorter = 0;        // of those, kernels that end before the next launch
  uint64_t median_cpu_ns = 0, median_kernel_ns = 0, median_interval_ns = 0;
  // Queue depth at each launch: launched (call started) but not yet started
  // on the GPU. Only a launch-bound run reports it (kernels shorter than the
  // time between launches), so only such a run measures it, and not here:
  // the steps' pass makes the same launch queues (advise_window).
  bool launch_bound() const { return count > 0 && median_kernel_ns < median_interval_ns; }
  double mean_queue_depth = 0;
  uint64_t max_queue_depth = 0;
  // Per call site (API name, stack): one of its launches and their count.
  struct Site {
    int64_t call = -1;
    uint64_t calls = 0;
  };
  std::vector<Site> sites;
};
// Reads the events only (no namer): it may run beside other work.
LaunchFacts launch_facts(const Run& events);

// A kernel's runs with one launch configuration whose longest took at least
// twice their median (the kernel-variance finding's candidates), measured
// before the idle pieces as LaunchFacts: its per-kernel lists (25 MB at 10M
// events) were beside them.
struct KernelSpread {
  NameId name = 0;
  uint32_t config = 0;  // index into kernel_configs
  uint64_t runs = 0, median_ns = 0, shortest_ns = 0, longest_ns = 0;
  uint64_t excess_ns = 0;  // beyond the median, of the runs over 1.5x it
  uint64_t slow = 0;       // runs over 1.5x the median
};
// In (name, configuration) order. Reads the events only.
std::vector<KernelSpread> kernel_spreads(const Run& events);

// Per (API name, stack), what the sync finding sums over the calls at its
// sites, measured before the idle pieces as LaunchFacts: it was a pass over
// every CPU event, with a map lookup for each call's copy, after them.
struct ApiCallFigures {
  int64_t call = -1;  // the first of them: its site's frames
  uint64_t calls = 0, host_ns = 0;
  uint64_t copied_bytes = 0;  // of each call's copy (its last memcpy)
  bool scalar_reads = true;   // each a device-to-host copy of 16 bytes or less
};
using ApiCallTotals = std::map<std::pair<NameId, uint32_t>, ApiCallFigures>;
// Reads the events only.
ApiCallTotals api_call_totals(const Run& events);

// What the finding builders read besides the AdviseWindow's own tables.
struct FindingInput {
  const AdviseInput* input = nullptr;
  const IdlePieces* pieces = nullptr;
  const LaunchFacts* launches = nullptr;
  const std::vector<KernelSpread>* kernel_spreads = nullptr;
  const ApiCallTotals* api_calls = nullptr;
  // The tensor-memory finding's devices (tensor_memory: the events only,
  // made before the idle pieces as LaunchFacts).
  const std::vector<TensorMemoryDevice>* tensor_memory = nullptr;
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
