#include "cli/load_files.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

#include "cli/capture_paths.h"

namespace prof::analyzer {

unsigned load_jobs() {
  const char* text = std::getenv("PROFANALYZE_JOBS");
  if (text == nullptr) return 0;
  unsigned jobs = 0;
  const char* end = text + std::strlen(text);
  const auto [stop, error] = std::from_chars(text, end, jobs);
  return error == std::errc() && stop == end ? jobs : 0;
}

bool load_files(const std::vector<std::string>& arguments, Run& run, std::ostream& err, LoadDepth depth) {
  std::vector<std::string> paths;
  if (!expand_capture_paths(arguments, paths, err)) return false;
  if (auto error = load_run(paths, run, err, depth, load_jobs())) {
    err << "profanalyze: " << error->describe() << '\n';
    return false;
  }
  return true;
}

}  // namespace prof::analyzer
