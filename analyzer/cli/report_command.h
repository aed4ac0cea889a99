#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/window_options.h"

namespace prof::analyzer {

struct ReportOptions {
  std::vector<std::string> files;
  std::string sort_by;  // empty: first-occurrence order, as torch without sort_by
  int64_t row_limit = 100;
  std::string time_unit;  // empty: automatic per cell
  bool top_level_only = false;
  bool group_by_input_shape = false;
  int64_t group_by_stack_n = 0;
  std::string view = "table";   // table (torch) | kernels | api | memcpy | nvtx (nsys) | modules
  bool driver_calls = false;     // driver calls inside runtime calls as rows of their own
  std::string format = "table";  // table | csv | json
  WindowOptions windows;  // steps and schedule, as stacks, flamegraph and trace
  bool merge_windows = false;
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);
int run_report_command(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
