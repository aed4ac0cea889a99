#include "cli/load_files.h"

#include "cli/capture_paths.h"

namespace prof::analyzer {

bool load_files(const std::vector<std::string>& arguments, Run& run, std::ostream& err, LoadDepth depth) {
  std::vector<std::string> paths;
  if (!expand_capture_paths(arguments, paths, err)) return false;
  if (auto error = load_run(paths, run, err, depth)) {
    err << "profanalyze: " << error->describe() << '\n';
    return false;
  }
  return true;
}

}  // namespace prof::analyzer
