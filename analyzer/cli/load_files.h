#pragma once
// Shared by the subcommands: load FILE... into one Run (a folder or a glob
// as the captures in it, see capture_paths.h), printing the one error line
// for a bad file.
#include <ostream>
#include <string>
#include <vector>

#include "model/run.h"
#include "model/run_builder.h"

namespace prof::analyzer {

// False after printing "profanalyze: FILE: byte N: why" to err.
[[nodiscard]] bool load_files(const std::vector<std::string>& paths, Run& run, std::ostream& err,
                             LoadDepth depth = LoadDepth::kEvents);

}  // namespace prof::analyzer
