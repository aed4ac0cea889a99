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
  bool driver_calls = false;  // driver calls inside runtime calls as events of their own
};

CLI::App* add_trace_command(CLI::App& app, TraceOptions& options);
int run_trace_command(const TraceOptions& options, std::ostream& out, std::ostream& err);

// "dir/trace.json" + 12 -> "dir/trace.12.pt.trace.json"; keeps ".gz" too.
// The step is zero-padded to `width` digits, the widest of the run's
// windows, so that the files (and TensorBoard's span list, which sorts
// them as strings) are in step order: 02, 07, 12, not 12, 2, 7.
std::string window_trace_path(const std::string& path, int64_t last_step, int width = 1);

}  // namespace prof::analyzer
