#include "cli/window_options.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "cli/load_files.h"
#include "window/auto_steps.h"
#include "window/repeating_ranges.h"

namespace prof::analyzer {
namespace {

constexpr const char* kDefaultStepRule = kProfilerStepRule;

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

// After a schedule found no steps (a program without torch.profiler's
// ProfilerStep# ranges): the NVTX ranges that repeat, and rules to try.
void suggest_step_rules(const Run& run, std::ostream& err) {
  const std::vector<RepeatingRange> ranges = repeating_ranges(run);
  if (ranges.empty()) {
    err << "profanalyze: no NVTX range repeats; try --step auto (the period of the CUDA calls), --step "
           "kernel:REGEX or --step api:NAME\n";
    return;
  }
  err << "profanalyze: NVTX ranges that repeat:";
  const size_t shown = std::min<size_t>(ranges.size(), 5);
  for (size_t i = 0; i < shown; ++i)
    err << (i ? ", " : " ") << ranges[i].shape << " (" << ranges[i].count << " times)";
  if (ranges.size() > shown) err << " and " << ranges.size() - shown << " more";
  err << "\nprofanalyze: try --step '" << ranges.front().rule() << "' or --step auto\n";
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
  if (steps.empty()) {
    return merged ? std::string("All windows merged") : "Window " + std::to_string(index) + " (cut by time)";
  }
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
  out.step_text_ = text;
  if (!text.empty()) {
    std::string error;
    out.step_ = parse_step_option(text, error);
    if (!out.step_) {
      err << "profanalyze: " << error << '\n';
      return std::nullopt;
    }
  }
  return out;
}

// The windows of window files: one per window index, over the files of
// every process that has it.
bool RunWindows::resolve_window_files(const Run& run, std::ostream& err) {
  const ProcessInfo* without = nullptr;
  for (const ProcessInfo& p : run.processes)
    if (!p.window) without = &p;
  if (without != nullptr) {
    err << "profanalyze: " << without->path << " holds a whole run and the other files capture windows; "
        << "read them apart\n";
    return false;
  }
  if (options_.schedule_given) {
    err << "profanalyze: " << run.processes.front().path << " holds a capture window the agent cut (window "
        << run.processes.front().window->index << ", " << run.processes.front().window->trigger
        << "): --skip-first/--wait/--warmup/--active/--repeat apply to whole-run files; without them each "
        << "window file is one window, --merge-windows makes them one\n";
    return false;
  }
  std::map<uint32_t, RunWindow> by_index;
  for (uint32_t p = 0; p < run.processes.size(); ++p) {
    const recorded::Window& w = *run.processes[p].window;
    RunWindow& window = by_index[w.index];
    window.index = w.index;
    window.partial = window.partial || w.partial;
    window.processes.push_back(p);
    const int64_t last = w.last_step >= 0 ? w.last_step : w.first_step;
    for (int64_t s = w.first_step; w.first_step >= 0 && s <= last; ++s) window.steps.push_back(s);
  }
  windows_.clear();
  for (auto& [index, window] : by_index) {
    std::sort(window.steps.begin(), window.steps.end());
    window.steps.erase(std::unique(window.steps.begin(), window.steps.end()), window.steps.end());
    windows_.push_back(std::move(window));
  }
  return true;
}

bool RunWindows::resolve(const Run& run, std::ostream& err, RunWindows* found_in) {
  windows_ = {RunWindow{}};
  cut_by_steps_ = false;
  membership_.reset();
  resolved_rule_.reset();
  steps_ = RunSteps();
  steps_found_ = false;
  const bool window_files = std::any_of(run.processes.begin(), run.processes.end(),
                                        [](const ProcessInfo& p) { return p.window.has_value(); });
  if (window_files && !resolve_window_files(run, err)) return false;
  if (!step_) return true;
  const bool take_steps = found_in && found_in->steps_found_ && found_in->step_text_ == step_text_;
  std::optional<StepRule> found = step_->rule;
  if (step_->automatic) {
    if (take_steps) {
      auto_message_ = found_in->auto_message_;
      found = found_in->resolved_rule_;
    } else {
      AutoSteps detected = detect_steps(run);
      auto_message_ = std::move(detected.message);
      found = std::move(detected.rule);
    }
    err << "profanalyze: --step auto: " << auto_message_ << '\n';
    if (!found) {
      steps_found_ = true;  // no period: one taking them from here finds none either
      return !options_.schedule_given;
    }
  }
  const StepRule& rule = *found;
  if (take_steps) {
    steps_ = std::move(found_in->steps_);
    found_in->windows_.clear();
    found_in->membership_.reset();
    found_in->steps_ = RunSteps();
    found_in->steps_found_ = false;
  } else {
    steps_ = find_steps(run, rule);
    if (window_files) steps_ = number_from_windows(run, steps_);
  }
  steps_found_ = true;
  resolved_rule_ = rule;
  const RunSteps& steps = steps_;
  err << "profanalyze: --step " << rule.spelling() << ": " << steps.count() << " steps\n";
  if (steps.count() == 0) {
    err << "profanalyze: no steps found by --step " << rule.spelling() << '\n';
    if (options_.schedule_given) suggest_step_rules(run, err);
    // Steps only matter for a schedule; without one the run is still one window.
    return !options_.schedule_given;
  }
  if (!options_.schedule_given || window_files) return true;
  cut_by_steps_ = true;
  windows_.clear();
  for (StepWindow& w : schedule_windows(options_.schedule, steps.count()))
    windows_.push_back(RunWindow{w.index, std::move(w.steps), w.partial, false, {}});
  if (windows_.empty()) err << "profanalyze: the schedule records none of the " << steps.count() << " steps\n";
  return true;
}

void RunWindows::merge_windows() {
  const bool window_files = !windows_.empty() && !windows_.front().processes.empty();
  if ((!cut_by_steps_ && !window_files) || windows_.empty()) return;
  RunWindow all;
  all.merged = true;
  for (const RunWindow& w : windows_) all.steps.insert(all.steps.end(), w.steps.begin(), w.steps.end());
  std::sort(all.steps.begin(), all.steps.end());
  windows_ = {std::move(all)};  // window files: every file, so the whole run
}

const Run& RunWindows::events_of(const Run& run, const RunWindow& w, Run& storage) const {
  if (!w.processes.empty()) {
    if (w.processes.size() == run.processes.size()) return run;
    storage = select_processes(run, w.processes);
    return storage;
  }
  if (w.whole_run() || !cut_by_steps_) return run;
  bool every_step = w.steps.size() == static_cast<size_t>(steps_.count());
  for (size_t i = 0; every_step && i < w.steps.size(); ++i) every_step = w.steps[i] == static_cast<int64_t>(i);
  if (every_step && every_event_in_a_step(run, steps_)) return run;
  if (!membership_) membership_ = step_membership(run, steps_);
  if (selects_every_event(run, *membership_, w.steps)) return run;
  storage = select_steps(run, *membership_, w.steps);
  return storage;
}

LoadDepth load_depth_for(bool sums_suffice, const WindowOptions& options) {
  return sums_suffice && options.step.empty() && !options.schedule_given ? LoadDepth::kGpuSums : LoadDepth::kEvents;
}

RangeTree range_tree_of(const Run& events, Run& run, LoadDepth depth) {
  // Its threads linked on as many cores as the files were read on.
  const unsigned jobs = load_jobs();
  return depth == LoadDepth::kGpuSums && &events == &run ? RangeTree::taking_launched_gpu_ns(run, jobs)
                                                          : RangeTree(events, jobs);
}

bool load_windowed_run(const std::vector<std::string>& files, Run& run, LoadDepth& depth, RunWindows& windows,
                       bool merge, std::ostream& err) {
  if (!load_files(files, run, err, depth)) return false;
  if (!windows.resolve(run, err)) return false;
  if (merge) windows.merge_windows();
  const bool cut_per_file = std::any_of(windows.windows().begin(), windows.windows().end(), [&](const RunWindow& w) {
    return !w.processes.empty() && w.processes.size() != run.processes.size();
  });
  if (depth != LoadDepth::kGpuSums || !cut_per_file) return true;
  depth = LoadDepth::kEvents;
  run = Run();
  std::ostringstream repeated_warnings;
  if (!load_files(files, run, repeated_warnings, depth)) {
    err << repeated_warnings.str();
    return false;
  }
  if (!windows.resolve(run, err)) return false;
  if (merge) windows.merge_windows();
  return true;
}

}  // namespace prof::analyzer
