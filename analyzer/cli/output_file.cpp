#include "cli/output_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "cli/prof_analyze.h"

namespace prof::analyzer {
namespace {

// 41213 -> "41,213": file sizes as people read them.
std::string with_commas(uint64_t n) {
  std::string digits = std::to_string(n);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

}  // namespace

int write_output(const std::string& path, const std::function<void(std::ostream&)>& write, std::ostream& out,
                 std::ostream& err) {
  if (path == "-") {
    write(out);
    return kExitOk;
  }
  errno = 0;
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    err << "profanalyze: " << path << ": cannot create: " << std::strerror(errno != 0 ? errno : EIO) << '\n';
    return kExitBadOutput;
  }
  write(file);
  const auto bytes = static_cast<uint64_t>(file.tellp());
  errno = 0;
  file.close();
  if (!file) {
    err << "profanalyze: " << path << ": cannot write: " << std::strerror(errno != 0 ? errno : EIO) << '\n';
    return kExitBadOutput;
  }
  err << "profanalyze: wrote " << path << " (" << with_commas(bytes) << " bytes)\n";
  return kExitOk;
}

}  // namespace prof::analyzer
