#pragma once
// /proc/PID/stat, read by both programs: the agent writes its process's
// start time into its control file, and `profanalyze capture` checks it
// against the process it asks, so a control file left by a killed process
// whose pid was reused is not taken for the agent's. One parser, so that
// the two sides can never disagree on which field that is.
#include <cstdint>
#include <string>
#include <string_view>

namespace prof {

// Field 22 of a /proc/PID/stat line (starttime: clock ticks after boot) as
// written there; "" when the line is cut short. Fields are counted from the
// last ')', since the command name (field 2, in parentheses) may itself hold
// spaces and ')'.
std::string_view stat_start_ticks(std::string_view stat);

// The start time of process `pid` (0: this process), from its
// /proc/PID/stat; "" when it cannot be read (no such process).
std::string process_start_ticks(int64_t pid);

// Whether a process `pid` exists now (/proc/PID does).
bool process_exists(int64_t pid);

}  // namespace prof
