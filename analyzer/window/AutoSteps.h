#pragma once
// `--step auto`: finds the repeating period of the CUDA call sequence of a
// program with no step annotations, and turns it into an explicit rule.
#include <cstdint>
#include <optional>
#include <string>

#include "model/Run.h"
#include "window/Steps.h"

namespace prof::analyzer {

struct AutoSteps {
  std::optional<StepRule> rule;  // nullopt: no period found
  int64_t period = 0;            // calls per step
  std::string message;           // what was found, or why nothing was
};

AutoSteps detectSteps(const Run& run);

}  // namespace prof::analyzer
