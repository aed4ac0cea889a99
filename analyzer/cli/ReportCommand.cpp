#include "cli/ReportCommand.h"

#include "cli/LoadFiles.h"
#include "cli/ProfAnalyze.h"
#include "model/RangeTree.h"
#include "symbols/SymbolizingFrameNamer.h"
#include "views/FrameNames.h"
#include "views/KeyAverageCells.h"
#include "views/KeyAverages.h"
#include "views/NsysSummary.h"
#include "views/SortKey.h"
#include "views/TableFormatter.h"
#include "window/AutoSteps.h"
#include "window/Steps.h"

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
  bool wholeRun = true;
};

// "3-5, 8, 10-11"
std::string stepList(const std::vector<int64_t>& steps) {
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

std::string windowTitle(const ReportWindow& w) {
  if (w.wholeRun) return "Whole run";
  const std::string steps = (w.steps.size() == 1 ? "step " : "steps ") + stepList(w.steps);
  if (w.index < 0) return "All windows merged: " + steps;
  return "Window " + std::to_string(w.index) + ": " + steps + (w.partial ? " (partial: the run ended inside it)" : "");
}

std::string windowLabel(const ReportWindow& w) {
  if (w.wholeRun) return "all";
  return w.index < 0 ? "merged" : std::to_string(w.index);
}

std::string windowJson(const ReportWindow& w) {
  std::string out = "\"window\":" + (w.index < 0 ? std::string("null") : std::to_string(w.index)) +
                    ",\"title\":" + jsonString(windowTitle(w)) + ",\"whole_run\":" + (w.wholeRun ? "true" : "false") +
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

DropTotals dropTotals(const Run& run) {
  DropTotals d;
  for (const ProcessInfo& p : run.processes) {
    if (p.drops) {
      d.agent += p.drops->ring_full();
      d.cupti += p.drops->cupti_records();
      d.truncated += p.drops->truncated_payloads();
    }
    d.unterminated += p.unterminatedRanges;
  }
  return d;
}

// Honesty footer of the text formats: what the numbers above are missing.
std::string dropFooter(const DropTotals& d) {
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
bool resolveSteps(const Run& run, std::optional<StepRule> rule, RunSteps& steps, std::ostream& err) {
  if (rule->kind == StepRule::Kind::kAuto) {
    const AutoSteps detected = detectSteps(run);
    err << "profanalyze: --step auto: " << detected.message << '\n';
    if (!detected.rule) return false;
    rule = detected.rule;
  }
  steps = findSteps(run, *rule);
  err << "profanalyze: --step " << rule->spelling() << ": " << steps.count() << " steps\n";
  if (steps.count() == 0) {
    err << "profanalyze: no steps found by --step " << rule->spelling() << '\n';
    return false;
  }
  return true;
}

}  // namespace

CLI::App* addReportCommand(CLI::App& app, ReportOptions& options) {
  CLI::App* report = app.add_subcommand(
      "report", "torch key_averages().table() of NVTX ranges, CUDA API calls and GPU work, over all files");
  report->add_option("FILE", options.files, "capture files; several load into one run")->required();
  report->add_option("--sort-by", options.sortBy, "torch sort_by key (descending); default: first occurrence")
      ->check(CLI::IsMember(sortKeyNames()));
  report->add_option("--row-limit", options.rowLimit, "rows to print; -1: all, 0: none")->capture_default_str();
  report->add_option("--time-unit", options.timeUnit, "print every time in this unit; default: per cell")
      ->check(CLI::IsMember({"s", "ms", "us"}));
  report->add_flag("--top-level-only", options.topLevelOnly, "only rows whose first event has no parent");
  report->add_flag("--group-by-input-shape", options.groupByInputShape,
                   "rows per launch configuration (grid, block, shared memory) or transfer (kind, bytes)");
  report->add_option("--group-by-stack-n", options.groupByStackN,
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
  auto* skip = report->add_option("--skip-first", options.schedule.skipFirst, "torch.profiler.schedule skip_first");
  auto* wait = report->add_option("--wait", options.schedule.wait, "schedule wait: steps not recorded per cycle");
  auto* warmup = report->add_option("--warmup", options.schedule.warmup, "schedule warmup: recorded, then dropped");
  auto* active = report->add_option("--active", options.schedule.active, "schedule active: steps per window");
  auto* repeat = report->add_option("--repeat", options.schedule.repeat, "schedule repeat: cycles; 0: until the end");
  report->add_flag("--merge-windows", options.mergeWindows, "one table over all windows instead of one per window");
  report->callback([&options, skip, wait, warmup, active, repeat] {
    options.scheduleGiven = skip->count() + wait->count() + warmup->count() + active->count() + repeat->count() > 0;
  });
  return report;
}

int runReportCommand(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  if (options.scheduleGiven) {
    if (std::string bad = options.schedule.validate(); !bad.empty()) {
      err << "profanalyze: " << bad << '\n';
      return kExitUsage;
    }
  }
  const std::string stepText = options.step.empty() && options.scheduleGiven ? kDefaultStepRule : options.step;
  std::optional<StepRule> stepRule;
  if (!stepText.empty()) {
    std::string error;
    stepRule = parseStepRule(stepText, error);
    if (!stepRule) {
      err << "profanalyze: " << error << '\n';
      return kExitUsage;
    }
  }
  Run run;
  if (!loadFiles(options.files, run, err)) return kExitBadInput;

  std::vector<ReportWindow> windows;
  std::optional<StepMembership> membership;
  if (stepRule) {
    RunSteps steps;
    if (!resolveSteps(run, stepRule, steps, err)) {
      // Steps only matter for a schedule; without one the run is still one window.
      if (options.scheduleGiven) return kExitBadInput;
    } else if (options.scheduleGiven) {
      membership = stepMembership(run, steps);
      for (StepWindow& w : scheduleWindows(options.schedule, steps.count()))
        windows.push_back(ReportWindow{w.index, std::move(w.steps), w.partial, false});
      if (windows.empty()) err << "profanalyze: the schedule records none of the " << steps.count() << " steps\n";
      if (options.mergeWindows && !windows.empty()) {
        ReportWindow merged;
        merged.wholeRun = false;
        for (const ReportWindow& w : windows) merged.steps.insert(merged.steps.end(), w.steps.begin(), w.steps.end());
        windows = {merged};
      }
    }
  }
  if (!membership) windows = {ReportWindow{}};

  TableOptions table;
  if (!options.sortBy.empty()) table.sortBy = options.sortBy;
  table.rowLimit = options.rowLimit;
  if (!options.timeUnit.empty()) table.timeUnit = parseTimeUnit(options.timeUnit).value_or(TimeUnit::kAuto);
  table.topLevelOnly = options.topLevelOnly;
  table.showInputShapes = options.groupByInputShape;
  table.showStacks = options.groupByStackN > 0;
  // Memory columns: when the run recorded memory of that kind at all, so
  // every window's table has the same columns.
  for (const MemoryEvent& m : run.memoryEvents) (m.onDevice ? table.showCudaMemory : table.showCpuMemory) = true;
  // Function names from the modules' symbol tables; module+offset where none.
  const SymbolizingFrameNamer namer;
  const GroupOptions group{options.groupByInputShape, options.groupByStackN, &namer};
  const std::optional<NsysView> nsys = parseNsysView(options.view);
  const DropTotals drops = dropTotals(run);

  std::string json;
  for (size_t i = 0; i < windows.size(); ++i) {
    const ReportWindow& w = windows[i];
    const Run selected = membership ? selectSteps(run, *membership, w.steps) : Run();
    const Run& events = membership ? selected : run;
    ViewTable cells;
    std::string text;
    std::string totalsJson;
    if (nsys) {
      const auto rows = nsysSummary(events, *nsys);
      if (options.format == "table") text = formatNsysSummary(rows, *nsys);
      else cells = nsysCells(rows, *nsys);
    } else {
      const RangeTree tree(events);
      auto rows = keyAverages(events, tree, group);
      if (options.format == "table") {
        text = TableFormatter(table).format(std::move(rows));
      } else {
        const TableTotals totals = tableTotals(rows);
        totalsJson = ",\"self_cpu_time_total_ns\":" + std::to_string(totals.selfCpuNs) +
                     ",\"self_cuda_time_total_ns\":" + std::to_string(totals.selfCudaNs);
        cells = keyAverageCells(selectRows(std::move(rows), table), totals);
      }
    }
    if (options.format == "table") {
      if (i) out << '\n';
      if (!w.wholeRun) out << windowTitle(w) << '\n';
      out << text;
    } else if (options.format == "csv") {
      if (i == 0) out << csvHeader(cells);
      out << csvRows(cells, windowLabel(w));
    } else {
      json += std::string(i ? "," : "") + "{" + windowJson(w) + totalsJson + ",\"rows\":" + jsonRows(cells) + "}";
    }
  }
  if (options.format == "table") {
    out << dropFooter(drops);
  } else if (options.format == "json") {
    out << "{\"view\":" << jsonString(options.view) << ",\"windows\":[" << json << "],\"drops\":{\"agent_buffers\":"
        << drops.agent << ",\"cupti\":" << drops.cupti << ",\"truncated_payloads\":" << drops.truncated
        << "},\"unterminated_ranges\":" << drops.unterminated << "}\n";
  }
  return kExitOk;
}

}  // namespace prof::analyzer
