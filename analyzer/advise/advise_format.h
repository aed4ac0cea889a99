#pragma once
// advise's output: text for people, JSON for tools (the HTML report reads
// it). analyzer/README.md documents the JSON schema.
#include <cstdint>
#include <string>
#include <vector>

#include "advise/advise.h"

namespace prof::analyzer {

struct AdviseProcess {
  uint32_t pid = 0;
  int32_t rank = -1;  // -1: none recorded
};

struct AdviseReportWindow {
  int64_t index = -1;  // -1: every step (or the whole run without steps)
  std::string title;
  std::vector<int64_t> steps;
  bool partial = false;
  AdviseWindow result;
};

struct AdviseReport {
  std::string step_rule;  // "--step kernel:^step$"; empty: no steps
  int64_t step_count = 0;
  std::vector<AdviseProcess> processes;
  std::vector<AdviseReportWindow> windows;
};

std::string advise_text(const AdviseReport& report);
std::string advise_json(const AdviseReport& report);

}  // namespace prof::analyzer
