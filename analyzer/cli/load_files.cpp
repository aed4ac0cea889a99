#include "cli/load_files.h"

namespace prof::analyzer {

bool load_files(const std::vector<std::string>& paths, Run& run, std::ostream& err, LoadDepth depth) {
  if (auto error = load_run(paths, run, err, depth)) {
    err << "profanalyze: " << error->describe() << '\n';
    return false;
  }
  return true;
}

}  // namespace prof::analyzer
