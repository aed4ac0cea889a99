#pragma once
// RE2's logging (LOG, CHECK, VLOG) for prof_re2, in place of RE2's own
// util/logging.h, which formats through std::ostringstream: that alone
// linked libstdc++'s iostreams and locales into libprof.so (their static
// initialisers, their vtables' relocations and their pages paid by every
// process under LD_PRELOAD, issue #30). This one formats into a fixed
// buffer with snprintf and writes the line to stderr, as RE2's did; the
// include path (third_party/CMakeLists.txt) puts it before RE2's folder.
// The same macros and behaviour: LOG(ERROR) writes one line, LOG(FATAL)
// and a failed CHECK write it and abort; DCHECK is assert.
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include <string>
#include <string_view>
#include <type_traits>

#include "util/util.h"

#define DCHECK(condition) assert(condition)
#define DCHECK_EQ(val1, val2) assert((val1) == (val2))
#define DCHECK_NE(val1, val2) assert((val1) != (val2))
#define DCHECK_LE(val1, val2) assert((val1) <= (val2))
#define DCHECK_LT(val1, val2) assert((val1) < (val2))
#define DCHECK_GE(val1, val2) assert((val1) >= (val2))
#define DCHECK_GT(val1, val2) assert((val1) > (val2))

#define CHECK(x) \
  if (x) {       \
  } else         \
    LogMessageFatal(__FILE__, __LINE__).stream() << "Check failed: " #x
#define CHECK_LT(x, y) CHECK((x) < (y))
#define CHECK_GT(x, y) CHECK((x) > (y))
#define CHECK_LE(x, y) CHECK((x) <= (y))
#define CHECK_GE(x, y) CHECK((x) >= (y))
#define CHECK_EQ(x, y) CHECK((x) == (y))
#define CHECK_NE(x, y) CHECK((x) != (y))

#define LOG_INFO LogMessage(__FILE__, __LINE__)
#define LOG_WARNING LogMessage(__FILE__, __LINE__)
#define LOG_ERROR LogMessage(__FILE__, __LINE__)
#define LOG_FATAL LogMessageFatal(__FILE__, __LINE__)
#define LOG_QFATAL LOG_FATAL
#ifdef NDEBUG
#define LOG_DFATAL LOG_ERROR
#else
#define LOG_DFATAL LOG_FATAL
#endif
#define LOG(severity) LOG_##severity.stream()
#define VLOG(x) \
  if ((x) > 0) { \
  } else         \
    LOG_INFO.stream()

// One log line, "file:line: " and what was streamed into it; longer lines
// are cut at the buffer's end.
class LogMessage {
 public:
  LogMessage(const char* file, int line) { *this << file << ":" << line << ": "; }
  ~LogMessage() { Flush(); }
  LogMessage(const LogMessage&) = delete;
  LogMessage& operator=(const LogMessage&) = delete;

  LogMessage& stream() { return *this; }

  LogMessage& operator<<(std::string_view text) {
    const size_t room = sizeof(line_) - 1 - used_;  // one byte kept for the newline
    const size_t n = text.size() < room ? text.size() : room;
    for (size_t i = 0; i < n; ++i) line_[used_ + i] = text[i];
    used_ += n;
    return *this;
  }
  LogMessage& operator<<(const char* text) { return *this << std::string_view(text != nullptr ? text : "(null)"); }
  LogMessage& operator<<(const std::string& text) { return *this << std::string_view(text); }
  LogMessage& operator<<(char c) { return *this << std::string_view(&c, 1); }
  LogMessage& operator<<(bool value) { return *this << (value ? "1" : "0"); }
  // Numbers and enumerations (RE2 logs opcodes and operators by value).
  template <typename Number,
            typename = std::enable_if_t<std::is_arithmetic_v<Number> || std::is_enum_v<Number>>>
  LogMessage& operator<<(Number value) {
    char text[32];
    int n;
    if constexpr (std::is_enum_v<Number>) {
      n = snprintf(text, sizeof(text), "%lld", static_cast<long long>(value));
    } else if constexpr (std::is_floating_point_v<Number>) {
      n = snprintf(text, sizeof(text), "%g", static_cast<double>(value));
    } else if constexpr (std::is_signed_v<Number>) {
      n = snprintf(text, sizeof(text), "%lld", static_cast<long long>(value));
    } else {
      n = snprintf(text, sizeof(text), "%llu", static_cast<unsigned long long>(value));
    }
    return *this << std::string_view(text, n > 0 ? static_cast<size_t>(n) : 0);
  }

 protected:
  void Flush() {
    if (flushed_) return;
    flushed_ = true;
    line_[used_++] = '\n';
    if (fwrite(line_, 1, used_, stderr) < used_) {
    }
  }

 private:
  char line_[1024];
  size_t used_ = 0;
  bool flushed_ = false;
};

class LogMessageFatal : public LogMessage {
 public:
  LogMessageFatal(const char* file, int line) : LogMessage(file, line) {}
  ATTRIBUTE_NORETURN ~LogMessageFatal() {
    Flush();
    abort();
  }
};
