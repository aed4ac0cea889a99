#include "common/environment.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace prof {

const char* env_value(const char* name) {
  const size_t length = strlen(name);
  // The first character first: a strncmp call for every entry was most of
  // the cost of the ~10 lookups at every process's start (issue #30).
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (**entry == *name && strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') return *entry + length + 1;
  }
  return nullptr;
}

void env_set(const char* name, const char* value, bool overwrite) {
  using SetenvFunction = int (*)(const char*, const char*, int);
  static constinit std::atomic<SetenvFunction> cache{nullptr};
  SetenvFunction real = cache.load(std::memory_order_acquire);
  if (real == nullptr) {
    real = reinterpret_cast<SetenvFunction>(dlsym(RTLD_NEXT, "setenv"));
    if (real == nullptr) real = setenv;
    cache.store(real, std::memory_order_release);
  }
  real(name, value, overwrite ? 1 : 0);
}

}  // namespace prof
