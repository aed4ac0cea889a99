#pragma once
// The on-demand trigger, the agent's side of `profanalyze capture PID`
// (the files: shared/on_demand_protocol.h). Only the agent's writer thread
// looks for a request (every 100 ms, one access() call): the app's threads
// pay nothing, and no signal is used.
#include <cstdint>
#include <string>

#include "on_demand_protocol.h"

namespace prof {

class OnDemandTrigger {
 public:
  // Makes PID.ctl. False (logged at debug) when it cannot: no trigger then.
  bool start(uint32_t pid);
  // Writer thread, every pass: takes a request and answers it.
  void poll(uint64_t now_ns);
  // At exit: removes PID.ctl, answers a capture still waiting.
  void stop();

 private:
  // Plain values (agent.cpp's global is constinit, with no destructor): the
  // paths are made again where used.
  uint32_t pid_ = 0;
  bool active_ = false;
  uint64_t next_poll_ns_ = 0;
  bool waiting_ = false;      // a capture was accepted, its file not complete
  uint64_t completed_before_ = 0;
  void answer(bool ok, const std::string& detail);
};

}  // namespace prof
