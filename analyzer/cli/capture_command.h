#pragma once
// `profanalyze capture PID`: asks a running process under the agent to
// record its next N steps (or S seconds) and waits for the file, through
// the files of shared/on_demand_protocol.h.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>

namespace prof::analyzer {

struct CaptureOptions {
  int64_t pid = 0;
  int64_t steps = 0;
  double duration_s = 0;
  std::string output;
  double timeout_s = 600;
};

CLI::App* add_capture_command(CLI::App& app, CaptureOptions& options);
int run_capture_command(const CaptureOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
