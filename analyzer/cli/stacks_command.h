#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/window_options.h"
#include "views/folded_stacks.h"

namespace prof::analyzer {

struct StacksOptions {
  std::vector<std::string> files;
  std::string metric = "self_cuda_time_total";
  bool per_thread = false;
  bool lines = false;      // file:line from addr2line where debug info exists
  bool no_symbols = false;  // module+offset only (no ELF reads)
  int64_t window = -1;     // with a schedule: only this window; -1: all of them
  std::string output;      // empty or "-": stdout
  WindowOptions windows;
};

// Adds the options `stacks` and `flamegraph` share.
void add_stacks_options(CLI::App* command, StacksOptions& options);

CLI::App* add_stacks_command(CLI::App& app, StacksOptions& options);
int run_stacks_command(const StacksOptions& options, std::ostream& out, std::ostream& err);

// Loads the files and folds their stacks over the selected windows (merged).
// Returns an exit code; kExitOk with `stacks` filled.
int collect_folded_stacks(const StacksOptions& options, std::vector<FoldedStack>& stacks, std::ostream& err);

}  // namespace prof::analyzer
