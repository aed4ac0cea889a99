#pragma once
// The step rule: where a run's step boundaries are, for both programs, in one
// syntax and one meaning. The agent reads it from PROF_STEP (its window files
// follow a schedule over these steps), the analyzer from `--step` (its
// windows, per-step views and advise). So one rule finds the same steps
// whether the agent cuts the run or the analyzer does.
//
//   nvtx:REGEX    each NVTX range whose name REGEX finds is one step, from
//                 its start to its end; a match nested in a step's range is
//                 not a step.
//   kernel:REGEX  a step starts at each launch of a kernel whose name REGEX
//                 finds: the name as users write it, so a C++ kernel by its
//                 demangled name (`scale(float*, int)`, what reports show),
//                 a C-linkage kernel by its own (demangled_kernel_name).
//   api:NAME      a step starts at each call of the CUDA API NAME
//                 (cudaGraphLaunch); when NAME is a synchronization (contains
//                 "Synchronize") a step ends where each call returns instead,
//                 since a loop waits for its GPU work at the end.
//
// REGEX is RE2's syntax (github.com/google/re2/wiki/Syntax, close to
// ECMAScript's and Perl's), searched in the name: anchor it with ^...$. RE2,
// not std::regex: its matching takes time linear in the name and memory off
// the stack, where std::regex recurses per character and a pattern like
// `(.|\n)*` on a long kernel name overflowed the profiled program's stack.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace prof {

class Regex;

class StepRule {
 public:
  enum class Kind { kNvtx, kKernel, kApi };

  // The rule of `text` (nvtx:REGEX, kernel:REGEX, api:NAME), or nullopt with
  // `error` saying what is wrong with it, without repeating `text`:
  // "is not nvtx:REGEX, kernel:REGEX or api:NAME",
  // "has a bad regular expression: no argument for repetition operator: *".
  static std::optional<StepRule> parse(std::string_view text, std::string& error);
  // The rule of `kind` over `pattern` (a REGEX, or for kApi a NAME), as
  // parse() would make it from "kind:pattern".
  static std::optional<StepRule> make(Kind kind, std::string pattern, std::string& error);

  Kind kind() const { return kind_; }
  // The REGEX, or for api: the NAME.
  const std::string& pattern() const { return pattern_; }
  // Back to the spelling it was parsed from: "nvtx:^ProfilerStep#\d+$".
  std::string spelling() const;
  // api:NAME whose NAME is a synchronization: steps end where it returns.
  bool ends_steps() const;

  // Whether the rule takes `name`: for nvtx: a range's name, for kernel: a
  // kernel's name as users write it (demangled_kernel_name), for api: a CUDA
  // function's name. Time linear in the name's length, memory bounded and
  // off the stack; safe to call from any thread at once.
  bool matches(std::string_view name) const;

 private:
  StepRule(Kind kind, std::string pattern) : kind_(kind), pattern_(std::move(pattern)) {}

  Kind kind_;
  std::string pattern_;
  std::shared_ptr<const Regex> regex_;  // nvtx and kernel; shared by copies
};

// torch.profiler's steps: the ProfilerStep#N range its step() opens, which
// torch 2.x's emit_nvtx writes with a tail ("ProfilerStep#3, op_id = 12").
// The analyzer's default rule, and the one advise prefers when a run has it.
inline constexpr const char* kProfilerStepRule = "nvtx:^ProfilerStep#[0-9]+(,|$)";

// A kernel's name as users write it and reports show it: a C++ (Itanium
// mangled, "_Z...") name demangled, "_Z5scalePfi" -> "scale(float*, int)";
// any other name (C linkage, PTX entries) as it is. A mangled name the
// demangler refuses, or one too long to demangle safely (the demangler
// recurses; such a name is corrupt or hostile), is kept as it is.
std::string demangled_kernel_name(std::string_view name);

}  // namespace prof
