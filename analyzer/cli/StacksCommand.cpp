#include "cli/StacksCommand.h"

#include <fstream>
#include <map>

#include "cli/LoadFiles.h"
#include "cli/ProfAnalyze.h"
#include "model/RangeTree.h"
#include "symbols/SymbolizingFrameNamer.h"

namespace prof::analyzer {

void addStacksOptions(CLI::App* command, StacksOptions& options) {
  command->add_option("FILE", options.files, "capture files; several load into one run")->required();
  command->add_option("--metric", options.metric, "torch export_stacks metric")
      ->check(CLI::IsMember({"self_cuda_time_total", "self_cpu_time_total"}))
      ->capture_default_str();
  command->add_flag("--per-thread", options.perThread, "a thread frame at the root of every stack");
  command->add_flag("--lines", options.lines, "append (file:line) to native frames, from addr2line where debug info exists");
  command->add_flag("--no-symbols", options.noSymbols, "name native frames module+0xOFFSET, without reading the modules");
  command->add_option("--window", options.window, "with a schedule: only window N (0, 1, ...); default: all windows")
      ->check(CLI::NonNegativeNumber);
  addWindowOptions(command, options.windows);
}

CLI::App* addStacksCommand(CLI::App& app, StacksOptions& options) {
  CLI::App* stacks = app.add_subcommand(
      "stacks", "flamegraph.pl folded stacks (torch export_stacks): native frames, NVTX ranges, API call, GPU work");
  addStacksOptions(stacks, options);
  stacks->add_option("-o,--output", options.output, "write to this file instead of stdout");
  return stacks;
}

int collectFoldedStacks(const StacksOptions& options, std::vector<FoldedStack>& stacks, std::ostream& err) {
  const std::optional<StackMetric> metric = parseStackMetric(options.metric);
  if (!metric) {
    err << "profanalyze: unknown metric " << options.metric << '\n';
    return kExitUsage;
  }
  std::optional<RunWindows> windows = RunWindows::fromOptions(options.windows, err);
  if (!windows) return kExitUsage;
  Run run;
  if (!loadFiles(options.files, run, err)) return kExitBadInput;
  if (!windows->resolve(run, err)) return kExitBadInput;
  if (options.window >= 0 && (windows->windows().empty() || windows->windows().front().wholeRun())) {
    err << "profanalyze: --window needs a schedule (--active N ...)\n";
    return kExitUsage;
  }

  SymbolizingFrameNamer symbolizing;
  const ModuleOffsetFrameNamer plain;
  if (options.lines && !options.noSymbols && !symbolizing.prefetchLines(run))
    err << "profanalyze: warning: --lines: addr2line failed on some modules; their frames have no file:line\n";
  FoldedStacksOptions fold;
  fold.metric = *metric;
  fold.perThread = options.perThread;
  fold.namer = options.noSymbols ? static_cast<const FrameNamer*>(&plain) : &symbolizing;

  std::map<std::string, uint64_t> merged;
  bool found = options.window < 0;
  for (const RunWindow& w : windows->windows()) {
    if (options.window >= 0 && w.index != options.window) continue;
    found = true;
    Run storage;
    const Run& events = windows->eventsOf(run, w, storage);
    const RangeTree tree(events);
    for (FoldedStack& s : foldedStacks(events, tree, fold)) merged[std::move(s.frames)] += s.ns;
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

int runStacksCommand(const StacksOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<FoldedStack> stacks;
  if (const int code = collectFoldedStacks(options, stacks, err); code != kExitOk) return code;
  if (options.output.empty() || options.output == "-") {
    writeFoldedStacks(stacks, out);
    return kExitOk;
  }
  std::ofstream file(options.output, std::ios::binary | std::ios::trunc);
  writeFoldedStacks(stacks, file);
  file.close();
  if (!file) {
    err << "profanalyze: " << options.output << ": cannot write\n";
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace prof::analyzer
