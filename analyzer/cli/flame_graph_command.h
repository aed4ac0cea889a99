#pragma once
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

#include "cli/stacks_command.h"

namespace prof::analyzer {

struct FlameGraphCommandOptions {
  StacksOptions stacks;
  std::string output = "flamegraph.svg";  // "-": stdout
  std::string title;                      // empty: "Flame Graph: <metric>"
  int width = 1200;
};

CLI::App* add_flame_graph_command(CLI::App& app, FlameGraphCommandOptions& options);
int run_flame_graph_command(const FlameGraphCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
