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
  Run run;
  if (!loadFiles(options.files, run, err)) return kExitBadInput;
  out << formatInfo(run);
  return kExitOk;
}

}  // namespace prof::analyzer
