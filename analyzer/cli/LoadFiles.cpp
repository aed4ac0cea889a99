#include "cli/LoadFiles.h"

namespace prof::analyzer {

bool loadFiles(const std::vector<std::string>& paths, Run& run, std::ostream& err, LoadDepth depth) {
  if (auto error = loadRun(paths, run, err, depth)) {
    err << "profanalyze: " << error->describe() << '\n';
    return false;
  }
  return true;
}

}  // namespace prof::analyzer
