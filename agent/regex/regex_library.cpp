// libprof-regex.so: RE2 (through regex_re2.cpp) for libprof.so, which opens
// it when it builds its first regex (companion_regex.cpp). Its only export
// is libprof_regex_calls (regex_library.map).
#include <algorithm>
#include <cstring>
#include <string>

#include "regex.h"
#include "regex/regex_calls.h"

namespace {

void* compile(const char* pattern, size_t pattern_length, int64_t max_memory_bytes, char* error, size_t error_size) {
  std::string reason;
  std::unique_ptr<const prof::Regex> regex =
      prof::Regex::compile(std::string(pattern, pattern_length), max_memory_bytes, reason);
  if (regex == nullptr && error_size > 0) {
    const size_t length = std::min(reason.size(), error_size - 1);
    std::memcpy(error, reason.data(), length);
    error[length] = '\0';
  }
  return const_cast<prof::Regex*>(regex.release());
}

bool finds(const void* regex, const char* text, size_t text_length) {
  return static_cast<const prof::Regex*>(regex)->finds(std::string_view(text, text_length));
}

void release(void* regex) { delete static_cast<prof::Regex*>(regex); }

}  // namespace

extern "C" __attribute__((visibility("default"))) const prof::RegexCalls* libprof_regex_calls() {
  static constexpr prof::RegexCalls kCalls{prof::kRegexCallsVersion, compile, finds, release};
  return &kCalls;
}
