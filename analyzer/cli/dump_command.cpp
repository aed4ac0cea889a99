#include "cli/dump_command.h"

#include "cli/prof_analyze.h"
#include "views/record_dump.h"

namespace prof::analyzer {

CLI::App* add_dump_command(CLI::App& app, DumpOptions& options) {
  CLI::App* dump = app.add_subcommand(
      "dump", "Every record of a capture file as JSON lines: absolute ns times, names resolved");
  dump->add_option("FILE", options.file, "capture file")->required();
  return dump;
}

int run_dump_command(const DumpOptions& options, std::ostream& out, std::ostream& err) {
  return dump_records(options.file, out, err) ? kExitOk : kExitBadInput;
}

}  // namespace prof::analyzer
