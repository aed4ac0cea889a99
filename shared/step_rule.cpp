#include "step_rule.h"

#include <cstdlib>
#include <cxxabi.h>

#include "regex.h"

namespace prof {
namespace {

// A mangled name this long is corrupt or hostile: __cxa_demangle recurses
// on it, on the calling thread's stack (in the agent, the app's).
constexpr size_t kMaxDemangledBytes = 1 << 14;

// RE2's memory for one rule's automata: its default (8 MiB) is for many
// patterns matched against long texts; a step rule is one short pattern
// matched against names, and the agent lives inside someone's program. When
// the DFA would exceed it RE2 falls back to its NFA, still linear.
constexpr int64_t kRegexMemoryBytes = 2 << 20;

std::optional<StepRule::Kind> kind_named(std::string_view word) {
  if (word == "nvtx") return StepRule::Kind::kNvtx;
  if (word == "kernel") return StepRule::Kind::kKernel;
  if (word == "api") return StepRule::Kind::kApi;
  return std::nullopt;
}

const char* kind_word(StepRule::Kind kind) {
  switch (kind) {
    case StepRule::Kind::kNvtx: return "nvtx";
    case StepRule::Kind::kKernel: return "kernel";
    case StepRule::Kind::kApi: return "api";
  }
  return "";
}

}  // namespace

std::optional<StepRule> StepRule::parse(std::string_view text, std::string& error) {
  const size_t colon = text.find(':');
  const std::optional<Kind> kind = kind_named(text.substr(0, colon));
  if (colon == std::string_view::npos || !kind) {
    error = "is not nvtx:REGEX, kernel:REGEX or api:NAME";
    return std::nullopt;
  }
  return make(*kind, std::string(text.substr(colon + 1)), error);
}

std::optional<StepRule> StepRule::make(Kind kind, std::string pattern, std::string& error) {
  if (pattern.empty()) {
    error = std::string("has nothing after '") + kind_word(kind) + ":' (" +
            (kind == Kind::kApi ? "a CUDA function's name" : "a regular expression") + ")";
    return std::nullopt;
  }
  StepRule rule(kind, std::move(pattern));
  if (kind == Kind::kApi) return rule;
  if (std::string unavailable = Regex::unavailable_reason(); !unavailable.empty()) {
    error = "cannot be used: " + unavailable;
    return std::nullopt;
  }
  std::string regex_error;
  std::shared_ptr<const Regex> regex = Regex::compile(rule.pattern_, kRegexMemoryBytes, regex_error);
  if (regex == nullptr) {
    error = "has a bad regular expression: " + regex_error;
    return std::nullopt;
  }
  rule.regex_ = std::move(regex);
  return rule;
}

std::string StepRule::spelling() const { return std::string(kind_word(kind_)) + ":" + pattern_; }

bool StepRule::ends_steps() const {
  return kind_ == Kind::kApi && pattern_.find("Synchronize") != std::string::npos;
}

bool StepRule::matches(std::string_view name) const {
  if (kind_ == Kind::kApi) return name == pattern_;
  return regex_->finds(name);
}

std::string demangled_kernel_name(std::string_view name) {
  if (name.size() < 2 || name.substr(0, 2) != "_Z" || name.size() > kMaxDemangledBytes) return std::string(name);
  const std::string mangled(name);
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && readable != nullptr ? std::string(readable) : mangled;
  std::free(readable);
  return out;
}

}  // namespace prof
