#include "cli/DumpCommand.h"

#include "cli/ProfAnalyze.h"
#include "views/RecordDump.h"

namespace prof::analyzer {

CLI::App* addDumpCommand(CLI::App& app, DumpOptions& options) {
  CLI::App* dump = app.add_subcommand(
      "dump", "Every record of a capture file as JSON lines: absolute ns times, names resolved");
  dump->add_option("FILE", options.file, "capture file")->required();
  return dump;
}

int runDumpCommand(const DumpOptions& options, std::ostream& out, std::ostream& err) {
  return dumpRecords(options.file, out, err) ? kExitOk : kExitBadInput;
}

}  // namespace prof::analyzer
