#pragma once
// Diagnostics of the agent. Every line goes to stderr prefixed "libprof: ",
// written with one write(2) so lines of several threads do not interleave,
// and without stdio so the app's stdio buffers and locks are never touched.
#include <cstdarg>

namespace prof {

enum class LogLevel { quiet = 0, info = 1, debug = 2 };

void set_log_level(LogLevel level);
// Keeps a copy of stderr for lines written at exit, after the program may
// have closed it (coreutils' `timeout` closes stdout and stderr in an
// atexit handler that runs before the agent's): lines then go to the copy.
void keep_stderr_for_exit();
LogLevel log_level();

// Errors are printed unless PROF_LOG=quiet: the user must learn that a part
// of the agent is off.
[[gnu::format(printf, 1, 2)]] void log_error(const char* format, ...);
[[gnu::format(printf, 1, 2)]] void log_info(const char* format, ...);
[[gnu::format(printf, 1, 2)]] void log_debug(const char* format, ...);

}  // namespace prof
