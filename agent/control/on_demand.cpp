#include "control/on_demand.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "agent_state.h"
#include "common/log.h"
#include "control/capture_control.h"
#include "proc_stat.h"
#include "record/writer.h"

namespace prof {

std::string control_directory(bool create) {
  const std::string dir = "/tmp/libprof-" + std::to_string(getuid());
  if (create && mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return {};
  return dir;
}

std::string control_path(uint32_t pid, const char* suffix) {
  return control_directory(false) + "/" + std::to_string(pid) + suffix;
}

namespace {

bool write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return written && ::rename(temporary.c_str(), path.c_str()) == 0;
}

std::string read_small_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) text.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return text;
}

}  // namespace

bool OnDemandTrigger::start(uint32_t pid) {
  pid_ = pid;
  if (control_directory(true).empty()) {
    log_debug("cannot create %s; profanalyze capture cannot reach this process", control_directory(false).c_str());
    return false;
  }
  ::unlink(control_path(pid, ".req").c_str());
  ::unlink(control_path(pid, ".done").c_str());
  // The process's start time, with the pid, names this process and no later
  // one that reuses the pid: `profanalyze capture` tells a control file left
  // by a killed process from ours.
  active_ = write_atomically(control_path(pid, ".ctl"),
                             "libprof " PROF_VERSION "\nstarted " + process_start_ticks(0) + "\n");
  return active_;
}

void OnDemandTrigger::answer(const std::string& text) {
  write_atomically(control_path(pid_, ".done"), text + "\n");
}

void OnDemandTrigger::poll(uint64_t now_ns) {
  if (!active_ || now_ns < next_poll_ns_) return;
  next_poll_ns_ = now_ns + 100'000'000;
  AgentState& agent = agent_state();
  Writer* writer = agent.writer.load(std::memory_order_acquire);
  if (waiting_ && writer != nullptr && writer->windows_completed() > completed_before_) {
    waiting_ = false;
    const std::string path = writer->last_window_path();
    answer(path.empty() ? "error the capture window recorded nothing" : "ok " + path);
  }
  // The writer's first passes can come before the agent published it (and
  // the control): a request already waiting is read once they are there,
  // not answered as if this process recorded without windows.
  if (writer == nullptr) return;
  const std::string request_path = control_path(pid_, ".req");
  if (::access(request_path.c_str(), F_OK) != 0) return;
  const std::string text = read_small_file(request_path);
  ::unlink(request_path.c_str());

  OnDemandRequest request;
  char output[4096] = {};
  long long number = 0;
  if (sscanf(text.c_str(), "steps %lld output %4095[^\n]", &number, output) == 2 && number > 0) {
    request.steps = number;
  } else if (sscanf(text.c_str(), "duration_ms %lld output %4095[^\n]", &number, output) == 2 && number > 0) {
    request.duration_ns = static_cast<uint64_t>(number) * 1'000'000;
  } else {
    answer("error the request is not understood");
    return;
  }
  request.path = output;
  CaptureControl* control = agent.control.load(std::memory_order_acquire);
  if (control == nullptr || !control->options().windowed()) {
    answer("error this process records everything from start to exit already (it runs without "
           "PROF_START=off, PROF_SCHEDULE or PROF_DELAY/PROF_DURATION)");
    return;
  }
  std::string error;
  completed_before_ = writer->windows_completed();
  if (!control->request(request, now_ns, error)) {
    answer("error " + error);
    return;
  }
  log_info("capture of %s asked for, to %s",
           request.steps > 0 ? (std::to_string(request.steps) + " steps").c_str()
                             : (std::to_string(number) + " ms").c_str(),
           request.path.c_str());
  waiting_ = true;
}

void OnDemandTrigger::stop() {
  if (!active_) return;
  active_ = false;
  Writer* writer = agent_state().writer.load(std::memory_order_acquire);
  if (waiting_ && writer != nullptr && writer->windows_completed() > completed_before_ &&
      !writer->last_window_path().empty()) {
    answer("ok " + writer->last_window_path());  // cut short by the exit: torch keeps it too
  } else if (waiting_) {
    answer("error the process ended before the capture recorded anything");
  }
  ::unlink(control_path(pid_, ".ctl").c_str());
}

}  // namespace prof
