#include "cli/html_command.h"

#include <CLI/CLI.hpp>
#include <optional>
#include <sstream>
#include <utility>

#include "model/side_by_side.h"
#include "cli/advise_command.h"
#include "cli/html_steps.h"
#include "cli/load_files.h"
#include "cli/output_file.h"
#include "cli/prof_analyze.h"
#include "model/range_tree.h"
#include "symbols/symbolizing_frame_namer.h"
#include "views/html_data.h"
#include "views/html_page.h"
#include "views/key_average_cells.h"
#include "views/key_averages.h"
#include "views/nsys_summary.h"
#include "views/table_formatter.h"
#include "views/text_escape.h"

namespace prof::analyzer {
namespace {

// A page holds one report table per window: past this many the selector
// offers the whole run and all windows merged only, so the page stays small.
constexpr size_t kMaxWindows = 64;

// The windows of the selector: the user's schedule, else one window per
// step; nullopt when the run has no steps (the whole run only).
std::optional<RunWindows> step_windows(const Run& run, const WindowOptions& given) {
  WindowOptions options = given;
  if (options.step.empty()) options.step = advise_default_step_rule(run);
  if (!options.schedule_given) {
    options.schedule = Schedule{};  // active 1: each step its own window
    options.schedule_given = true;
  }
  std::ostringstream quiet;  // no steps is not an error for a page
  std::optional<RunWindows> windows = RunWindows::from_options(options, quiet);
  if (!windows || !windows->resolve(run, quiet)) return std::nullopt;
  return windows;
}

// A table's rows as the members that follow its window's title and steps
// in the page's JSON: its totals and rows.
std::string table_json(std::vector<KeyAverage> rows) {
  const TableTotals totals = table_totals(rows);
  TableOptions all;
  all.row_limit = -1;
  return ",\"self_cpu_time_total_ns\":" + std::to_string(totals.self_cpu_ns) +
         ",\"self_cuda_time_total_ns\":" + std::to_string(totals.self_cuda_ns) +
         ",\"rows\":" + json_rows(key_average_cells(select_rows(std::move(rows), all), totals));
}

// A window's report table.
std::string window_table_json(const Run& events, const GroupOptions& group) {
  return table_json(key_averages(events, group));
}

std::string window_json(const std::string& title, int64_t index, bool merged, const std::vector<int64_t>& steps,
                        const std::string& table) {
  return "{\"title\":" + json_string(title) +
         ",\"window\":" + (index < 0 ? std::string("null") : std::to_string(index)) +
         ",\"merged\":" + (merged ? "true" : "false") +
         // The count, not the list: all windows merged can be every one of 10^5 steps.
         ",\"step_count\":" + std::to_string(steps.size()) + table + "}";
}

// The report tables of the step windows and of all of them merged (the
// whole run's is made by the caller).
struct StepTables {
  std::string json;  // ",{...},{...}": to follow the whole run's table
  // Every step's events, when the merged window is every step of the run
  // (no schedule given): advise's "All steps" window, so made only once.
  std::optional<Run> all_steps;
  // The same when those events are the whole run (every event in a step).
  bool all_steps_are_run = false;
  // The step windows, without their membership: advise takes their steps
  // over (the same --step) rather than finding them again.
  std::optional<RunWindows> windows;
};

// A window whose events are the whole run (every event lies in its steps,
// as in a training loop whose ProfilerStep#N ranges hold everything) has
// the whole run's table, `whole_run_table`: taken as it is, rather than
// summed again (at 10M events a sixth of the page's CPU).
StepTables step_tables_json(const Run& run, const WindowOptions& given, const GroupOptions& group,
                            const std::string& whole_run_table) {
  StepTables out;
  std::optional<RunWindows> windows = step_windows(run, given);
  if (!windows) return out;
  auto table_of = [&](const Run& events) {
    return &events == &run ? whole_run_table : window_table_json(events, group);
  };
  if (windows->windows().size() <= kMaxWindows) {
    for (const RunWindow& w : windows->windows()) {
      Run storage;
      const Run& events = windows->events_of(run, w, storage);
      out.json += "," + window_json(w.title(), w.index, false, w.steps, table_of(events));
    }
  }
  if (windows->windows().size() > 1) {
    windows->merge_windows();
    const RunWindow& w = windows->windows().front();
    Run storage;
    const Run& events = windows->events_of(run, w, storage);
    out.json += "," + window_json(w.title(), -1, true, w.steps, table_of(events));
    bool every_step = !given.schedule_given && w.steps.size() == static_cast<size_t>(windows->steps().count());
    for (size_t i = 0; every_step && i < w.steps.size(); ++i) every_step = w.steps[i] == static_cast<int64_t>(i);
    if (every_step && &events == &storage) out.all_steps = std::move(storage);
    out.all_steps_are_run = every_step && &events == &run;
  }
  windows->free_membership();
  out.windows = std::move(windows);
  return out;
}

std::string page_title(const HtmlOptions& options) {
  std::string title = "profanalyze: ";
  for (size_t i = 0; i < options.files.size() && i < 3; ++i) title += (i ? ", " : "") + options.files[i];
  if (options.files.size() > 3) title += ", ...";
  return title;
}

}  // namespace

CLI::App* add_html_command(CLI::App& app, HtmlOptions& options) {
  CLI::App* html = app.add_subcommand(
      "html", "one self-contained page: overview with advise's findings, operators, kernels, memory, stacks, ranks");
  html->add_option("FILE", options.files, "capture files; several (one per rank) load into one run")->required();
  html->add_option("-o,--output", options.output, "HTML file to write; - for stdout")->capture_default_str();
  html->add_flag("--no-symbols", options.no_symbols, "name frames module+0xOFFSET, without reading the modules");
  add_window_options(html, options.windows);
  return html;
}

int run_html_command(const HtmlOptions& options, std::ostream& out, std::ostream& err) {
  if (!RunWindows::from_options(options.windows, err)) return kExitUsage;
  Run run;
  if (!load_files(options.files, run, err)) return kExitBadInput;

  const CommandFrameNamer frame_namer(
      run, options.no_symbols, true, err,
      "profanalyze: warning: addr2line failed on some modules; their frames have no file:line\n");
  const FrameNamer& namer = frame_namer.namer();

  // The page's report tables group by name alone: they name no frames, so
  // any thread may make them.
  const GroupOptions group{false, 0, nullptr};
  std::string data = "{\"title\":" + json_string(page_title(options));
  data += ",\"facts\":" + run_facts_json(run);
  // The whole run's report table first, alone: its walk holds as much per
  // event as the flame graphs (16 bytes per CPU event, cpu_group_sums.h),
  // and the two side by side would pass 600 MB at 10M events. The run's
  // threads are walked side by side (as report's are), and the parent
  // links are kept for the flame graphs, which link the same threads.
  std::optional<RangeParents> parents;
  const std::string whole_run_table = table_json(key_averages(run, group, load_jobs(), &parents));
  // The flame graphs name frames (namer), on this thread, then the step
  // windows' tables, beside the kernels' and copies' tables (at 10M events
  // on two cores 0.38 + 0.15 s against 0.70 s). Each stage's per-event
  // tables are freed before the next, and before advise.
  std::string stacks, kernels, kernel_histograms, copies;
  StepTables step_tables;
  side_by_side(
      load_jobs(),
      [&] {
        stacks = stacks_json(run, *parents, namer);
        parents.reset();
        step_tables = step_tables_json(run, options.windows, group, whole_run_table);
      },
      [&] {
        kernels = json_rows(nsys_cells(nsys_summary(run, NsysView::kKernels), NsysView::kKernels));
        kernel_histograms = kernel_histograms_json(run);
        copies = copy_bandwidth_json(run);
      });
  data += ",\"stacks\":" + stacks;
  data += ",\"windows\":[" + window_json("Whole run", -1, false, {}, whole_run_table) + step_tables.json + "]";
  data += ",\"kernels\":" + kernels;
  data += ",\"kernel_histograms\":" + kernel_histograms;
  data += ",\"copies\":" + copies;
  data += ",\"memory\":" + memory_json(run, namer);
  // The overview's findings, steps, utilisation and ranks: advise's own
  // report, as `advise --format json` prints it.
  AdviseOptions advise_options;
  advise_options.windows = options.windows;
  AdviseReport advise;
  std::ostringstream advise_err;
  const Run* all_steps = step_tables.all_steps      ? &*step_tables.all_steps
                         : step_tables.all_steps_are_run ? &run
                                                         : nullptr;
  RunWindows* steps_found_in = step_tables.windows ? &*step_tables.windows : nullptr;
  if (make_advise_report(run, advise_options, namer, advise, advise_err, all_steps, steps_found_in) == kExitOk) {
    // The steps go as bars (bounded in number); advise's per-step list would
    // grow the page with every step.
    if (!advise.windows.empty()) data += ",\"step_bars\":" + step_bars_json(advise, advise.windows.front().result);
    for (AdviseReportWindow& w : advise.windows) w.result.steps.clear();
    data += ",\"advise\":" + advise_json(advise) + "}";
  } else {
    err << advise_err.str() << "profanalyze: the page has no advise findings\n";
    data += ",\"advise\":null}";
  }

  const std::string page = html_page(page_title(options), data);
  return write_output(options.output, [&](std::ostream& to) { to << page; }, out, err);
}

}  // namespace prof::analyzer
