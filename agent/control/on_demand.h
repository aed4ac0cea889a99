#pragma once
// The on-demand trigger: `profanalyze capture PID` asks a running process for
// a capture through files under a per-user directory, /tmp/libprof-<uid>/:
//   PID.ctl   made by the agent at start, removed at exit: "an agent runs here"
//   PID.req   the request, written by profanalyze (renamed into place):
//             "steps N" or "duration_ms N", then "output PATH"
//   PID.done  the answer, written by the agent (renamed into place) when the
//             file is complete: "ok PATH" or "error WHY"
// Only the agent's writer thread looks for a request (every 100 ms, one
// access() call): the app's threads pay nothing, and no signal is used.
#include <cstdint>
#include <string>

namespace prof {

// The directory, created 0700 if missing; "" when it cannot be.
std::string control_directory(bool create);
std::string control_path(uint32_t pid, const char* suffix);

class OnDemandTrigger {
 public:
  // Makes PID.ctl. False (logged at debug) when it cannot: no trigger then.
  bool start(uint32_t pid);
  // Writer thread, every pass: takes a request and answers it.
  void poll(uint64_t now_ns);
  // At exit: removes PID.ctl, answers a capture still waiting.
  void stop();

 private:
  uint32_t pid_ = 0;
  bool active_ = false;
  uint64_t next_poll_ns_ = 0;
  bool waiting_ = false;      // a capture was accepted, its file not complete
  uint64_t completed_before_ = 0;
  void answer(const std::string& text);
};

}  // namespace prof
