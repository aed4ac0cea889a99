#pragma once
// Diagnostics of the agent. Every line goes to stderr prefixed "libprof: ",
// written with one write(2) so lines of several threads do not interleave,
// and without stdio so the app's stdio buffers and locks are never touched.
#include <cstdarg>

#include "common/option_words.h"

namespace prof {

enum class LogLevel { quiet = 0, info = 1, debug = 2 };
// PROF_LOG's words (unset: info).
inline constexpr OptionWord<LogLevel> kLogLevelWords[] = {
    {"info", LogLevel::info}, {"quiet", LogLevel::quiet}, {"debug", LogLevel::debug}};

void set_log_level(LogLevel level);
// Keeps a copy of stderr for lines written at exit, after the program may
// have closed it (coreutils' `timeout` closes stdout and stderr in an
// atexit handler that runs before the agent's): lines then go to the copy.
void keep_stderr_for_exit();
LogLevel log_level();

// A bad PROF_* value is said once per run, not by each of its processes:
// the lines said while reading the configuration are held until the
// process knows its run, then each is said unless the run has said it
// (`say` decides; run_claim.h). At most kHeldLines are held.
inline constexpr int kHeldLines = 16;
void hold_lines();
void release_held_lines(bool (*say)(const char* line, void* context), void* context);

// Errors are printed unless PROF_LOG=quiet: the user must learn that a part
// of the agent is off.
[[gnu::format(printf, 1, 2)]] void log_error(const char* format, ...);
[[gnu::format(printf, 1, 2)]] void log_info(const char* format, ...);
[[gnu::format(printf, 1, 2)]] void log_debug(const char* format, ...);

}  // namespace prof
