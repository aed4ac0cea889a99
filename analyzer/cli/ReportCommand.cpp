#include "cli/ReportCommand.h"

#include "cli/LoadFiles.h"
#include "cli/ProfAnalyze.h"
#include "model/RangeTree.h"
#include "views/KeyAverages.h"
#include "views/SortKey.h"
#include "views/TableFormatter.h"

namespace prof::analyzer {

CLI::App* addReportCommand(CLI::App& app, ReportOptions& options) {
  CLI::App* report = app.add_subcommand(
      "report", "torch key_averages().table() of NVTX ranges, CUDA API calls and GPU work, over all files");
  report->add_option("FILE", options.files, "capture files; several load into one run")->required();
  report->add_option("--sort-by", options.sortBy, "torch sort_by key (descending); default: first occurrence")
      ->check(CLI::IsMember(sortKeyNames()));
  report->add_option("--row-limit", options.rowLimit, "rows to print; -1: all, 0: none")->capture_default_str();
  report->add_option("--time-unit", options.timeUnit, "print every time in this unit; default: per cell")
      ->check(CLI::IsMember({"s", "ms", "us"}));
  return report;
}

int runReportCommand(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  Run run;
  if (!loadFiles(options.files, run, err)) return kExitBadInput;
  const RangeTree tree(run);
  TableOptions table;
  if (!options.sortBy.empty()) table.sortBy = options.sortBy;
  table.rowLimit = options.rowLimit;
  if (!options.timeUnit.empty()) table.timeUnit = parseTimeUnit(options.timeUnit).value_or(TimeUnit::kAuto);
  out << TableFormatter(table).format(keyAverages(run, tree));
  return kExitOk;
}

}  // namespace prof::analyzer
