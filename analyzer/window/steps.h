#pragma once
// Step boundaries (`--step RULE`) and which step each event belongs to.
//
// Rules: nvtx:REGEX, kernel:REGEX, api:NAME, the agent's PROF_STEP rules
// (shared/step_rule.h, one parser and one meaning for both programs), and
// `auto` (auto_steps.h), which resolves to one of them. A step of nvtx: is
// its range, [start, end); a kernel: step starts at the start of the API
// call that launched the kernel (the kernel's own start when no call was
// recorded); an api: step starts where the call starts, or for a
// synchronization ends where it ends.
// Steps of start rules run to the next boundary, the last one to the end of
// its process's events; the first step of an end rule starts at its
// process's first event. Steps are found per process (each rank counts its
// own steps from 0), so step k of a run is step k of every process.
//
// Membership: a CPU event belongs to the step whose interval holds its
// start. GPU work belongs where the API call that launched it belongs, so a
// kernel that runs after its step ended still counts for the step that
// launched it; GPU work without a recorded launch goes by its own start.
// Memory events likewise follow the call they happened in, else their time.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/run.h"
#include "step_rule.h"

namespace prof::analyzer {

using prof::StepRule;

// `--step TEXT`: `auto`, or a StepRule.
struct StepOption {
  bool automatic = false;
  std::optional<StepRule> rule;  // when not automatic
};
// nullopt with `error` set ("--step: 'kernel:*' has a bad regular
// expression: ...") when the text is neither.
std::optional<StepOption> parse_step_option(const std::string& text, std::string& error);

struct Step {
  int64_t index = 0;
  uint64_t start_ns = 0;  // [start_ns, end_ns)
  uint64_t end_ns = 0;
};

class RunSteps {
 public:
  RunSteps() = default;
  explicit RunSteps(std::vector<std::vector<Step>> per_process) : per_process_(std::move(per_process)) {}

  // The most steps any process has.
  int64_t count() const;
  const std::vector<Step>& of_process(uint32_t process) const;
  // The step of `process` whose interval holds time_ns, or -1.
  int64_t step_at(uint32_t process, uint64_t time_ns) const;

 private:
  std::vector<std::vector<Step>> per_process_;
};

// RunSteps::step_at for a stream of times that mostly fall where the last
// one did (events in file order, launches in time order): the step found
// last is tried before a binary search, which per event was a tenth of
// html's time (and a third of advise's step measures).
class StepLookup {
 public:
  explicit StepLookup(const RunSteps& steps) : steps_(steps) {}
  // step_at's answer.
  int64_t at(uint32_t process, uint64_t time_ns);

 private:
  const RunSteps& steps_;
  uint32_t process_ = UINT32_MAX;
  size_t last_ = SIZE_MAX;
};

RunSteps find_steps(const Run& run, const StepRule& rule);

// Per event, the step it belongs to (-1: none), by the membership rules above.
struct StepMembership {
  std::vector<int64_t> cpu;
  std::vector<int64_t> gpu;
  std::vector<int64_t> memory;
  std::vector<int64_t> tensor_memory;
};
StepMembership step_membership(const Run& run, const RunSteps& steps);

// The events whose step is in `steps` (sorted), as a Run of their own with
// the same names, processes and stacks.
Run select_steps(const Run& run, const StepMembership& membership, const std::vector<int64_t>& steps);
// Whether select_steps would keep every event (every event lies in one of
// `steps`, every synchronization has its call): then `run` itself is that
// selection, index for index, without a copy of every event.
bool selects_every_event(const Run& run, const StepMembership& membership, const std::vector<int64_t>& steps);

// selects_every_event's answer for every step of `steps` (0 to count() - 1),
// without the membership: each event looked up, the first outside every
// step the answer. The membership is 8 bytes an event (55 MB at 10M) and
// the pass that fills it was most of advise's windows.
bool every_event_in_a_step(const Run& run, const RunSteps& steps);

// The events of the processes (files) `processes`, as a Run of their own.
Run select_processes(const Run& run, const std::vector<uint32_t>& processes);

// Steps numbered as the agent counted them: a window file's steps start at
// its window's first step (ProcessInfo::window) instead of 0.
RunSteps number_from_windows(const Run& run, const RunSteps& steps);

}  // namespace prof::analyzer
