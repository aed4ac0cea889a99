#include "cli/output_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "cli/prof_analyze.h"
#include "views/number_format.h"

namespace prof::analyzer {

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
