#pragma once
// `profanalyze advise FILE...`: the bottlenecks, found and explained
// (advise/advise.h), per window, as text or JSON.
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "cli/window_options.h"

namespace prof::analyzer {

struct AdviseOptions {
  std::vector<std::string> files;
  std::string format = "text";  // text | json
  bool no_symbols = false;      // frames as module+offset, no ELF or addr2line reads
  double min_share_pct = 3;     // findings costing less of the GPU span are left out
  WindowOptions windows;        // --step default: ProfilerStep ranges if any, else auto
};

CLI::App* add_advise_command(CLI::App& app, AdviseOptions& options);
int run_advise_command(const AdviseOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
