#pragma once
// --driver-calls shows the driver calls made inside a runtime call
// (cuLaunchKernel inside cudaLaunchKernel). The agent records those only
// under PROF_API=all, so a file recorded without it has none to show: this
// says so, so that no such rows do not read as no such calls.
#include <ostream>
#include <vector>

#include "model/run.h"

namespace prof::analyzer {

// One line on `err` per file whose process was recorded with PROF_API other
// than `all`; nothing for a file without a process record.
void note_nested_calls_not_recorded(const std::vector<ProcessInfo>& processes, std::ostream& err);

}  // namespace prof::analyzer
