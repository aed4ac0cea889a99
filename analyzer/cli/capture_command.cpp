#include "cli/capture_command.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/prof_analyze.h"
#include "proc_stat.h"

namespace prof::analyzer {
namespace {

std::string control_path(int64_t pid, const char* suffix) {
  return "/tmp/libprof-" + std::to_string(getuid()) + "/" + std::to_string(pid) + suffix;
}

bool process_exists(int64_t pid) {
  struct stat st{};
  return stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0;
}

// Whether the control file of `pid` is the agent's in this process, not one
// left by an earlier process with the same pid that ended without removing
// it (killed, crashed): the agent writes its process's start time in it.
bool agent_runs_in(int64_t pid) {
  std::ifstream control(control_path(pid, ".ctl"));
  if (!control) return false;
  std::string line;
  while (std::getline(control, line)) {
    if (line.rfind("started ", 0) == 0) {
      const std::string started = process_start_ticks(pid);
      return !started.empty() && line.substr(8) == started;
    }
  }
  return false;
}

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
  if (!agent_runs_in(pid)) {
    err << "profanalyze capture: process " << pid << " does not run the libprof agent (no "
        << control_path(pid, ".ctl") << " written by it; start it with LD_PRELOAD=libprof.so)\n";
    return kExitBadInput;
  }
  const std::string output = absolute(options.output.empty() ? "capture." + std::to_string(pid) + ".pb" : options.output);
  std::ostringstream request;
  if (options.steps > 0) {
    request << "steps " << options.steps;
  } else {
    request << "duration_ms " << static_cast<long long>(std::llround(options.duration_s * 1000));
  }
  request << "\noutput " << output << "\n";
  const std::string done = control_path(pid, ".done");
  unlink(done.c_str());
  const std::string request_path = control_path(pid, ".req");
  {
    std::ofstream file(request_path + ".tmp");
    file << request.str();
    if (!file || (file.close(), rename((request_path + ".tmp").c_str(), request_path.c_str()) != 0)) {
      err << "profanalyze capture: cannot write " << request_path << ": " << strerror(errno) << "\n";
      return kExitBadInput;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(options.timeout_s);
  for (;;) {
    std::ifstream answer(done);
    std::string line;
    if (answer && std::getline(answer, line)) {
      unlink(done.c_str());
      if (line.rfind("ok ", 0) == 0) {
        out << line.substr(3) << "\n";
        return kExitOk;
      }
      err << "profanalyze capture: process " << pid << ": " << (line.rfind("error ", 0) == 0 ? line.substr(6) : line)
          << "\n";
      return kExitBadInput;
    }
    if (!process_exists(pid) || access(control_path(pid, ".ctl").c_str(), F_OK) != 0) {
      // The agent answers at exit; give its last write a moment.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      if (access(done.c_str(), F_OK) == 0) continue;
      unlink(request_path.c_str());
      err << "profanalyze capture: process " << pid << " ended before it answered\n";
      return kExitBadInput;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      unlink(request_path.c_str());
      err << "profanalyze capture: no answer from process " << pid << " within " << options.timeout_s << " s\n";
      return kExitBadInput;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace prof::analyzer
