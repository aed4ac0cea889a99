#include "cli/info_command.h"

#include "cli/load_files.h"
#include "cli/prof_analyze.h"
#include "views/info_view.h"

namespace prof::analyzer {

CLI::App* add_info_command(CLI::App& app, InfoOptions& options) {
  CLI::App* info = app.add_subcommand(
      "info", "What each capture file holds: process, threads, duration, record counts, drops, agent options");
  info->add_option("FILE", options.files, "capture files (one per process)")->required();
  return info;
}

int run_info_command(const InfoOptions& options, std::ostream& out, std::ostream& err) {
  // info prints counts and times, which the summary load keeps, without
  // holding millions of events.
  Run run;
  if (!load_files(options.files, run, err, LoadDepth::kSummary)) return kExitBadInput;
  out << format_info(run);
  return kExitOk;
}

}  // namespace prof::analyzer
