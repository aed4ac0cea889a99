#include "cli/driver_calls_note.h"

namespace prof::analyzer {

void note_nested_calls_not_recorded(const std::vector<ProcessInfo>& processes, std::ostream& err) {
  for (const ProcessInfo& info : processes) {
    if (!info.process) continue;
    const auto api = info.process->options.find("api");
    if (api == info.process->options.end() || api->second == "all") continue;
    // Worded as the agent's rule: a file from an agent older than the rule
    // (2026-11) holds such calls under `default` too, and shows them.
    err << "profanalyze: " << info.path << ": recorded with PROF_API=" << api->second
        << ": the agent leaves out a driver launch, copy, memset, allocation or synchronisation made "
           "inside a runtime call (the runtime call stands for it) unless PROF_API=all records them\n";
  }
}

}  // namespace prof::analyzer
