#include "cli/stacks_command.h"

#include <map>

#include "cli/load_files.h"
#include "cli/output_file.h"
#include "cli/prof_analyze.h"
#include "model/range_tree.h"
#include "symbols/symbolizing_frame_namer.h"

namespace prof::analyzer {

void add_stacks_options(CLI::App* command, StacksOptions& options) {
  command->add_option("FILE", options.files, "capture files; several load into one run")->required();
  command->add_option("--metric", options.metric, "torch export_stacks metric")
      ->check(CLI::IsMember({"self_cuda_time_total", "self_cpu_time_total"}))
      ->capture_default_str();
  command->add_flag("--per-thread", options.per_thread, "a thread frame at the root of every stack");
  command->add_flag("--lines", options.lines, "append (file:line) to native frames, from addr2line where debug info exists");
  command->add_flag("--no-symbols", options.no_symbols, "name native frames module+0xOFFSET, without reading the modules");
  command->add_option("--window", options.window, "with a schedule: only window N (0, 1, ...); default: all windows")
      ->check(CLI::NonNegativeNumber);
  add_window_options(command, options.windows);
}

CLI::App* add_stacks_command(CLI::App& app, StacksOptions& options) {
  CLI::App* stacks = app.add_subcommand(
      "stacks", "flamegraph.pl folded stacks (torch export_stacks): native frames, NVTX ranges, API call, GPU work");
  add_stacks_options(stacks, options);
  stacks->add_option("-o,--output", options.output, "write to this file instead of stdout");
  return stacks;
}

int collect_folded_stacks(const StacksOptions& options, std::vector<FoldedStack>& stacks, std::ostream& err) {
  const std::optional<StackMetric> metric = parse_stack_metric(options.metric);
  if (!metric) {
    err << "profanalyze: unknown metric " << options.metric << '\n';
    return kExitUsage;
  }
  std::optional<RunWindows> windows = RunWindows::from_options(options.windows, err);
  if (!windows) return kExitUsage;
  // Self CPU time needs of the GPU records only the kernels' names (to
  // know their launch stubs), which their sums keep.
  LoadDepth depth = load_depth_for(*metric == StackMetric::kSelfCpu, options.windows);
  Run run;
  if (!load_windowed_run(options.files, run, depth, *windows, false, err)) return kExitBadInput;
  if (options.window >= 0 && (windows->windows().empty() || windows->windows().front().whole_run())) {
    err << "profanalyze: --window needs a schedule (--active N ...)\n";
    return kExitUsage;
  }

  const CommandFrameNamer frame_namer(
      run, options.no_symbols, options.lines, err,
      "profanalyze: warning: --lines: addr2line failed on some modules; their frames have no file:line\n");
  FoldedStacksOptions fold;
  fold.metric = *metric;
  fold.per_thread = options.per_thread;
  fold.namer = &frame_namer.namer();

  std::map<std::string, uint64_t> merged;
  bool found = options.window < 0;
  for (const RunWindow& w : windows->windows()) {
    if (options.window >= 0 && w.index != options.window) continue;
    found = true;
    Run storage;
    const Run& events = windows->events_of(run, w, storage);
    const RangeTree tree = range_tree_of(events, run, depth);
    for (FoldedStack& s : folded_stacks(events, tree, fold)) merged[std::move(s.frames)] += s.ns;
  }
  if (!found) {
    err << "profanalyze: no window " << options.window << " (the schedule gives " << windows->windows().size()
        << ")\n";
    return kExitUsage;
  }
  stacks.clear();
  for (auto& [frames, ns] : merged) stacks.push_back(FoldedStack{frames, ns});
  return kExitOk;
}

int run_stacks_command(const StacksOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<FoldedStack> stacks;
  if (const int code = collect_folded_stacks(options, stacks, err); code != kExitOk) return code;
  return write_output(options.output.empty() ? "-" : options.output,
                      [&](std::ostream& to) { write_folded_stacks(stacks, to); }, out, err);
}

}  // namespace prof::analyzer
