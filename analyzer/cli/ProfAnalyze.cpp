#include "cli/ProfAnalyze.h"

#include <CLI/CLI.hpp>

#include "cli/DumpCommand.h"
#include "cli/FlameGraphCommand.h"
#include "cli/InfoCommand.h"
#include "cli/ReportCommand.h"
#include "cli/StacksCommand.h"
#include "cli/TraceCommand.h"

namespace prof::analyzer {

int runProfAnalyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"profanalyze: read libprof capture files", "profanalyze"};
  app.require_subcommand(1);
  InfoOptions info;
  ReportOptions report;
  DumpOptions dump;
  CLI::App* infoCommand = addInfoCommand(app, info);
  CLI::App* reportCommand = addReportCommand(app, report);
  CLI::App* dumpCommand = addDumpCommand(app, dump);
  StacksOptions stacks;
  FlameGraphCommandOptions flamegraph;
  TraceOptions trace;
  CLI::App* stacksCommand = addStacksCommand(app, stacks);
  CLI::App* flamegraphCommand = addFlameGraphCommand(app, flamegraph);
  CLI::App* traceCommand = addTraceCommand(app, trace);

  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // --help is a "ParseError" with exit code 0.
    const int code = app.exit(e, out, err);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (infoCommand->parsed()) return runInfoCommand(info, out, err);
  if (reportCommand->parsed()) return runReportCommand(report, out, err);
  if (dumpCommand->parsed()) return runDumpCommand(dump, out, err);
  if (stacksCommand->parsed()) return runStacksCommand(stacks, out, err);
  if (flamegraphCommand->parsed()) return runFlameGraphCommand(flamegraph, out, err);
  if (traceCommand->parsed()) return runTraceCommand(trace, out, err);
  return kExitUsage;
}

}  // namespace prof::analyzer
