#pragma once
// `profanalyze info`: what a capture file holds, one block per file/process.
#include <string>

#include "model/run.h"

namespace prof::analyzer {

std::string format_info(const Run& run);

}  // namespace prof::analyzer
