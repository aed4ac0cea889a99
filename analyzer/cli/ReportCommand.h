#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "window/Schedule.h"

namespace prof::analyzer {

struct ReportOptions {
  std::vector<std::string> files;
  std::string sortBy;  // empty: first-occurrence order, as torch without sort_by
  int64_t rowLimit = 100;
  std::string timeUnit;  // empty: automatic per cell
  bool topLevelOnly = false;
  bool groupByInputShape = false;
  int64_t groupByStackN = 0;
  std::string view = "table";   // table (torch) | kernels | api | memcpy | nvtx (nsys)
  std::string format = "table";  // table | csv | json
  // Steps and windows.
  std::string step;  // empty: ProfilerStep ranges when a schedule is given
  Schedule schedule;
  bool scheduleGiven = false;  // set by the CLI when any schedule option is given
  bool mergeWindows = false;
};

CLI::App* addReportCommand(CLI::App& app, ReportOptions& options);
int runReportCommand(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
