#include "sim_config.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace simcuda {
namespace {

uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  return std::strtoull(text, nullptr, 10);
}

double env_double(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  double value = std::strtod(text, nullptr);
  return value > 0 ? value : fallback;
}

// SIMCUDA_KERNEL_NS="regex=ns,regex=ns,default=ns". The regex is searched in the
// mangled kernel name; split at the last '=' so that patterns may contain '='.
void parse_kernel_rules(const char* text, SimConfig& out) {
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    size_t eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      std::fprintf(stderr, "simcuda: ignoring SIMCUDA_KERNEL_NS entry '%s'\n", item.c_str());
      continue;
    }
    std::string pattern = item.substr(0, eq);
    uint64_t ns = std::strtoull(item.c_str() + eq + 1, nullptr, 10);
    if (pattern == "default") {
      out.default_kernel_ns = ns;
      continue;
    }
    try {
      out.kernel_rules.push_back({std::regex(pattern), ns});
    } catch (const std::regex_error&) {
      std::fprintf(stderr, "simcuda: bad regex in SIMCUDA_KERNEL_NS: '%s'\n", pattern.c_str());
    }
  }
}

// SIMCUDA_GRAPH_CONDITIONS="regex=v:v:v,regex=v". Split at the last '='.
void parse_condition_rules(const char* text, SimConfig& out) {
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    size_t eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      std::fprintf(stderr, "simcuda: ignoring SIMCUDA_GRAPH_CONDITIONS entry '%s'\n", item.c_str());
      continue;
    }
    ConditionRule rule;
    std::stringstream values(item.substr(eq + 1));
    std::string value;
    while (std::getline(values, value, ':')) rule.values.push_back(static_cast<unsigned>(std::strtoul(value.c_str(), nullptr, 10)));
    try {
      rule.pattern = std::regex(item.substr(0, eq));
      out.condition_rules.push_back(std::move(rule));
    } catch (const std::regex_error&) {
      std::fprintf(stderr, "simcuda: bad regex in SIMCUDA_GRAPH_CONDITIONS: '%s'\n", item.c_str());
    }
  }
}

SimConfig load() {
  SimConfig c;
  c.device_count = static_cast<int>(env_u64("SIMCUDA_DEVICES", 1));
  if (c.device_count < 0) c.device_count = 0;
  if (c.device_count > 16) c.device_count = 16;
  c.default_kernel_ns = env_u64("SIMCUDA_DEFAULT_KERNEL_NS", c.default_kernel_ns);
  if (const char* rules = std::getenv("SIMCUDA_KERNEL_NS")) parse_kernel_rules(rules, c);
  c.launch_latency_ns = env_u64("SIMCUDA_LAUNCH_LATENCY_NS", c.launch_latency_ns);
  c.copy_overhead_ns = env_u64("SIMCUDA_COPY_OVERHEAD_NS", c.copy_overhead_ns);
  c.pageable_gbps = env_double("SIMCUDA_PAGEABLE_GBPS", c.pageable_gbps);
  c.pinned_gbps = env_double("SIMCUDA_PINNED_GBPS", c.pinned_gbps);
  c.device_to_device_gbps = env_double("SIMCUDA_DTOD_GBPS", c.device_to_device_gbps);
  c.memset_gbps = env_double("SIMCUDA_MEMSET_GBPS", c.memset_gbps);
  c.queue_depth = env_u64("SIMCUDA_QUEUE_DEPTH", c.queue_depth);
  c.host_function_ns = env_u64("SIMCUDA_HOST_FN_NS", c.host_function_ns);
  c.peer_gbps = env_double("SIMCUDA_PEER_GBPS", c.peer_gbps);
  if (c.queue_depth == 0) c.queue_depth = 1;
  if (const char* truth = std::getenv("SIMCUDA_TRUTH")) c.truth_path = truth;
  if (const char* cupti = std::getenv("SIMCUDA_CUPTI")) c.cupti_enabled = std::string(cupti) != "off";
  if (const char* fault = std::getenv("SIMCUDA_FAULT_KERNEL")) c.fault_kernel_pattern = fault;
  if (const char* conditions = std::getenv("SIMCUDA_GRAPH_CONDITIONS")) parse_condition_rules(conditions, c);
  return c;
}

}  // namespace

uint64_t SimConfig::kernel_duration_ns(const std::string& name) const {
  for (const KernelDurationRule& rule : kernel_rules) {
    if (std::regex_search(name, rule.pattern)) return rule.duration_ns;
  }
  return default_kernel_ns;
}

const SimConfig& config() {
  // Leaked: threads may still launch (and look up durations) while static
  // destructors run at exit.
  static const SimConfig* instance = new SimConfig(load());
  return *instance;
}

}  // namespace simcuda
