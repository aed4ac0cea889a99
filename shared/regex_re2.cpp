// prof::Regex over RE2 linked in: the analyzer's, the unit tests', and
// libprof-regex.so's, the library libprof.so opens for its regexes
// (libprof.so links agent/regex/companion_regex.cpp instead: CMakeLists.txt).
#include "regex.h"

#include <re2/re2.h>

namespace prof {

std::string Regex::unavailable_reason() { return ""; }

std::unique_ptr<const Regex> Regex::compile(const std::string& pattern, int64_t max_memory_bytes,
                                            std::string& error) {
  RE2::Options options;
  options.set_log_errors(false);  // RE2 would print to the program's stderr
  options.set_max_mem(max_memory_bytes);
  auto regex = std::make_unique<RE2>(pattern, options);
  if (!regex->ok()) {
    error = regex->error();
    return nullptr;
  }
  return std::unique_ptr<const Regex>(new Regex(regex.release()));
}

Regex::~Regex() { delete static_cast<RE2*>(compiled_); }

bool Regex::finds(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *static_cast<const RE2*>(compiled_));
}

}  // namespace prof
