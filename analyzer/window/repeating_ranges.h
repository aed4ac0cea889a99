#pragma once
// The NVTX ranges of a run that repeat: by name ("forward", 20 times), and
// those whose names count ("step#0", "step#1", ... or "iter 3"): a loop that
// names each iteration. What `--step auto` takes for steps before anything
// else, and what a schedule that found no ProfilerStep# ranges suggests.
#include <cstdint>
#include <string>
#include <vector>

#include "model/run.h"

namespace prof::analyzer {

struct RepeatingRange {
  // "step#N" for counted names (the counter as N), else the name itself.
  std::string shape;
  // For counted names: the text before the counter, "step#"; empty otherwise.
  std::string counted_prefix;
  int64_t count = 0;  // ranges of this shape
  // The --step rule that takes each of them: "nvtx:^step#[0-9]+$".
  std::string rule() const;
};

// The shapes of range names seen at least 3 times, the most frequent first
// (counted ones before plain ones of the same count).
std::vector<RepeatingRange> repeating_ranges(const Run& run);

// Escapes RE2's special characters in `text`, so a rule matches it literally.
std::string regex_literal(const std::string& text);

}  // namespace prof::analyzer
