#pragma once
// Step boundaries (`--step RULE`) and which step each event belongs to.
//
// Rules:
//   nvtx:REGEX    each NVTX range whose name REGEX finds (ECMAScript,
//                 searched: anchor with ^...$) is one step, [start, end).
//                 A match nested in an earlier step's range is not a step.
//   kernel:REGEX  a step starts at each launch of a kernel whose demangled
//                 name REGEX finds: the start of the API call that launched
//                 it (the kernel's own start when no call was recorded).
//   api:NAME      a step starts at each call of the CUDA API NAME
//                 (cudaGraphLaunch); when NAME is a synchronization
//                 (contains "Synchronize") a step instead ends where each call
//                 ends, since a loop waits for its GPU work at the end.
//   auto          see auto_steps.h; resolved to one of the rules above.
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

namespace prof::analyzer {

struct StepRule {
  enum class Kind { kNvtx, kKernel, kApi, kAuto };
  Kind kind = Kind::kNvtx;
  std::string pattern;

  // Back to the command-line spelling: "nvtx:ProfilerStep#\d+".
  std::string spelling() const;
  // api:NAME rules whose NAME is a synchronization end a step.
  bool ends_steps() const;
};

// nullopt with `error` set when the text is no rule or its regex is bad.
std::optional<StepRule> parse_step_rule(const std::string& text, std::string& error);

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

// Applies a rule that is not kAuto.
RunSteps find_steps(const Run& run, const StepRule& rule);

// Per event, the step it belongs to (-1: none), by the membership rules above.
struct StepMembership {
  std::vector<int64_t> cpu;
  std::vector<int64_t> gpu;
  std::vector<int64_t> memory;
};
StepMembership step_membership(const Run& run, const RunSteps& steps);

// The events whose step is in `steps` (sorted), as a Run of their own with
// the same names, processes and stacks.
Run select_steps(const Run& run, const StepMembership& membership, const std::vector<int64_t>& steps);

// The events of the processes (files) `processes`, as a Run of their own.
Run select_processes(const Run& run, const std::vector<uint32_t>& processes);

// Steps numbered as the agent counted them: a window file's steps start at
// its window's first step (ProcessInfo::window) instead of 0.
RunSteps number_from_windows(const Run& run, const RunSteps& steps);

}  // namespace prof::analyzer
