#pragma once
// `--view kernels|api|memcpy|nvtx`: the summaries of `nsys stats`
// (cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum, nvtx_sum) for
// people who come from Nsight Systems: Time (%), Total Time, Instances (Num
// Calls for api, Count for memcpy), Avg, Med, Min, Max, StdDev in ns, then
// the name; rows by total time, descending.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/run.h"
#include "views/view_table.h"

namespace prof::analyzer {

enum class NsysView { kKernels, kApi, kMemcpy, kNvtx };

std::optional<NsysView> parse_nsys_view(const std::string& text);

struct NsysRow {
  std::string name;
  std::string style;  // nvtx only: "PushPop" or "StartEnd"
  uint64_t total_ns = 0;
  uint64_t count = 0;
  double avg_ns = 0;
  double median_ns = 0;  // the mean of the middle two for an even count, as nsys
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  double stddev_ns = 0;  // sample standard deviation (n - 1), 0 for one instance
  double percent = 0;   // of the view's total
};

std::vector<NsysRow> nsys_summary(const Run& run, NsysView view);

// nsys's column layout: a leading space, columns two spaces apart, numbers
// right-aligned with thousands separators (averages with one decimal), the
// name column last and left-aligned, dashes under each header.
std::string format_nsys_summary(const std::vector<NsysRow>& rows, NsysView view);

ViewTable nsys_cells(const std::vector<NsysRow>& rows, NsysView view);

}  // namespace prof::analyzer
