#include "cli/capture_command.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>

#include "cli/prof_analyze.h"
#include "on_demand_protocol.h"
#include "proc_stat.h"

namespace prof::analyzer {
namespace {

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

}  // namespace

CLI::App* add_capture_command(CLI::App& app, CaptureOptions& options) {
  CLI::App* capture = app.add_subcommand(
      "capture", "Ask a running process under libprof to record its next steps (or seconds) and wait for the file");
  capture->add_option("PID", options.pid, "process id")->required();
  auto* steps = capture->add_option("--steps", options.steps, "record the next N whole steps (the process's PROF_STEP)");
  auto* duration = capture->add_option("--duration", options.duration_s, "record for S seconds");
  steps->excludes(duration);
  capture->add_option("-o,--output", options.output, "the capture file (default: capture.PID.pb)");
  capture->add_option("--timeout", options.timeout_s, "give up after S seconds (default 600)");
  return capture;
}

int run_capture_command(const CaptureOptions& options, std::ostream& out, std::ostream& err) {
  if (options.steps <= 0 && !(options.duration_s > 0)) {
    err << "profanalyze capture: give --steps N (N > 0) or --duration S (S > 0)\n";
    return kExitUsage;
  }
  const int64_t pid = options.pid;
  if (pid <= 0 || !process_exists(pid)) {
    err << "profanalyze capture: no process " << pid << " (it has finished, or never ran)\n";
    return kExitBadInput;
  }
  const ControlFiles files = control_files(pid);
  // A control file left by a killed process whose pid was reused names
  // another start time.
  if (!control_names_process(read_small_file(files.control), pid)) {
    err << "profanalyze capture: process " << pid << " does not run the libprof agent (no " << files.control
        << " written by it; start it with LD_PRELOAD=libprof.so)\n";
    return kExitBadInput;
  }
  CaptureRequest request;
  if (options.steps > 0) {
    request.steps = options.steps;
  } else {
    request.duration_ms = std::llround(options.duration_s * 1000);
  }
  request.output = absolute(options.output.empty() ? "capture." + std::to_string(pid) + ".pb" : options.output);
  unlink(files.answer.c_str());
  if (!write_file_atomically(files.request, request_text(request))) {
    err << "profanalyze capture: cannot write " << files.request << ": " << strerror(errno) << "\n";
    return kExitBadInput;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_s);
  for (;;) {
    if (const std::optional<CaptureAnswer> answer = parse_answer(read_small_file(files.answer))) {
      unlink(files.answer.c_str());
      if (answer->ok) {
        out << answer->detail << "\n";
        return kExitOk;
      }
      err << "profanalyze capture: process " << pid << ": " << answer->detail << "\n";
      return kExitBadInput;
    }
    if (!process_exists(pid) || access(files.control.c_str(), F_OK) != 0) {
      // The agent answers at exit; give its last write a moment.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (access(files.answer.c_str(), F_OK) == 0) continue;
      unlink(files.request.c_str());
      err << "profanalyze capture: process " << pid << " ended before it answered\n";
      return kExitBadInput;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      unlink(files.request.c_str());
      err << "profanalyze capture: no answer from process " << pid << " within " << options.timeout_s << " s\n";
      return kExitBadInput;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace prof::analyzer
