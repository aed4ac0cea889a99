#pragma once
// The profanalyze command line, callable in-process so tests can check
// exit codes and stderr without spawning a process.
#include <ostream>
#include <string>
#include <vector>

namespace prof::analyzer {

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1;  // a file could not be read
constexpr int kExitUsage = 2;     // the command line itself is wrong

// args[0] is the program name, as in argv. Results go to `out`; progress,
// warnings and errors (one line each, "profanalyze: ...") to `err`.
int run_prof_analyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
