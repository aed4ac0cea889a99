#include "control/on_demand.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "agent_state.h"
#include "common/log.h"
#include "control/capture_control.h"

namespace prof {

bool OnDemandTrigger::start(uint32_t pid) {
  const std::string directory = control_directory();
  if (mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    log_debug("cannot create %s; profanalyze capture cannot reach this process", directory.c_str());
    return false;
  }
  pid_ = pid;
  const ControlFiles files = control_files(pid);
  ::unlink(files.request.c_str());
  ::unlink(files.answer.c_str());
  active_ = write_file_atomically(files.control, control_text(PROF_VERSION));
  return active_;
}

void OnDemandTrigger::answer(bool ok, const std::string& detail) {
  write_file_atomically(control_files(pid_).answer, answer_text({ok, detail}));
}

void OnDemandTrigger::poll(uint64_t now_ns) {
  if (!active_ || now_ns < next_poll_ns_) return;
  if (next_poll_ns_ == 0) {
    // Once, on the writer's thread: files of killed processes would pile up
    // in /tmp (hundreds after a day of tests here).
    if (const int removed = remove_stale_control_files(); removed > 0) {
      log_debug("removed %d control files of processes that no longer run", removed);
    }
  }
  next_poll_ns_ = now_ns + 100'000'000;
  AgentState& agent = agent_state();
  // The control is published before the writer (agent.cpp).
  const bool writer_published = agent.writer.load(std::memory_order_acquire) != nullptr;
  CaptureControl* control = agent.control.load(std::memory_order_acquire);
  const WindowSink* windows = control != nullptr ? control->window_sink() : nullptr;
  if (waiting_ && windows != nullptr && windows->windows_completed() > completed_before_) {
    waiting_ = false;
    const std::string path = windows->last_window_path();
    answer(!path.empty(), path.empty() ? "the capture window recorded nothing" : path);
  }
  // The writer's first passes can come before the agent published it (and
  // the control): a request already waiting is read once they are there,
  // not answered as if this process recorded without windows.
  if (!writer_published) return;
  const std::string request_path = control_files(pid_).request;
  if (::access(request_path.c_str(), F_OK) != 0) return;
  const std::string text = read_small_file(request_path);
  ::unlink(request_path.c_str());

  const std::optional<CaptureRequest> asked = parse_request(text);
  if (!asked) {
    answer(false, "the request is not understood");
    return;
  }
  OnDemandRequest request;
  request.steps = asked->steps;
  request.duration_ns = static_cast<uint64_t>(asked->duration_ms) * 1'000'000;
  request.path = asked->output;
  if (control == nullptr || windows == nullptr || !control->options().windowed()) {
    answer(false,
           "this process records everything from start to exit already (it runs without "
           "PROF_START=off, PROF_SCHEDULE or PROF_DELAY/PROF_DURATION)");
    return;
  }
  std::string error;
  completed_before_ = windows->windows_completed();
  if (!control->request(request, now_ns, error)) {
    answer(false, error);
    return;
  }
  log_info("capture of %s asked for, to %s",
           request.steps > 0 ? (std::to_string(request.steps) + " steps").c_str()
                             : (std::to_string(asked->duration_ms) + " ms").c_str(),
           request.path.c_str());
  waiting_ = true;
}

void OnDemandTrigger::stop() {
  if (!active_) return;
  active_ = false;
  const CaptureControl* control = agent_state().control.load(std::memory_order_acquire);
  const WindowSink* windows = control != nullptr ? control->window_sink() : nullptr;
  if (waiting_ && windows != nullptr && windows->windows_completed() > completed_before_ &&
      !windows->last_window_path().empty()) {
    answer(true, windows->last_window_path());  // cut short by the exit: torch keeps it too
  } else if (waiting_) {
    answer(false, "the process ended before the capture recorded anything");
  }
  ::unlink(control_files(pid_).control.c_str());
}

}  // namespace prof
