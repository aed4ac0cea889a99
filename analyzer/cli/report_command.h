#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "window/schedule.h"

namespace prof::analyzer {

struct ReportOptions {
  std::vector<std::string> files;
  std::string sort_by;  // empty: first-occurrence order, as torch without sort_by
  int64_t row_limit = 100;
  std::string time_unit;  // empty: automatic per cell
  bool top_level_only = false;
  bool group_by_input_shape = false;
  int64_t group_by_stack_n = 0;
  std::string view = "table";   // table (torch) | kernels | api | memcpy | nvtx (nsys)
  std::string format = "table";  // table | csv | json
  // Steps and windows.
  std::string step;  // empty: ProfilerStep ranges when a schedule is given
  Schedule schedule;
  bool schedule_given = false;  // set by the CLI when any schedule option is given
  bool merge_windows = false;
};

CLI::App* add_report_command(CLI::App& app, ReportOptions& options);
int run_report_command(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
