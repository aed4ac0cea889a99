#include "cli/report_command.h"

#include "cli/load_files.h"
#include "cli/prof_analyze.h"
#include "model/range_tree.h"
#include "symbols/symbolizing_frame_namer.h"
#include "views/frame_names.h"
#include "views/key_average_cells.h"
#include "views/key_averages.h"
#include "views/nsys_summary.h"
#include "views/sort_key.h"
#include "views/table_formatter.h"
#include "window/auto_steps.h"
#include "window/steps.h"

namespace prof::analyzer {
namespace {

// torch's default step annotation: what torch.profiler's step() emits.
constexpr const char* kDefaultStepRule = "nvtx:^ProfilerStep#[0-9]+$";

// One table's worth of events: a schedule window, all windows merged, or
// the whole run.
struct ReportWindow {
  int64_t index = -1;          // -1: the whole run, or all windows merged
  std::vector<int64_t> steps;  // empty for the whole run
  bool partial = false;
  bool whole_run = true;
};

// "3-5, 8, 10-11"
std::string step_list(const std::vector<int64_t>& steps) {
  std::string out;
  for (size_t i = 0; i < steps.size();) {
    size_t j = i;
    while (j + 1 < steps.size() && steps[j + 1] == steps[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(steps[i]);
    if (j > i) out += "-" + std::to_string(steps[j]);
    i = j + 1;
  }
  return out;
}

std::string window_title(const ReportWindow& w) {
  if (w.whole_run) return "Whole run";
  const std::string steps = (w.steps.size() == 1 ? "step " : "steps ") + step_list(w.steps);
  if (w.index < 0) return "All windows merged: " + steps;
  return "Window " + std::to_string(w.index) + ": " + steps + (w.partial ? " (partial: the run ended inside it)" : "");
}

std::string window_label(const ReportWindow& w) {
  if (w.whole_run) return "all";
  return w.index < 0 ? "merged" : std::to_string(w.index);
}

std::string window_json(const ReportWindow& w) {
  std::string out = "\"window\":" + (w.index < 0 ? std::string("null") : std::to_string(w.index)) +
                    ",\"title\":" + json_string(window_title(w)) + ",\"whole_run\":" + (w.whole_run ? "true" : "false") +
                    ",\"partial\":" + (w.partial ? "true" : "false") + ",\"steps\":[";
  for (size_t i = 0; i < w.steps.size(); ++i) out += (i ? "," : "") + std::to_string(w.steps[i]);
  return out + "]";
}

struct DropTotals {
  uint64_t agent = 0;
  uint64_t cupti = 0;
  uint64_t truncated = 0;
  uint64_t unterminated = 0;
};

DropTotals drop_totals(const Run& run) {
  DropTotals d;
  for (const ProcessInfo& p : run.processes) {
    if (p.drops) {
      d.agent += p.drops->ring_full();
      d.cupti += p.drops->cupti_records();
      d.truncated += p.drops->truncated_payloads();
    }
    d.unterminated += p.unterminated_ranges;
  }
  return d;
}

// Honesty footer of the text formats: what the numbers above are missing.
std::string drop_footer(const DropTotals& d) {
  std::string out;
  if (d.agent || d.cupti)
    out += "records dropped: " + std::to_string(d.agent) + " (agent buffers), " + std::to_string(d.cupti) + " (CUPTI)\n";
  if (d.truncated) out += "payloads truncated: " + std::to_string(d.truncated) + " (strings or stacks cut to fit a record)\n";
  if (d.unterminated)
    out += "unterminated NVTX ranges: " + std::to_string(d.unterminated) +
           " (still open when recording ended; their time runs to the end of the recording)\n";
  return out;
}

// Finds the steps of a --step rule. False after printing why.
bool resolve_steps(const Run& run, std::optional<StepRule> rule, RunSteps& steps, std::ostream& err) {
  if (rule->kind == StepRule::Kind::kAuto) {
    const AutoSteps detected = detect_steps(run);
    err << "profanalyze: --step auto: " << detected.message << '\n';
    if (!detected.rule) return false;
    rule = detected.rule;
  }
  steps = find_steps(run, *rule);
  err << "profanalyze: --step " << rule->spelling() << ": " << steps.count() << " steps\n";
  if (steps.count() == 0) {
    err << "profanalyze: no steps found by --step " << rule->spelling() << '\n';
    return false;
  }
  return true;
}

}  // namespace

CLI::App* add_report_command(CLI::App& app, ReportOptions& options) {
  CLI::App* report = app.add_subcommand(
      "report", "torch key_averages().table() of NVTX ranges, CUDA API calls and GPU work, over all files");
  report->add_option("FILE", options.files, "capture files; several load into one run")->required();
  report->add_option("--sort-by", options.sort_by, "torch sort_by key (descending); default: first occurrence")
      ->check(CLI::IsMember(sort_key_names()));
  report->add_option("--row-limit", options.row_limit, "rows to print; -1: all, 0: none")->capture_default_str();
  report->add_option("--time-unit", options.time_unit, "print every time in this unit; default: per cell")
      ->check(CLI::IsMember({"s", "ms", "us"}));
  report->add_flag("--top-level-only", options.top_level_only, "only rows whose first event has no parent");
  report->add_flag("--group-by-input-shape", options.group_by_input_shape,
                   "rows per launch configuration (grid, block, shared memory) or transfer (kind, bytes)");
  report->add_option("--group-by-stack-n", options.group_by_stack_n,
                     "rows per N innermost frames of the API call's stack; adds Source Location")
      ->check(CLI::NonNegativeNumber);
  report->add_option("--view", options.view, "table: torch's table; kernels|api|memcpy|nvtx: nsys stats summaries")
      ->check(CLI::IsMember({"table", "kernels", "api", "memcpy", "nvtx"}))
      ->capture_default_str();
  report->add_option("--format", options.format, "table (text), csv (RFC 4180) or json (exact ns and bytes)")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  report->add_option("--step", options.step,
                     "step boundaries: nvtx:REGEX, kernel:REGEX, api:NAME or auto; default with a schedule: " +
                         std::string(kDefaultStepRule));
  auto* skip = report->add_option("--skip-first", options.schedule.skip_first, "torch.profiler.schedule skip_first");
  auto* wait = report->add_option("--wait", options.schedule.wait, "schedule wait: steps not recorded per cycle");
  auto* warmup = report->add_option("--warmup", options.schedule.warmup, "schedule warmup: recorded, then dropped");
  auto* active = report->add_option("--active", options.schedule.active, "schedule active: steps per window");
  auto* repeat = report->add_option("--repeat", options.schedule.repeat, "schedule repeat: cycles; 0: until the end");
  report->add_flag("--merge-windows", options.merge_windows, "one table over all windows instead of one per window");
  report->callback([&options, skip, wait, warmup, active, repeat] {
    options.schedule_given = skip->count() + wait->count() + warmup->count() + active->count() + repeat->count() > 0;
  });
  return report;
}

int run_report_command(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  if (options.schedule_given) {
    if (std::string bad = options.schedule.validate(); !bad.empty()) {
      err << "profanalyze: " << bad << '\n';
      return kExitUsage;
    }
  }
  const std::string step_text = options.step.empty() && options.schedule_given ? kDefaultStepRule : options.step;
  std::optional<StepRule> step_rule;
  if (!step_text.empty()) {
    std::string error;
    step_rule = parse_step_rule(step_text, error);
    if (!step_rule) {
      err << "profanalyze: " << error << '\n';
      return kExitUsage;
    }
  }
  Run run;
  if (!load_files(options.files, run, err)) return kExitBadInput;

  std::vector<ReportWindow> windows;
  std::optional<StepMembership> membership;
  if (step_rule) {
    RunSteps steps;
    if (!resolve_steps(run, step_rule, steps, err)) {
      // Steps only matter for a schedule; without one the run is still one window.
      if (options.schedule_given) return kExitBadInput;
    } else if (options.schedule_given) {
      membership = step_membership(run, steps);
      for (StepWindow& w : schedule_windows(options.schedule, steps.count()))
        windows.push_back(ReportWindow{w.index, std::move(w.steps), w.partial, false});
      if (windows.empty()) err << "profanalyze: the schedule records none of the " << steps.count() << " steps\n";
      if (options.merge_windows && !windows.empty()) {
        ReportWindow merged;
        merged.whole_run = false;
        for (const ReportWindow& w : windows) merged.steps.insert(merged.steps.end(), w.steps.begin(), w.steps.end());
        windows = {merged};
      }
    }
  }
  if (!membership) windows = {ReportWindow{}};

  TableOptions table;
  if (!options.sort_by.empty()) table.sort_by = options.sort_by;
  table.row_limit = options.row_limit;
  if (!options.time_unit.empty()) table.time_unit = parse_time_unit(options.time_unit).value_or(TimeUnit::kAuto);
  table.top_level_only = options.top_level_only;
  table.show_input_shapes = options.group_by_input_shape;
  table.show_stacks = options.group_by_stack_n > 0;
  // Memory columns: when the run recorded memory of that kind at all, so
  // every window's table has the same columns.
  for (const MemoryEvent& m : run.memory_events) (m.on_device ? table.show_cuda_memory : table.show_cpu_memory) = true;
  // Function names from the modules' symbol tables; module+offset where none.
  const SymbolizingFrameNamer namer;
  const GroupOptions group{options.group_by_input_shape, options.group_by_stack_n, &namer};
  const std::optional<NsysView> nsys = parse_nsys_view(options.view);
  const DropTotals drops = drop_totals(run);

  std::string json;
  for (size_t i = 0; i < windows.size(); ++i) {
    const ReportWindow& w = windows[i];
    const Run selected = membership ? select_steps(run, *membership, w.steps) : Run();
    const Run& events = membership ? selected : run;
    ViewTable cells;
    std::string text;
    std::string totals_json;
    if (nsys) {
      const auto rows = nsys_summary(events, *nsys);
      if (options.format == "table") text = format_nsys_summary(rows, *nsys);
      else cells = nsys_cells(rows, *nsys);
    } else {
      const RangeTree tree(events);
      auto rows = key_averages(events, tree, group);
      if (options.format == "table") {
        text = TableFormatter(table).format(std::move(rows));
      } else {
        const TableTotals totals = table_totals(rows);
        totals_json = ",\"self_cpu_time_total_ns\":" + std::to_string(totals.self_cpu_ns) +
                     ",\"self_cuda_time_total_ns\":" + std::to_string(totals.self_cuda_ns);
        cells = key_average_cells(select_rows(std::move(rows), table), totals);
      }
    }
    if (options.format == "table") {
      if (i) out << '\n';
      if (!w.whole_run) out << window_title(w) << '\n';
      out << text;
    } else if (options.format == "csv") {
      if (i == 0) out << csv_header(cells);
      out << csv_rows(cells, window_label(w));
    } else {
      json += std::string(i ? "," : "") + "{" + window_json(w) + totals_json + ",\"rows\":" + json_rows(cells) + "}";
    }
  }
  if (options.format == "table") {
    out << drop_footer(drops);
  } else if (options.format == "json") {
    out << "{\"view\":" << json_string(options.view) << ",\"windows\":[" << json << "],\"drops\":{\"agent_buffers\":"
        << drops.agent << ",\"cupti\":" << drops.cupti << ",\"truncated_payloads\":" << drops.truncated
        << "},\"unterminated_ranges\":" << drops.unterminated << "}\n";
  }
  return kExitOk;
}

}  // namespace prof::analyzer
