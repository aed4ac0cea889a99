#pragma once
// `profanalyze record [options] -- ./app args`: runs the program with the
// agent preloaded (LD_PRELOAD and PROF_* set for it alone), as `nsys
// profile` or `perf record` do, and says at the end what was written and
// what to run next. The program keeps its stdin, stdout, stderr, exit code
// and signals; profanalyze's own lines go to stderr.
#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace prof::analyzer {

struct RecordOptions {
  std::string output;    // PROF_OUTPUT; empty: the agent's default (run.pb)
  std::string schedule;  // PROF_SCHEDULE
  std::string step;      // PROF_STEP
  std::string stacks;    // PROF_STACKS
  std::string backend;   // PROF_BACKEND
  std::string agent;     // libprof.so to preload; empty: the one beside profanalyze
  bool report = false;   // print `report` of what was written afterwards
  std::vector<std::string> command;
};

CLI::App* add_record_command(CLI::App& app, RecordOptions& options);
// Returns the program's exit status (or 127/126 when it could not be
// started, as a shell does). A program killed by a signal is reported, and
// the signal is raised again on profanalyze itself so that its parent sees
// what a shell would have seen.
int run_record_command(const RecordOptions& options, std::ostream& out, std::ostream& err);

}  // namespace prof::analyzer
