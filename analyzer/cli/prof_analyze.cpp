#include "cli/prof_analyze.h"

#include <CLI/CLI.hpp>

#include "cli/advise_command.h"
#include "cli/capture_command.h"
#include "cli/dump_command.h"
#include "cli/flame_graph_command.h"
#include "cli/html_command.h"
#include "cli/info_command.h"
#include "cli/report_command.h"
#include "cli/stacks_command.h"
#include "cli/trace_command.h"

namespace prof::analyzer {

int run_prof_analyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"profanalyze: read libprof capture files", "profanalyze"};
  app.require_subcommand(1);
  InfoOptions info;
  ReportOptions report;
  DumpOptions dump;
  CLI::App* info_command = add_info_command(app, info);
  CLI::App* report_command = add_report_command(app, report);
  CLI::App* dump_command = add_dump_command(app, dump);
  StacksOptions stacks;
  FlameGraphCommandOptions flamegraph;
  TraceOptions trace;
  CaptureOptions capture;
  CLI::App* stacks_command = add_stacks_command(app, stacks);
  CLI::App* flamegraph_command = add_flame_graph_command(app, flamegraph);
  CLI::App* trace_command = add_trace_command(app, trace);
  AdviseOptions advise;
  CLI::App* advise_command = add_advise_command(app, advise);
  HtmlOptions html;
  CLI::App* html_command = add_html_command(app, html);
  CLI::App* capture_command = add_capture_command(app, capture);

  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // --help is a "ParseError" with exit code 0.
    const int code = app.exit(e, out, err);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (info_command->parsed()) return run_info_command(info, out, err);
  if (report_command->parsed()) return run_report_command(report, out, err);
  if (dump_command->parsed()) return run_dump_command(dump, out, err);
  if (stacks_command->parsed()) return run_stacks_command(stacks, out, err);
  if (flamegraph_command->parsed()) return run_flame_graph_command(flamegraph, out, err);
  if (trace_command->parsed()) return run_trace_command(trace, out, err);
  if (advise_command->parsed()) return run_advise_command(advise, out, err);
  if (html_command->parsed()) return run_html_command(html, out, err);
  if (capture_command->parsed()) return run_capture_command(capture, out, err);
  return kExitUsage;
}

}  // namespace prof::analyzer
