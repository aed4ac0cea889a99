#include "cli/trace_command.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "cli/driver_calls_note.h"
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
    err << "profanalyze: warning: " << path << ": " << megabytes(stats.bytes) << " of JSON (" << stats.events_in_file
        << " events); viewers struggle above ~" << options.warn_size_mb
        << " MB: cut it into windows (--step RULE --active N ...) or limit it with --max-events N\n";
}

// TensorBoard's plugin (its distributed view) and HTA read one rank per
// file; a trace of several ranks' captures is one timeline they misread.
void warn_about_ranks(const Run& run, const std::string& path, std::ostream& err) {
  std::set<int64_t> ranks;
  for (const ProcessInfo& p : run.processes)
    if (p.process && p.process->rank >= 0) ranks.insert(p.process->rank);
  if (ranks.size() < 2) return;
  err << "profanalyze: warning: " << path << " holds " << ranks.size()
      << " ranks on one timeline; TensorBoard's plugin and HTA read one rank per file: trace each rank's capture "
         "into its own file (docs/trace-readers.md)\n";
}

// The steps --step found in window `w`, to write as ProfilerStep#N where
// the program marked none (TensorBoard's plugin reads steps by that name).
std::vector<TraceStep> steps_in_window(const RunWindows& windows, const RunWindow& w, size_t processes) {
  std::vector<TraceStep> steps;
  if (!windows.resolved_rule()) return steps;
  for (uint32_t p = 0; p < processes; ++p) {
    if (!w.processes.empty() && std::find(w.processes.begin(), w.processes.end(), p) == w.processes.end()) continue;
    for (const Step& s : windows.steps().of_process(p))
      if (w.steps.empty() || std::find(w.steps.begin(), w.steps.end(), s.index) != w.steps.end())
        steps.push_back({p, s.index, s.start_ns, s.end_ns});
  }
  return steps;
}

}  // namespace

// Named as torch.profiler's on_trace_ready (tensorboard_trace_handler)
// names its files, WORKER.SPAN.pt.trace.json[.gz], with the window's last
// step for the span: TensorBoard's plugin lists only such files and shows
// one worker's spans as a choice; HTA reads every .json and .gz of a folder.
std::string window_trace_path(const std::string& path, int64_t last_step, int width) {
  const size_t slash = path.rfind('/');
  const size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = path.find('.', name_start);
  if (dot == name_start) dot = path.find('.', name_start + 1);  // a hidden file's leading dot is its name
  const std::string stem = dot == std::string::npos ? path : path.substr(0, dot);
  const bool gzip = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  std::string step = std::to_string(last_step);
  if (last_step >= 0 && static_cast<int>(step.size()) < width) step.insert(0, static_cast<size_t>(width) - step.size(), '0');
  return stem + "." + step + ".pt.trace.json" + (gzip ? ".gz" : "");
}

CLI::App* add_trace_command(CLI::App& app, TraceOptions& options) {
  CLI::App* trace = app.add_subcommand(
      "trace", "Chrome trace JSON (chrome://tracing, ui.perfetto.dev) with Kineto's categories; .gz: gzip");
  trace->add_option("FILE", options.files, "capture files; several make one timeline (clock anchors)")->required();
  trace->add_option("-o,--output", options.output,
                    "trace file (.json or .json.gz; - for stdout); with a schedule, NAME.<last step, zero-padded>.pt.trace.json[.gz] per "
                    "window, as torch.profiler's on_trace_ready names them")
      ->capture_default_str();
  trace->add_option("--max-events", options.max_events, "stop after N events (with a warning); 0: all")
      ->capture_default_str();
  trace->add_option("--warn-size-mb", options.warn_size_mb, "warn when a trace is larger than this")
      ->capture_default_str();
  trace->add_flag("--driver-calls", options.driver_calls,
                  "driver calls made inside a runtime call as events of their own (default: left out, as Kineto); "
                  "recorded under PROF_API=all");
  add_window_options(trace, options.windows);
  return trace;
}

int run_trace_command(const TraceOptions& options, std::ostream& out, std::ostream& err) {
  std::optional<RunWindows> windows = RunWindows::from_options(options.windows, err);
  if (!windows) return kExitUsage;
  Run run;
  if (!load_files(options.files, run, err)) return kExitBadInput;
  if (!windows->resolve(run, err)) return kExitBadInput;
  if (options.driver_calls) note_nested_calls_not_recorded(run.processes, err);
  const bool to_stdout = options.output == "-";
  if (to_stdout && windows->windows().size() > 1) {
    err << "profanalyze: -o - writes one trace; the schedule gives " << windows->windows().size()
        << " windows: give a file name\n";
    return kExitUsage;
  }

  const SymbolizingFrameNamer namer;
  int step_width = 1;
  for (const RunWindow& w : windows->windows())
    if (!w.steps.empty()) step_width = std::max(step_width, static_cast<int>(std::to_string(w.steps.back()).size()));
  for (const RunWindow& w : windows->windows()) {
    Run storage;
    const Run& events = windows->events_of(run, w, storage);
    ChromeTraceOptions trace;
    trace.max_events = options.max_events;
    trace.namer = &namer;
    trace.steps = steps_in_window(*windows, w, run.processes.size());
    if (windows->resolved_rule()) trace.step_rule = windows->resolved_rule()->spelling();
    trace.driver_calls = options.driver_calls;
    trace.jobs = load_jobs();
    std::string path = options.output;
    trace.trace_name = w.whole_run() ? "profanalyze trace" : "profanalyze trace, " + w.title();
    if (!w.whole_run() && !w.steps.empty()) path = window_trace_path(options.output, w.steps.back(), step_width);
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
    warn_about_ranks(events, path, err);
    if (!file.close()) {
      err << "profanalyze: " << file.error() << '\n';
      return kExitBadInput;
    }
    out << path << ": " << stats.events_in_file << " events" << (w.whole_run() ? "" : ", " + w.title()) << '\n';
    warn_about_size(options, path, stats, err);
  }
  return kExitOk;
}

}  // namespace prof::analyzer
