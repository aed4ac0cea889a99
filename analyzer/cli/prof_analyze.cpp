#include "cli/prof_analyze.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "cli/advise_command.h"
#include "cli/capture_command.h"
#include "cli/dump_command.h"
#include "cli/flame_graph_command.h"
#include "cli/html_command.h"
#include "cli/info_command.h"
#include "cli/record_command.h"
#include "cli/report_command.h"
#include "cli/stacks_command.h"
#include "cli/trace_command.h"
#include "io/capture_reader.h"

namespace prof::analyzer {
namespace {

// Levenshtein distance, for "did you mean": subcommand names are short.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The first word that is not an option, when it names no subcommand: CLI11
// would say "A subcommand is required" about `profanalyze reprot run.pb`.
bool refuse_unknown_subcommand(const CLI::App& app, const std::vector<std::string>& args, std::ostream& err) {
  if (args.size() < 2 || args[1].empty() || args[1][0] == '-') return false;
  const std::string& word = args[1];
  std::string closest;
  size_t best = SIZE_MAX;
  for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (command->get_name() == word) return false;
    const size_t distance = edit_distance(word, command->get_name());
    if (distance < best) {
      best = distance;
      closest = command->get_name();
    }
  }
  err << "profanalyze: unknown subcommand '" << word << "'";
  if (best <= std::max<size_t>(2, word.size() / 3)) err << "; did you mean '" << closest << "'?";
  err << " (profanalyze --help lists them)\n";
  return true;
}

}  // namespace

int run_prof_analyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  CLI::App app{"profanalyze: read libprof capture files", "profanalyze"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("profanalyze ") + PROF_VERSION + ", reads capture files of format " +
                                        std::to_string(CaptureReader::kFormatMajor) + ".0 to " +
                                        std::to_string(CaptureReader::kFormatMajor) + "." +
                                        std::to_string(CaptureReader::kKnownFormatMinor));
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
  RecordOptions record;
  CLI::App* record_command = add_record_command(app, record);

  if (refuse_unknown_subcommand(app, args, err)) return kExitUsage;
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    // --help is a "ParseError" with exit code 0.
    const int code = app.exit(e, out, err);
    return code == 0 ? kExitOk : kExitUsage;
  }
  auto run_command = [&]() -> int {
    if (info_command->parsed()) return run_info_command(info, out, err);
    if (report_command->parsed()) return run_report_command(report, out, err);
    if (dump_command->parsed()) return run_dump_command(dump, out, err);
    if (stacks_command->parsed()) return run_stacks_command(stacks, out, err);
    if (flamegraph_command->parsed()) return run_flame_graph_command(flamegraph, out, err);
    if (trace_command->parsed()) return run_trace_command(trace, out, err);
    if (advise_command->parsed()) return run_advise_command(advise, out, err);
    if (html_command->parsed()) return run_html_command(html, out, err);
    if (capture_command->parsed()) return run_capture_command(capture, out, err);
    if (record_command->parsed()) return run_record_command(record, out, err);
    return kExitUsage;
  };
  const int code = run_command();
  return finish_output(code, out, err);
}

int finish_output(int code, std::ostream& out, std::ostream& err) {
  // A full disk or a closed pipe under `profanalyze dump big.pb > file`
  // fails the writes (the stream stops taking them): the output is cut
  // short, so the command failed, whatever it returned. A stream that failed
  // makes no more calls, so errno still says why its write failed (not
  // reset here: flushing a failed stream writes nothing).
  out.flush();
  if (out) return code;
  const int error = errno;
  err << "profanalyze: cannot write the output" << (error != 0 ? std::string(": ") + std::strerror(error) : "")
      << '\n';
  return code == kExitOk ? kExitBadOutput : code;
}

}  // namespace prof::analyzer
