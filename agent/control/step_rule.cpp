#include "control/step_rule.h"

#include <cstring>

namespace prof {

std::string StepRule::spelling() const {
  switch (kind) {
    case Kind::nvtx: return "nvtx:" + pattern;
    case Kind::kernel: return "kernel:" + pattern;
    case Kind::api: return "api:" + pattern;
  }
  return pattern;
}

bool StepRule::matches(const char* text) const {
  if (text == nullptr) return false;
  if (kind == Kind::api) return strcmp(text, pattern.c_str()) == 0;
  return std::regex_search(text, regex);
}

std::optional<StepRule> parse_step_rule(const std::string& text, std::string& error) {
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  StepRule rule;
  if (kind == "nvtx") {
    rule.kind = StepRule::Kind::nvtx;
  } else if (kind == "kernel") {
    rule.kind = StepRule::Kind::kernel;
  } else if (kind == "api") {
    rule.kind = StepRule::Kind::api;
  } else {
    error = "is not nvtx:REGEX, kernel:REGEX or api:NAME";
    return std::nullopt;
  }
  if (colon == std::string::npos || colon + 1 == text.size()) {
    error = "has nothing after '" + kind + ":'";
    return std::nullopt;
  }
  rule.pattern = text.substr(colon + 1);
  if (rule.kind != StepRule::Kind::api) {
    try {
      rule.regex = std::regex(rule.pattern, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      error = std::string("has a bad regular expression: ") + e.what();
      return std::nullopt;
    }
  }
  return rule;
}

}  // namespace prof
