#pragma once
// PROF_STEP: where the agent finds step boundaries, in the analyzer's
// `--step` syntax and meaning (analyzer/window/steps.h):
//   nvtx:REGEX    each NVTX range whose name REGEX finds is one step; a match
//                 nested in a step's range is not a step
//   kernel:REGEX  a step starts at each launch of a kernel REGEX finds
//   api:NAME      a step starts at each call of NAME; a synchronization
//                 (NAME contains "Synchronize") ends a step where it returns
#include <optional>
#include <regex>
#include <string>

namespace prof {

struct StepRule {
  enum class Kind { nvtx, kernel, api };
  Kind kind = Kind::nvtx;
  std::string pattern;
  std::regex regex;  // nvtx and kernel

  std::string spelling() const;
  bool ends_steps() const { return kind == Kind::api && pattern.find("Synchronize") != std::string::npos; }
  bool matches(const char* text) const;
};

// nullopt with `error` set when `text` is no rule or its regex is bad.
std::optional<StepRule> parse_step_rule(const std::string& text, std::string& error);

}  // namespace prof
