#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace prof::analyzer {

struct ReportOptions {
  std::vector<std::string> files;
  std::string sortBy;  // empty: first-occurrence order, as torch without sort_by
  int64_t rowLimit = 100;
  std::string timeUnit;  // empty: automatic per cell
};

CLI::App* addReportCommand(CLI::App& app, ReportOptions& options);
int runReportCommand(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
