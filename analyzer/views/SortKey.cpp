#include "views/SortKey.h"

#include <algorithm>

namespace prof::analyzer {

const std::vector<std::string>& sortKeyNames() {
  static const std::vector<std::string> names = {
      "cpu_time",          "cuda_time",            "cpu_time_total",         "cuda_time_total",
      "self_cpu_time_total", "self_cuda_time_total", "cpu_memory_usage",     "cuda_memory_usage",
      "self_cpu_memory_usage", "self_cuda_memory_usage", "count",            "device_time",
      "device_time_total", "self_device_time_total", "device_memory_usage", "self_device_memory_usage",
  };
  return names;
}

std::optional<double> sortValue(const std::string& key, const KeyAverage& row) {
  // torch's values are microseconds; ns keep the same order.
  const double count = row.count ? static_cast<double>(row.count) : 1.0;
  if (key == "cpu_time") return static_cast<double>(row.cpuTotalNs) / count;
  if (key == "cuda_time" || key == "device_time") return static_cast<double>(row.cudaTotalNs) / count;
  if (key == "cpu_time_total") return static_cast<double>(row.cpuTotalNs);
  if (key == "cuda_time_total" || key == "device_time_total") return static_cast<double>(row.cudaTotalNs);
  if (key == "self_cpu_time_total") return static_cast<double>(row.selfCpuNs);
  if (key == "self_cuda_time_total" || key == "self_device_time_total") return static_cast<double>(row.selfCudaNs);
  if (key == "count") return static_cast<double>(row.count);
  if (key == "cpu_memory_usage") return static_cast<double>(row.cpuMemBytes);
  if (key == "self_cpu_memory_usage") return static_cast<double>(row.selfCpuMemBytes);
  if (key == "cuda_memory_usage" || key == "device_memory_usage") return static_cast<double>(row.cudaMemBytes);
  if (key == "self_cuda_memory_usage" || key == "self_device_memory_usage")
    return static_cast<double>(row.selfCudaMemBytes);
  return std::nullopt;
}

void sortRows(std::vector<KeyAverage>& rows, const std::string& key) {
  std::stable_sort(rows.begin(), rows.end(), [&](const KeyAverage& a, const KeyAverage& b) {
    return sortValue(key, a).value_or(0) > sortValue(key, b).value_or(0);
  });
}

}  // namespace prof::analyzer
