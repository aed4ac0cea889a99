#include "common/log.h"
#include "common/large_zeroed.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/own_fd.h"

namespace prof {
namespace {

// Not in AgentState: logging runs before AgentState is set up, in
// signal handlers and in unit tests without an agent.
std::atomic<LogLevel> g_level{LogLevel::info};
std::atomic<int> g_kept_stderr{-1};
// What the copy names: the program may have closed it and reused the number.
OwnFd g_kept_stderr_file;

struct HeldLines {
  char lines[kHeldLines][1024];
  size_t lengths[kHeldLines];
};
// Used at start-up and around fork only, on the thread that starts the
// agent: no lock. Not in AgentState: as the level above. Whether lines are
// held, and how many, lie apart from the lines: every process sets them at
// start-up, and a page of the lines is written only when there is a line
// to hold (a warning), not in every process under LD_PRELOAD (issue #30).
bool g_holding = false;
int g_held_count = 0;
PROF_LARGE_ZEROED HeldLines g_held;

void vlog(LogLevel needed, const char* format, va_list args) {
  if (g_level.load(std::memory_order_relaxed) < needed) return;
  char line[1024];
  constexpr char kPrefix[] = "libprof: ";
  size_t used = sizeof(kPrefix) - 1;
  __builtin_memcpy(line, kPrefix, used);
  // A line without conversions, or passed whole ("%s"), is copied:
  // vsnprintf would be the only reason a process that never records (its
  // one line, "nothing recorded") faults in four pages of libc's text
  // (issue #30, start-up).
  const char* whole = strchr(format, '%') == nullptr ? format
                      : strcmp(format, "%s") == 0    ? va_arg(args, const char*)
                                                     : nullptr;
  int n = 0;
  if (whole != nullptr) {
    n = static_cast<int>(strnlen(whole, sizeof(line) - used - 2));
    __builtin_memcpy(line + used, whole, static_cast<size_t>(n));
  } else {
    n = vsnprintf(line + used, sizeof(line) - used - 1, format, args);
  }
  if (n < 0) return;
  used += static_cast<size_t>(n) < sizeof(line) - used - 1 ? static_cast<size_t>(n)
                                                           : sizeof(line) - used - 2;
  line[used++] = '\n';
  if (g_holding) {
    if (g_held_count < kHeldLines) {
      __builtin_memcpy(g_held.lines[g_held_count], line, used);
      g_held.lengths[g_held_count++] = used;
    }
    return;
  }
  if (write(STDERR_FILENO, line, used) < 0 && errno == EBADF) {
    const int kept = g_kept_stderr.load(std::memory_order_acquire);
    if (kept >= 0 && still_ours(g_kept_stderr_file)) {
      ssize_t ignored = write(kept, line, used);
      (void)ignored;
    }
  }
}

}  // namespace

void set_log_level(LogLevel level) { g_level.store(level, std::memory_order_relaxed); }

void hold_lines() {
  g_holding = true;
  g_held_count = 0;
}

void release_held_lines(bool (*say)(const char* line, void* context), void* context) {
  if (!g_holding) return;
  g_holding = false;
  for (int i = 0; i < g_held_count; ++i) {
    char* line = g_held.lines[i];
    line[g_held.lengths[i] - 1] = '\0';  // for `say`: the line without its newline
    const bool said = say(line, context);
    line[g_held.lengths[i] - 1] = '\n';
    if (said) {
      ssize_t ignored = write(STDERR_FILENO, line, g_held.lengths[i]);
      (void)ignored;
    }
  }
  g_held_count = 0;
}

void keep_stderr_for_exit() {
  if (g_kept_stderr.load(std::memory_order_relaxed) >= 0) return;
  // From 64 up: under a tiny RLIMIT_NOFILE (ulimit -n 5) no copy is made
  // rather than one that takes the capture file's descriptor.
  g_kept_stderr_file = keep_copy_out_of_the_way(STDERR_FILENO, 64);
  g_kept_stderr.store(g_kept_stderr_file.fd, std::memory_order_release);
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
