#include "common/proc_self.h"

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>

namespace prof {

std::string read_thread_name(uint32_t tid) {
  char path[64];
  snprintf(path, sizeof(path), "/proc/self/task/%u/comm", tid);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char name[64] = {};
  ssize_t n = ::read(fd, name, sizeof(name) - 1);
  ::close(fd);
  if (n <= 0) return {};
  std::string result(name, static_cast<size_t>(n));
  while (!result.empty() && result.back() == '\n') result.pop_back();
  return result;
}

std::string executable_path() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return {};
  return std::string(path, static_cast<size_t>(length));
}

std::vector<std::string> command_line() {
  // read(2), not an ifstream: with no descriptor left (ulimit -n 5) the
  // failed stream tripped UBSan's vptr check inside libstdc++.
  std::string all;
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n <= 0) break;
      all.append(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
  }
  std::vector<std::string> args;
  for (size_t begin = 0; begin < all.size();) {
    size_t end = all.find('\0', begin);
    if (end == std::string::npos) end = all.size();
    args.emplace_back(all, begin, end - begin);
    begin = end + 1;
  }
  return args;
}

}  // namespace prof
