#pragma once
// What libprof-regex.so offers libprof.so: RE2 behind three plain calls.
// Each library carries its own hidden copy of the C++ runtime (a release
// build links libstdc++ in, agent/CMakeLists.txt), so nothing of C++ (no
// std::string, no exception, no object freed by the other side) crosses
// between them. The companion exports this one function and nothing else,
// and libprof.so opens it RTLD_LOCAL, so the program never sees it.
#include <cstddef>
#include <cstdint>

namespace prof {

struct RegexCalls {
  // Raised when a call changes meaning: a libprof.so refuses a companion
  // of another version (the two files of a copied install could differ).
  uint32_t version;
  // The compiled `pattern`, or null with RE2's reason in `error` (cut to
  // `error_size` bytes, NUL-terminated).
  void* (*compile)(const char* pattern, size_t pattern_length, int64_t max_memory_bytes, char* error,
                   size_t error_size);
  // Whether `regex` matches anywhere in `text`.
  bool (*finds)(const void* regex, const char* text, size_t text_length);
  void (*release)(void* regex);
};

inline constexpr uint32_t kRegexCallsVersion = 1;
inline constexpr const char* kRegexLibraryName = "libprof-regex.so";
// extern "C" const RegexCalls* libprof_regex_calls(void);
inline constexpr const char* kRegexCallsSymbol = "libprof_regex_calls";

}  // namespace prof
