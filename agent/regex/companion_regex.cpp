// prof::Regex in libprof.so: RE2 lives in libprof-regex.so beside it, opened
// at the first regex the agent builds (a step rule, PROF_STEP). A
// process that never builds one (most processes under an exported
// LD_PRELOAD: shells, make, compilers) neither maps RE2 nor has the loader
// relocate its class tables (issue #30).
#include <dlfcn.h>

#include <string>

#include "common/loaded_object.h"
#include "regex.h"
#include "regex/regex_calls.h"

namespace prof {
namespace {

// libprof-regex.so from the folder of the libprof.so this code is in: the
// preloaded one, or the one CUDA_INJECTION64_PATH names (an install keeps
// the two files together, as the build's lib/ does).
std::string regex_library_path() {
  const char* name = loaded_object_name(reinterpret_cast<const void*>(&regex_library_path));
  const std::string path = name != nullptr ? name : "";
  const size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string(".") : path.substr(0, slash)) + "/" + kRegexLibraryName;
}

struct RegexLibrary {
  const RegexCalls* calls = nullptr;
  std::string error;  // why calls is null
};

// Opened once, by the first caller (a static's initialisation is
// thread-safe), and never closed nor destroyed: regexes may live until the
// last exit handler.
const RegexLibrary& regex_library() {
  static const RegexLibrary* const library = [] {
    auto* opened_here = new RegexLibrary;
    RegexLibrary& opened = *opened_here;
    const std::string path = regex_library_path();
    // RTLD_LOCAL: its one symbol stays out of the program's lookups.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* reason = dlerror();
      opened.error = std::string(reason != nullptr ? reason : path) + " (libprof.so's regular expressions)";
      return opened_here;
    }
    auto entry = reinterpret_cast<const RegexCalls* (*)()>(dlsym(handle, kRegexCallsSymbol));
    const RegexCalls* calls = entry != nullptr ? entry() : nullptr;
    if (calls == nullptr || calls->version != kRegexCallsVersion) {
      opened.error = path + " is not this agent's regex library (another version?)";
      return opened_here;
    }
    opened.calls = calls;
    return opened_here;
  }();
  return *library;
}

}  // namespace

std::string Regex::unavailable_reason() { return regex_library().error; }

std::unique_ptr<const Regex> Regex::compile(const std::string& pattern, int64_t max_memory_bytes,
                                            std::string& error) {
  const RegexLibrary& library = regex_library();
  if (library.calls == nullptr) {
    error = library.error;
    return nullptr;
  }
  char reason[256] = "";
  void* compiled = library.calls->compile(pattern.data(), pattern.size(), max_memory_bytes, reason, sizeof reason);
  if (compiled == nullptr) {
    error = reason;
    return nullptr;
  }
  return std::unique_ptr<const Regex>(new Regex(compiled));
}

// Only made once the library's calls are known (compile above).
Regex::~Regex() { regex_library().calls->release(compiled_); }

bool Regex::finds(std::string_view text) const {
  return regex_library().calls->finds(compiled_, text.data(), text.size());
}

}  // namespace prof
