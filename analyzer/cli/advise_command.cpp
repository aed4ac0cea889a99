#include "cli/advise_command.h"

#include "advise/advise_format.h"
#include "advise/model_access.h"
#include "cli/load_files.h"
#include "cli/prof_analyze.h"
#include "step_rule.h"
#include "symbols/symbolizing_frame_namer.h"

namespace prof::analyzer {
namespace {

// torch.profiler's step() ranges when the run has them; otherwise the
// period of the launch sequence.
std::string default_step_rule(const Run& run) {
  std::string error;
  const std::optional<StepRule> profiler_step = StepRule::parse(kProfilerStepRule, error);
  for (const CpuEvent& e : run.cpu_events)
    if (e.kind != CpuEventKind::kApiCall && profiler_step->matches(run.name(e.name))) return kProfilerStepRule;
  return "auto";
}

}  // namespace

CLI::App* add_advise_command(CLI::App& app, AdviseOptions& options) {
  CLI::App* advise = app.add_subcommand(
      "advise", "the bottlenecks: GPU idle time and its causes, launch-bound loops, syncs, copies, kernels, memory, "
                "ranks; ranked by the time they cost");
  advise->add_option("FILE", options.files, "capture files; several (one per rank) load into one run")->required();
  advise->add_option("--format", options.format, "text or json")->check(CLI::IsMember({"text", "json"}))->capture_default_str();
  advise->add_flag("--no-symbols", options.no_symbols, "name call sites module+0xOFFSET, without reading the modules");
  advise->add_option("--min-share", options.min_share_pct, "leave out findings costing less than this % of the GPU span (first to last GPU work)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  add_window_options(advise, options.windows);
  return advise;
}

std::string advise_default_step_rule(const Run& run) { return default_step_rule(run); }

int make_advise_report(const Run& run, const AdviseOptions& options, const FrameNamer& namer, AdviseReport& report,
                       std::ostream& err, const Run* all_steps, RunWindows* steps_found_in) {
  WindowOptions window_options = options.windows;
  if (window_options.step.empty()) window_options.step = default_step_rule(run);
  std::optional<RunWindows> windows = RunWindows::from_options(window_options, err);
  if (!windows) return kExitUsage;
  if (!windows->resolve(run, err, steps_found_in)) return kExitBadInput;

  report = AdviseReport{};
  const RunSteps& steps = windows->steps();
  if (windows->resolved_rule() && steps.count() > 0) {
    report.step_rule = "--step " + windows->resolved_rule()->spelling();
    report.step_count = steps.count();
  }
  for (const ProcessInfo& p : run.processes)
    report.processes.push_back(
        AdviseProcess{process_pid(p), process_rank(p)});

  AdviseInput input;
  input.run = &run;
  input.steps = report.step_count > 0 ? &steps : nullptr;
  input.namer = &namer;
  input.min_cost_share = options.min_share_pct / 100.0;
  input.jobs = load_jobs();
  for (const RunWindow& w : windows->windows()) {
    AdviseReportWindow rw;
    Run storage;
    if (w.whole_run() && report.step_count > 0) {
      // Every step, without the set-up and teardown around them.
      input.events = all_steps;
      if (!all_steps) {
        if (every_event_in_a_step(run, steps)) {
          input.events = &run;
        } else {
          std::vector<int64_t> all(static_cast<size_t>(steps.count()));
          for (int64_t i = 0; i < steps.count(); ++i) all[static_cast<size_t>(i)] = i;
          storage = select_steps(run, step_membership(run, steps), all);
          input.events = &storage;
        }
      }
      rw.title = "All steps";
    } else {
      input.events = &windows->events_of(run, w, storage);
      input.window_steps = w.steps;
      rw.title = w.title();
      rw.index = w.index;
      rw.steps = w.steps;
      rw.partial = w.partial;
    }
    rw.result = advise_window(input);
    report.windows.push_back(std::move(rw));
  }
  return kExitOk;
}

int run_advise_command(const AdviseOptions& options, std::ostream& out, std::ostream& err) {
  if (!RunWindows::from_options(options.windows, err)) return kExitUsage;
  Run run;
  if (!load_files(options.files, run, err)) return kExitBadInput;

  const CommandFrameNamer frame_namer(
      run, options.no_symbols, true, err,
      "profanalyze: warning: addr2line failed on some modules; their call sites have no file:line\n");
  const FrameNamer& namer = frame_namer.namer();

  AdviseReport report;
  if (const int exit_code = make_advise_report(run, options, namer, report, err); exit_code != kExitOk)
    return exit_code;
  out << (options.format == "json" ? advise_json(report) : advise_text(report));
  return kExitOk;
}

}  // namespace prof::analyzer
