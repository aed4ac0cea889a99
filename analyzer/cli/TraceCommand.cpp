#include "cli/TraceCommand.h"

#include <cstdio>

#include "cli/LoadFiles.h"
#include "cli/ProfAnalyze.h"
#include "views/ChromeTrace.h"
#include "views/TraceFile.h"

namespace prof::analyzer {
namespace {

std::string megabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

// The warnings a trace that is too big for its viewers gets, naming the
// ways to cut it.
void warnAboutSize(const TraceOptions& options, const std::string& path, const ChromeTraceStats& stats,
                   std::ostream& err) {
  if (stats.eventsLeftOut)
    err << "profanalyze: warning: " << path << ": stopped at --max-events " << options.maxEvents << ": "
        << stats.eventsLeftOut << " of " << stats.events + stats.eventsLeftOut
        << " events left out; cut the run into windows (--step, --skip-first, --wait, --warmup, --active, "
           "--repeat) to see all of them\n";
  if (stats.bytes > options.warnSizeMb * 1000 * 1000)
    err << "profanalyze: warning: " << path << ": " << megabytes(stats.bytes) << " of JSON (" << stats.events
        << " events); viewers struggle above ~" << options.warnSizeMb
        << " MB: cut it into windows (--step RULE --active N ...) or limit it with --max-events N\n";
}

}  // namespace

std::string windowTracePath(const std::string& path, int64_t lastStep) {
  const size_t slash = path.rfind('/');
  const size_t nameStart = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = path.find('.', nameStart);
  if (dot == nameStart) dot = path.find('.', nameStart + 1);  // a hidden file's leading dot is its name
  const std::string suffix = "_" + std::to_string(lastStep);
  if (dot == std::string::npos) return path + suffix;
  return path.substr(0, dot) + suffix + path.substr(dot);
}

CLI::App* addTraceCommand(CLI::App& app, TraceOptions& options) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Chrome trace JSON (chrome://tracing, ui.perfetto.dev) with Kineto's categories; .gz: gzip");
  trace->add_option("FILE", options.files, "capture files; several make one timeline (clock anchors)")->required();
  trace->add_option("-o,--output", options.output,
                    "trace file (.json or .json.gz; - for stdout); with a schedule, NAME_<last step>.json per window")
      ->capture_default_str();
  trace->add_option("--max-events", options.maxEvents, "stop after N events (with a warning); 0: all")
      ->capture_default_str();
  trace->add_option("--warn-size-mb", options.warnSizeMb, "warn when a trace is larger than this")
      ->capture_default_str();
  addWindowOptions(trace, options.windows);
  return trace;
}

int runTraceCommand(const TraceOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<RunWindows> windows = RunWindows::fromOptions(options.windows, err);
  if (!windows) return kExitUsage;
  Run run;
  if (!loadFiles(options.files, run, err)) return kExitBadInput;
  if (!windows->resolve(run, err)) return kExitBadInput;
  const bool toStdout = options.output == "-";
  if (toStdout && windows->windows().size() > 1) {
    err << "profanalyze: -o - writes one trace; the schedule gives " << windows->windows().size()
        << " windows: give a file name\n";
    return kExitUsage;
  }

  for (const RunWindow& w : windows->windows()) {
    Run storage;
    const Run& events = windows->eventsOf(run, w, storage);
    ChromeTraceOptions trace;
    trace.maxEvents = options.maxEvents;
    std::string path = options.output;
    trace.traceName = w.wholeRun() ? "profanalyze trace" : "profanalyze trace, " + w.title();
    if (!w.wholeRun() && !w.steps.empty()) path = windowTracePath(options.output, w.steps.back());
    if (toStdout) {
      StreamTraceSink sink(out);
      warnAboutSize(options, "<stdout>", writeChromeTrace(events, trace, sink), err);
      continue;
    }
    TraceFile file;
    if (!file.open(path)) {
      err << "profanalyze: " << file.error() << '\n';
      return kExitBadInput;
    }
    const ChromeTraceStats stats = writeChromeTrace(events, trace, file);
    if (!file.close()) {
      err << "profanalyze: " << file.error() << '\n';
      return kExitBadInput;
    }
    out << path << ": " << stats.events << " events" << (w.wholeRun() ? "" : ", " + w.title()) << '\n';
    warnAboutSize(options, path, stats, err);
  }
  return kExitOk;
}

}  // namespace prof::analyzer
