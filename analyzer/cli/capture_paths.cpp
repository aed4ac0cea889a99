#include "cli/capture_paths.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace prof::analyzer {
namespace {

bool is_pattern(const std::string& argument) { return argument.find_first_of("*?[") != std::string::npos; }

}  // namespace

bool expand_capture_paths(const std::vector<std::string>& arguments, std::vector<std::string>& paths,
                        std::ostream& err) {
  namespace fs = std::filesystem;
  for (const std::string& argument : arguments) {
    std::error_code ec;
    if (fs::is_directory(argument, ec)) {
      std::vector<std::string> found;
      for (const fs::directory_entry& entry : fs::directory_iterator(argument, ec))
        if (entry.path().extension() == ".pb" && entry.is_regular_file(ec)) found.push_back(entry.path().string());
      if (found.empty()) {
        err << "profanalyze: " << argument << ": is a directory with no capture files (*.pb) in it\n";
        return false;
      }
      std::sort(found.begin(), found.end());
      paths.insert(paths.end(), found.begin(), found.end());
    } else if (is_pattern(argument) && !fs::exists(argument, ec)) {
      glob_t matches{};
      const int result = glob(argument.c_str(), 0, nullptr, &matches);
      if (result != 0) {
        globfree(&matches);
        err << "profanalyze: " << argument << ": no file matches the pattern\n";
        return false;
      }
      for (size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);  // glob sorts them
      globfree(&matches);
    } else {
      paths.push_back(argument);
    }
  }
  return true;
}

}  // namespace prof::analyzer
