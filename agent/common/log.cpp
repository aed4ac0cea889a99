#include "common/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

namespace prof {
namespace {

std::atomic<LogLevel> g_level{LogLevel::info};
std::atomic<int> g_kept_stderr{-1};

void vlog(LogLevel needed, const char* format, va_list args) {
  if (g_level.load(std::memory_order_relaxed) < needed) return;
  char line[1024];
  constexpr char kPrefix[] = "libprof: ";
  size_t used = sizeof(kPrefix) - 1;
  __builtin_memcpy(line, kPrefix, used);
  int n = vsnprintf(line + used, sizeof(line) - used - 1, format, args);
  if (n < 0) return;
  used += static_cast<size_t>(n) < sizeof(line) - used - 1 ? static_cast<size_t>(n)
                                                           : sizeof(line) - used - 2;
  line[used++] = '\n';
  if (write(STDERR_FILENO, line, used) < 0 && errno == EBADF) {
    const int kept = g_kept_stderr.load(std::memory_order_relaxed);
    if (kept >= 0) {
      ssize_t ignored = write(kept, line, used);
      (void)ignored;
    }
  }
}

}  // namespace

void set_log_level(LogLevel level) { g_level.store(level, std::memory_order_relaxed); }

void keep_stderr_for_exit() {
  if (g_kept_stderr.load(std::memory_order_relaxed) >= 0) return;
  g_kept_stderr.store(fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 64), std::memory_order_relaxed);
}
LogLevel log_level() { return g_level.load(std::memory_order_relaxed); }

void log_error(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vlog(LogLevel::info, format, args);
  va_end(args);
}

void log_info(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vlog(LogLevel::info, format, args);
  va_end(args);
}

void log_debug(const char* format, ...) {
  va_list args;
  va_start(args, format);
  vlog(LogLevel::debug, format, args);
  va_end(args);
}

}  // namespace prof
