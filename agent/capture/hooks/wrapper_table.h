#pragma once
// What the driver's and the runtime's hooks both do when a lookup (dlsym,
// cuGetProcAddress) finds one of their functions: hand out our wrapper in
// its place, and remember the definition found as the one the wrapper
// forwards to.
#include <atomic>
#include <cstdint>
#include <cstring>

#include "capture/hooks/real_symbols.h"
#include "capture/hooks/wrapper_offsets.h"

namespace prof {

// One family of hooks, by index: the function's name where it is defined
// (in one text, name_text.h), our wrapper of it (wrapper_offsets.h), and
// the definition the wrapper forwards to (nullptr until known).
struct WrapperTable {
  const char* names;
  const uint16_t* name_offsets;
  const int32_t* wrapper_offsets;
  std::atomic<void*>* reals;
  uint32_t count;

  const char* name(uint32_t i) const { return names + name_offsets[i]; }
  void* wrapper(uint32_t i) const { return address_at(wrapper_offsets, i); }
};

// The definition the wrapper of `hook` forwards to once known, else nullptr:
// the pass-through's first load. `reals` is the family's own array (static,
// so its address is a constant of the wrapper): inlined, this is one load.
template <typename Hook, size_t N>
inline void* known_real(const std::atomic<void*> (&reals)[N], Hook hook) {
  return reals[static_cast<uint32_t>(hook)].load(std::memory_order_acquire);
}

// The definition a wrapper forwards to: the one known (handed out with the
// wrapper, or found before), else the next after the agent in `library`,
// kept for the next call; when two threads look it up at once, the first
// found is kept.
inline void* resolve_real(std::atomic<void*>& slot, const char* name, const char* library) {
  void* real = slot.load(std::memory_order_acquire);
  if (real != nullptr) return real;
  real = next_definition(name, library);
  void* expected = nullptr;
  return slot.compare_exchange_strong(expected, real) ? real : expected;
}

// Our wrapper of the function `name` found at `real`, remembering `real` as
// its target. `real` itself when it is one of our wrappers already (a lookup
// in the global scope finds ours first), when no wrapper has that name, or
// when the wrapper already forwards to another definition (another copy of
// the library, loaded privately: not ours to wrap).
inline void* hand_out_wrapper(const WrapperTable& table, const char* name, void* real) {
  for (uint32_t i = 0; i < table.count; ++i) {
    if (table.wrapper(i) == real) return real;
  }
  if (name == nullptr) return real;
  for (uint32_t i = 0; i < table.count; ++i) {
    if (strcmp(table.name(i), name) != 0) continue;
    void* expected = nullptr;
    table.reals[i].compare_exchange_strong(expected, real);
    return expected == nullptr || expected == real ? table.wrapper(i) : real;
  }
  return real;
}

// The index of `name` among the table's names, or -1.
inline int wrapper_index_by_name(const WrapperTable& table, const char* name) {
  for (uint32_t i = 0; i < table.count; ++i) {
    if (strcmp(table.name(i), name) == 0) return static_cast<int>(i);
  }
  return -1;
}

// The index of the wrapper at `address`, or -1 when it is none of ours.
inline int wrapper_index_by_address(const WrapperTable& table, const void* address) {
  for (uint32_t i = 0; i < table.count; ++i) {
    if (table.wrapper(i) == address) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace prof
