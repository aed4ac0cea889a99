#include "views/sort_key.h"

#include <algorithm>

namespace prof::analyzer {

const std::vector<std::string>& sort_key_names() {
  static const std::vector<std::string> names = {
      "cpu_time",          "cuda_time",            "cpu_time_total",         "cuda_time_total",
      "self_cpu_time_total", "self_cuda_time_total", "cpu_memory_usage",     "cuda_memory_usage",
      "self_cpu_memory_usage", "self_cuda_memory_usage", "count",            "device_time",
      "device_time_total", "self_device_time_total", "device_memory_usage", "self_device_memory_usage",
  };
  return names;
}

std::optional<double> sort_value(const std::string& key, const KeyAverage& row) {
  // torch's values are microseconds; ns keep the same order.
  const double count = row.count ? static_cast<double>(row.count) : 1.0;
  if (key == "cpu_time") return static_cast<double>(row.cpu_total_ns) / count;
  if (key == "cuda_time" || key == "device_time") return static_cast<double>(row.cuda_total_ns) / count;
  if (key == "cpu_time_total") return static_cast<double>(row.cpu_total_ns);
  if (key == "cuda_time_total" || key == "device_time_total") return static_cast<double>(row.cuda_total_ns);
  if (key == "self_cpu_time_total") return static_cast<double>(row.self_cpu_ns);
  if (key == "self_cuda_time_total" || key == "self_device_time_total") return static_cast<double>(row.self_cuda_ns);
  if (key == "count") return static_cast<double>(row.count);
  if (key == "cpu_memory_usage") return static_cast<double>(row.cpu_mem_bytes);
  if (key == "self_cpu_memory_usage") return static_cast<double>(row.self_cpu_mem_bytes);
  if (key == "cuda_memory_usage" || key == "device_memory_usage") return static_cast<double>(row.cuda_mem_bytes);
  if (key == "self_cuda_memory_usage" || key == "self_device_memory_usage")
    return static_cast<double>(row.self_cuda_mem_bytes);
  return std::nullopt;
}

void sort_rows(std::vector<KeyAverage>& rows, const std::string& key) {
  std::stable_sort(rows.begin(), rows.end(), [&](const KeyAverage& a, const KeyAverage& b) {
    return sort_value(key, a).value_or(0) > sort_value(key, b).value_or(0);
  });
}

}  // namespace prof::analyzer
