#include "cli/window_options.h"

#include "window/auto_steps.h"

namespace prof::analyzer {
namespace {

// torch's default step annotation: what torch.profiler's step() emits.
constexpr const char* kDefaultStepRule = "nvtx:^ProfilerStep#[0-9]+$";

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

}  // namespace

void add_window_options(CLI::App* command, WindowOptions& options) {
  command->add_option("--step", options.step,
                      "step boundaries: nvtx:REGEX, kernel:REGEX, api:NAME or auto; default with a schedule: " +
                          std::string(kDefaultStepRule));
  auto* skip = command->add_option("--skip-first", options.schedule.skip_first, "torch.profiler.schedule skip_first");
  auto* wait = command->add_option("--wait", options.schedule.wait, "schedule wait: steps not recorded per cycle");
  auto* warmup = command->add_option("--warmup", options.schedule.warmup, "schedule warmup: recorded, then dropped");
  auto* active = command->add_option("--active", options.schedule.active, "schedule active: steps per window");
  auto* repeat = command->add_option("--repeat", options.schedule.repeat, "schedule repeat: cycles; 0: until the end");
  command->callback([&options, skip, wait, warmup, active, repeat] {
    options.schedule_given = skip->count() + wait->count() + warmup->count() + active->count() + repeat->count() > 0;
  });
}

std::string RunWindow::title() const {
  if (whole_run()) return "Whole run";
  const std::string list = (steps.size() == 1 ? "step " : "steps ") + step_list(steps);
  if (merged) return "All windows merged: " + list;
  return "Window " + std::to_string(index) + ": " + list + (partial ? " (partial: the run ended inside it)" : "");
}

std::optional<RunWindows> RunWindows::from_options(const WindowOptions& options, std::ostream& err) {
  RunWindows out;
  out.options_ = options;
  if (options.schedule_given) {
    if (std::string bad = options.schedule.validate(); !bad.empty()) {
      err << "profanalyze: " << bad << '\n';
      return std::nullopt;
    }
  }
  const std::string text = options.step.empty() && options.schedule_given ? kDefaultStepRule : options.step;
  if (!text.empty()) {
    std::string error;
    out.rule_ = parse_step_rule(text, error);
    if (!out.rule_) {
      err << "profanalyze: " << error << '\n';
      return std::nullopt;
    }
  }
  return out;
}

bool RunWindows::resolve(const Run& run, std::ostream& err) {
  windows_ = {RunWindow{}};
  membership_.reset();
  resolved_rule_.reset();
  steps_ = RunSteps();
  if (!rule_) return true;
  StepRule rule = *rule_;
  if (rule.kind == StepRule::Kind::kAuto) {
    const AutoSteps detected = detect_steps(run);
    err << "profanalyze: --step auto: " << detected.message << '\n';
    if (!detected.rule) return !options_.schedule_given;
    rule = *detected.rule;
  }
  steps_ = find_steps(run, rule);
  resolved_rule_ = rule;
  const RunSteps& steps = steps_;
  err << "profanalyze: --step " << rule.spelling() << ": " << steps.count() << " steps\n";
  if (steps.count() == 0) {
    err << "profanalyze: no steps found by --step " << rule.spelling() << '\n';
    // Steps only matter for a schedule; without one the run is still one window.
    return !options_.schedule_given;
  }
  if (!options_.schedule_given) return true;
  membership_ = step_membership(run, steps);
  windows_.clear();
  for (StepWindow& w : schedule_windows(options_.schedule, steps.count()))
    windows_.push_back(RunWindow{w.index, std::move(w.steps), w.partial});
  if (windows_.empty()) err << "profanalyze: the schedule records none of the " << steps.count() << " steps\n";
  return true;
}

void RunWindows::merge_windows() {
  if (!membership_ || windows_.empty()) return;
  RunWindow all;
  all.merged = true;
  for (const RunWindow& w : windows_) all.steps.insert(all.steps.end(), w.steps.begin(), w.steps.end());
  windows_ = {std::move(all)};
}

const Run& RunWindows::events_of(const Run& run, const RunWindow& w, Run& storage) const {
  if (w.whole_run() || !membership_) return run;
  storage = select_steps(run, *membership_, w.steps);
  return storage;
}

}  // namespace prof::analyzer
