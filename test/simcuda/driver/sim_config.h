// Simulation parameters, read once from the environment (see test/simcuda/README.md).
#pragma once

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

namespace simcuda {

struct KernelDurationRule {
  std::regex pattern;
  uint64_t duration_ns;
};

// SIMCUDA_GRAPH_CONDITIONS: device code never runs, so what a kernel would set
// a graph's conditional handle to (cudaGraphSetConditional) is told: the n-th
// run from a graph of a kernel matching `pattern` sets it to values[n % size].
struct ConditionRule {
  std::regex pattern;
  std::vector<unsigned> values;
};

struct SimConfig {
  int device_count = 1;
  uint64_t default_kernel_ns = 10000;
  std::vector<KernelDurationRule> kernel_rules;  // first match wins
  uint64_t launch_latency_ns = 2000;              // host enqueue -> earliest device start
  uint64_t copy_overhead_ns = 1000;               // fixed cost of every copy and memset
  // Bandwidths in GB/s, i.e. bytes per nanosecond.
  double pageable_gbps = 6;
  double pinned_gbps = 24;
  double device_to_device_gbps = 800;
  double memset_gbps = 1000;
  // Pending operations a stream holds before an enqueue blocks the host (about a
  // thousand on a real GPU; 1024 until measured).
  uint64_t queue_depth = 1024;
  uint64_t host_function_ns = 2000;               // simulated duration of a host function
  double peer_gbps = 100;                          // device-to-device between two devices
  std::string truth_path;                          // empty: no ground-truth log
  bool cupti_enabled = true;
  std::string fault_kernel_pattern;                // launches matching it fail stickily
  std::vector<ConditionRule> condition_rules;      // first match wins

  uint64_t kernel_duration_ns(const std::string& name) const;
};

// Parsed on first use; later changes of the environment are ignored.
const SimConfig& config();

}  // namespace simcuda
