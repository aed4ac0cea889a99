#pragma once
// The report's step and schedule options (--step, --skip-first, --wait,
// --warmup, --active, --repeat), shared by stacks, flamegraph and trace, and
// the windows they cut a run into (window/steps.h, schedule.h in shared/).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "model/run_builder.h"
#include "schedule.h"
#include "window/steps.h"

namespace prof::analyzer {

struct WindowOptions {
  std::string step;  // empty: ProfilerStep ranges when a schedule is given
  Schedule schedule;
  bool schedule_given = false;  // set by the CLI when any schedule option is given
};

// Adds the options to `command`; sets schedule_given from its callback.
void add_window_options(CLI::App* command, WindowOptions& options);

// One on_trace_ready's worth of a run, all windows merged, or the whole run.
struct RunWindow {
  int64_t index = -1;          // -1: the whole run, or all windows merged
  std::vector<int64_t> steps;  // empty for the whole run
  bool partial = false;
  bool merged = false;  // report --merge-windows: the steps of every window
  // A window the agent cut (window files): the files (processes) that hold
  // it, one per process of the run; empty for a window a schedule cut.
  std::vector<uint32_t> processes;
  bool whole_run() const { return index < 0 && !merged; }
  // "Window 0: steps 3-4", "All windows merged: steps 1-2, 5-6" or "Whole run".
  std::string title() const;
};

class RunWindows {
 public:
  // Checks the options and the --step rule before any file is read.
  // nullopt, after one line on `err`, when they are wrong (exit 2).
  static std::optional<RunWindows> from_options(const WindowOptions& options, std::ostream& err);

  // Finds the steps and windows in `run`. False, after printing why, when a
  // schedule was given and the run has no steps (exit 1). Without a
  // schedule the whole run is the one window.
  //
  // Window files (the agent's PROF_SCHEDULE, PROF_DELAY/PROF_DURATION and
  // profanalyze capture windows) read together: each window the agent cut
  // is one window here (the files of one window index together, one per
  // process), its steps numbered as the agent counted them. A schedule is
  // refused with them (the agent applied one already); --step still finds
  // steps inside them.
  //
  // `found_in`, when given, is a RunWindows resolved on the same `run`
  // before (its schedule may differ): where its --step is the same text,
  // the steps it found (or that --step auto found none) are taken over
  // rather than found again, with the same lines on `err`, and `found_in`
  // is left with no windows until resolved again. html's advise takes its
  // step windows' steps so (find_steps was 37 M instructions at 1M events,
  // on advise's thread alone); moved, not copied, so one list of the steps
  // is held, as before.
  bool resolve(const Run& run, std::ostream& err, RunWindows* found_in = nullptr);

  // After resolve(): the schedule's windows become one window of all their
  // steps (report --merge-windows). Nothing to merge without a schedule.
  void merge_windows();

  const std::vector<RunWindow>& windows() const { return windows_; }
  // What resolve() found: the rule it applied (--step auto resolved; nullopt:
  // none) and its steps (none without a rule). advise reads them per step.
  const std::optional<StepRule>& resolved_rule() const { return resolved_rule_; }
  const RunSteps& steps() const { return steps_; }
  // The events of window `w` (for the whole run: `run` itself). Each event's
  // step (8 bytes an event) is found on the first window that needs it:
  // a window of every step of a run whose events all lie in steps (a
  // training loop's ProfilerStep#N ranges) is the run without it.
  const Run& events_of(const Run& run, const RunWindow& w, Run& storage) const;
  // Frees each event's step (8 bytes an event), which events_of makes again
  // if asked: for a RunWindows kept past its windows (html keeps its steps
  // for advise's resolve).
  void free_membership() { membership_.reset(); }

 private:
  bool resolve_window_files(const Run& run, std::ostream& err);

  WindowOptions options_;
  std::string step_text_;  // --step as applied (the default rule with a schedule); empty: none
  std::optional<StepOption> step_;
  // resolve() got as far as finding the steps (a resolve(found_in) may
  // take them), and --step auto's line about what it detected.
  bool steps_found_ = false;
  std::string auto_message_;
  // A schedule cut the run by its steps: the windows' events are found by
  // step, through the membership, made by events_of when first needed
  // (mutable: a cache of what `run` and steps_ give, never other state).
  bool cut_by_steps_ = false;
  mutable std::optional<StepMembership> membership_;
  std::optional<StepRule> resolved_rule_;
  RunSteps steps_;
  std::vector<RunWindow> windows_;
};

// What a view that reads the GPU records only as sums (`sums_suffice`)
// loads: LoadDepth::kGpuSums, which keeps no GpuActivity (48 bytes) per
// record, unless steps or a schedule cut the run event by event.
LoadDepth load_depth_for(bool sums_suffice, const WindowOptions& options);

// The range tree of one window's `events`. A Run loaded as GPU sums is one
// window, the whole `run`: the tree takes its launched GPU times over
// (RangeTree::taking_launched_gpu_ns), since it alone needs them. Its
// threads are linked on PROFANALYZE_JOBS cores (load_jobs).
RangeTree range_tree_of(const Run& events, Run& run, LoadDepth depth);

// Loads `files` with `depth` into `run` and resolves `windows` (then merges
// them when `merge`). A Run of GPU sums (LoadDepth::kGpuSums) cannot be cut
// per file, since its sums are not per event: window files of several
// windows are read again with every event (their warnings printed once),
// and `depth` says kEvents after. False after printing why (exit 1).
[[nodiscard]] bool load_windowed_run(const std::vector<std::string>& files, Run& run, LoadDepth& depth,
                                     RunWindows& windows, bool merge, std::ostream& err);

}  // namespace prof::analyzer
