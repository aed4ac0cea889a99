#include "cli/trace_command.h"

#include <cstdio>

#include "cli/load_files.h"
#include "cli/prof_analyze.h"
#include "symbols/symbolizing_frame_namer.h"
#include "views/chrome_trace.h"
#include "views/trace_file.h"

namespace prof::analyzer {
namespace {

std::string megabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

// The warnings a trace that is too big for its viewers gets, naming the
// ways to cut it.
void warn_about_size(const TraceOptions& options, const std::string& path, const ChromeTraceStats& stats,
                   std::ostream& err) {
  if (stats.events_left_out)
    err << "profanalyze: warning: " << path << ": stopped at --max-events " << options.max_events << ": "
        << stats.events_left_out << " of " << stats.events + stats.events_left_out
        << " events left out; cut the run into windows (--step, --skip-first, --wait, --warmup, --active, "
           "--repeat) to see all of them\n";
  if (stats.bytes > options.warn_size_mb * 1000 * 1000)
    err << "profanalyze: warning: " << path << ": " << megabytes(stats.bytes) << " of JSON (" << stats.events
        << " events); viewers struggle above ~" << options.warn_size_mb
        << " MB: cut it into windows (--step RULE --active N ...) or limit it with --max-events N\n";
}

}  // namespace

// Named as torch.profiler's on_trace_ready (tensorboard_trace_handler)
// names its files, WORKER.SPAN.pt.trace.json[.gz], with the window's last
// step for the span: TensorBoard's plugin lists only such files and shows
// one worker's spans as a choice; HTA reads every .json and .gz of a folder.
std::string window_trace_path(const std::string& path, int64_t last_step) {
  const size_t slash = path.rfind('/');
  const size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = path.find('.', name_start);
  if (dot == name_start) dot = path.find('.', name_start + 1);  // a hidden file's leading dot is its name
  const std::string stem = dot == std::string::npos ? path : path.substr(0, dot);
  const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  return stem + "." + std::to_string(last_step) + ".pt.trace.json" + (gzip ? ".gz" : "");
}

CLI::App* add_trace_command(CLI::App& app, TraceOptions& options) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Chrome trace JSON (chrome://tracing, ui.perfetto.dev) with Kineto's categories; .gz: gzip");
  trace->add_option("FILE", options.files, "capture files; several make one timeline (clock anchors)")->required();
  trace->add_option("-o,--output", options.output,
                    "trace file (.json or .json.gz; - for stdout); with a schedule, NAME.<last step>.pt.trace.json[.gz] per "
                    "window, as torch.profiler's on_trace_ready names them")
      ->capture_default_str();
  trace->add_option("--max-events", options.max_events, "stop after N events (with a warning); 0: all")
      ->capture_default_str();
  trace->add_option("--warn-size-mb", options.warn_size_mb, "warn when a trace is larger than this")
      ->capture_default_str();
  add_window_options(trace, options.windows);
  return trace;
}

int run_trace_command(const TraceOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<RunWindows> windows = RunWindows::from_options(options.windows, err);
  if (!windows) return kExitUsage;
  Run run;
  if (!load_files(options.files, run, err)) return kExitBadInput;
  if (!windows->resolve(run, err)) return kExitBadInput;
  const bool to_stdout = options.output == "-";
  if (to_stdout && windows->windows().size() > 1) {
    err << "profanalyze: -o - writes one trace; the schedule gives " << windows->windows().size()
        << " windows: give a file name\n";
    return kExitUsage;
  }

  const SymbolizingFrameNamer namer;
  for (const RunWindow& w : windows->windows()) {
    Run storage;
    const Run& events = windows->events_of(run, w, storage);
    ChromeTraceOptions trace;
    trace.max_events = options.max_events;
    trace.namer = &namer;
    std::string path = options.output;
    trace.trace_name = w.whole_run() ? "profanalyze trace" : "profanalyze trace, " + w.title();
    if (!w.whole_run() && !w.steps.empty()) path = window_trace_path(options.output, w.steps.back());
    if (to_stdout) {
      StreamTraceSink sink(out);
      warn_about_size(options, "<stdout>", write_chrome_trace(events, trace, sink), err);
      continue;
    }
    TraceFile file;
    if (!file.open(path)) {
      err << "profanalyze: " << file.error() << '\n';
      return kExitBadInput;
    }
    const ChromeTraceStats stats = write_chrome_trace(events, trace, file);
    if (!file.close()) {
      err << "profanalyze: " << file.error() << '\n';
      return kExitBadInput;
    }
    out << path << ": " << stats.events << " events" << (w.whole_run() ? "" : ", " + w.title()) << '\n';
    warn_about_size(options, path, stats, err);
  }
  return kExitOk;
}

}  // namespace prof::analyzer
