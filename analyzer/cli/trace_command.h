#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/window_options.h"

namespace prof::analyzer {

struct TraceOptions {
  std::vector<std::string> files;
  // "-": stdout. With a schedule, one file per window: trace.json ->
  // trace_<last step>.json, as torch's on_trace_ready names them.
  std::string output = "trace.json";
  uint64_t max_events = 0;       // 0: no limit
  uint64_t warn_size_mb = 500;    // warn when a trace's JSON is larger
  WindowOptions windows;
};

CLI::App* add_trace_command(CLI::App& app, TraceOptions& options);
int run_trace_command(const TraceOptions& options, std::ostream& out, std::ostream& err);

// "dir/trace.json" + 12 -> "dir/trace_12.json"; keeps ".json.gz" too.
std::string window_trace_path(const std::string& path, int64_t last_step);

}  // namespace prof::analyzer
