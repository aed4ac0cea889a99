#pragma once
// What the driver's and the runtime's hooks both do when a lookup (dlsym,
// cuGetProcAddress) finds one of their functions: hand out our wrapper in
// its place, and remember the definition found as the one the wrapper
// forwards to.
#include <atomic>
#include <cstdint>
#include <cstring>

namespace prof {

// One family of hooks, by index: the function's name where it is defined,
// our wrapper of it, and the definition the wrapper forwards to (nullptr
// until known).
struct WrapperTable {
  const char* const* names;
  void* const* wrappers;
  std::atomic<void*>* reals;
  uint32_t count;
};

// Our wrapper of the function `name` found at `real`, remembering `real` as
// its target. `real` itself when it is one of our wrappers already (a lookup
// in the global scope finds ours first), when no wrapper has that name, or
// when the wrapper already forwards to another definition (another copy of
// the library, loaded privately: not ours to wrap).
inline void* hand_out_wrapper(const WrapperTable& table, const char* name, void* real) {
  for (uint32_t i = 0; i < table.count; ++i) {
    if (table.wrappers[i] == real) return real;
  }
  if (name == nullptr) return real;
  for (uint32_t i = 0; i < table.count; ++i) {
    if (strcmp(table.names[i], name) != 0) continue;
    void* expected = nullptr;
    table.reals[i].compare_exchange_strong(expected, real);
    return expected == nullptr || expected == real ? table.wrappers[i] : real;
  }
  return real;
}

}  // namespace prof
