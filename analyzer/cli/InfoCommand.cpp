#include "cli/InfoCommand.h"

#include "cli/LoadFiles.h"
#include "cli/ProfAnalyze.h"
#include "views/InfoView.h"

namespace prof::analyzer {

CLI::App* addInfoCommand(CLI::App& app, InfoOptions& options) {
  CLI::App* info = app.add_subcommand(
      "info", "What each capture file holds: process, threads, duration, record counts, drops, agent options");
  info->add_option("FILE", options.files, "capture files (one per process)")->required();
  return info;
}

int runInfoCommand(const InfoOptions& options, std::ostream& out, std::ostream& err) {
  // info prints counts and times, which the summary load keeps, without
  // holding millions of events.
  Run run;
  if (!loadFiles(options.files, run, err, LoadDepth::kSummary)) return kExitBadInput;
  out << formatInfo(run);
  return kExitOk;
}

}  // namespace prof::analyzer
