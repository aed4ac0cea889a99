#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/WindowOptions.h"
#include "views/FoldedStacks.h"

namespace prof::analyzer {

struct StacksOptions {
  std::vector<std::string> files;
  std::string metric = "self_cuda_time_total";
  bool perThread = false;
  bool lines = false;      // file:line from addr2line where debug info exists
  bool noSymbols = false;  // module+offset only (no ELF reads)
  int64_t window = -1;     // with a schedule: only this window; -1: all of them
  std::string output;      // empty or "-": stdout
  WindowOptions windows;
};

// Adds the options `stacks` and `flamegraph` share.
void addStacksOptions(CLI::App* command, StacksOptions& options);

CLI::App* addStacksCommand(CLI::App& app, StacksOptions& options);
int runStacksCommand(const StacksOptions& options, std::ostream& out, std::ostream& err);

// Loads the files and folds their stacks over the selected windows (merged).
// Returns an exit code; kExitOk with `stacks` filled.
int collectFoldedStacks(const StacksOptions& options, std::vector<FoldedStack>& stacks, std::ostream& err);

}  // namespace prof::analyzer
