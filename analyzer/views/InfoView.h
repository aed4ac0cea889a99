#pragma once
// `profanalyze info`: what a capture file holds, one block per file/process.
#include <string>

#include "model/Run.h"

namespace prof::analyzer {

std::string formatInfo(const Run& run);

}  // namespace prof::analyzer
