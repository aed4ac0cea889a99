#pragma once
// Shared by the subcommands: load FILE... into one Run (a folder or a glob
// as the captures in it, see capture_paths.h), printing the one error line
// for a bad file. Several files are read on every core (load_run.cpp);
// PROFANALYZE_JOBS=N caps the threads (1: one file after the other), which
// changes nothing in any output.
#include <ostream>
#include <string>
#include <vector>

#include "model/run.h"
#include "model/run_builder.h"

namespace prof::analyzer {

// False after printing "profanalyze: FILE: byte N: why" to err.
[[nodiscard]] bool load_files(const std::vector<std::string>& paths, Run& run, std::ostream& err,
                             LoadDepth depth = LoadDepth::kEvents);

// Threads for reading files: PROFANALYZE_JOBS when it is a positive
// number, else 0 (one per core).
unsigned load_jobs();

}  // namespace prof::analyzer
