#include "cli/LoadFiles.h"

#include "model/RunBuilder.h"

namespace prof::analyzer {

bool loadFiles(const std::vector<std::string>& paths, Run& run, std::ostream& err) {
  if (auto error = loadRun(paths, run, err)) {
    err << "profanalyze: " << error->describe() << '\n';
    return false;
  }
  return true;
}

}  // namespace prof::analyzer
