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
constexpr int kExitBadOutput = 1;  // an output could not be written in full

// args[0] is the program name, as in argv. Results go to `out`; progress,
// warnings and errors (one line each, "profanalyze: ...") to `err`.
int run_prof_analyze(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// A command's exit code `code`, unless `out` failed (a write it took did not
// reach its file): then one line on `err` and a failure.
int finish_output(int code, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
