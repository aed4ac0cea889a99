#include "proc_stat.h"

#include <fcntl.h>
#include <unistd.h>

namespace prof {

std::string_view stat_start_ticks(std::string_view stat) {
  const size_t comm_end = stat.rfind(')');
  if (comm_end == std::string_view::npos) return {};
  // Field 3 (state) follows the ')'; fields are separated by one space and
  // the line ends in a newline.
  size_t at = comm_end + 1;
  for (int field = 3; field <= 22; ++field) {
    at = stat.find_first_not_of(' ', at);
    if (at == std::string_view::npos || stat[at] == '\n') return {};
    const size_t end = stat.find_first_of(" \n", at);
    if (field == 22) return stat.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
    at = end;
  }
  return {};
}

std::string process_start_ticks(int64_t pid) {
  const std::string path = pid == 0 ? "/proc/self/stat" : "/proc/" + std::to_string(pid) + "/stat";
  // open/read, not iostreams: the agent runs this inside the app.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buffer[1024];
  std::string stat;
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) stat.append(buffer, static_cast<size_t>(n));
  ::close(fd);
  return std::string(stat_start_ticks(stat));
}

bool process_exists(int64_t pid) { return ::access(("/proc/" + std::to_string(pid)).c_str(), F_OK) == 0; }

}  // namespace prof
