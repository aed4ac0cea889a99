#pragma once
// A regular expression in RE2's syntax, compiled once and searched in names
// (the step rule's REGEX, step_rule.h). One interface,
// two homes for RE2: the analyzer links it (regex_re2.cpp); libprof.so does
// not, and opens libprof-regex.so beside itself when it builds its first
// regex (agent/regex/companion_regex.cpp). RE2's class tables are 11 KB of
// pointers that the loader relocates in every process that maps them, so a
// process under LD_PRELOAD that never builds a regex must not map them
// (issue #30, docs/performance.md's seventh start-up round).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace prof {

class Regex {
 public:
  // Why no regex can be compiled here, or "" when one can: in libprof.so,
  // that libprof-regex.so did not load (with the loader's reason).
  static std::string unavailable_reason();
  // `pattern` compiled, its automata given at most `max_memory_bytes`; or
  // null with `error` saying why (RE2's words: "no argument for repetition
  // operator: *", or unavailable_reason()).
  static std::unique_ptr<const Regex> compile(const std::string& pattern, int64_t max_memory_bytes,
                                              std::string& error);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;

  // Whether the pattern matches anywhere in `text`. Time linear in the
  // text's length, memory bounded and off the stack; safe from any thread.
  bool finds(std::string_view text) const;

 private:
  explicit Regex(void* compiled) : compiled_(compiled) {}
  void* compiled_;  // the implementation's own object (an re2::RE2, or libprof-regex.so's)
};

}  // namespace prof
