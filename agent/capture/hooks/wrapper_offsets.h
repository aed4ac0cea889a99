#pragma once
// A table of our wrappers' addresses that the loader need not write. A
// table of pointers (`void* const kWrappers[]`) is a relative relocation per
// entry, and the loader writes every page that holds one in each process
// at start-up, CUDA or not: the driver's and the runtime's tables were 3.4
// KB, a page of their own (issue #30). Here the assembler writes each entry
// as the distance from the entry to the wrapper, which the static linker
// fills in (both lie in this library): read-only data, no relocation.
//
// The table is written in top-level asm, as C++ cannot subtract two
// addresses at compile time:
//   asm(PROF_WRAPPER_OFFSETS_BEGIN("prof_driver_wrapper_offsets")
//       PROF_WRAPPER_OFFSET("prof_hook_cuInit_here") ...
//       PROF_WRAPPER_OFFSETS_END);
//   extern "C" PROF_WRAPPER_OFFSETS_DECLARE(prof_driver_wrapper_offsets);
// Each name is a hidden symbol defined in this library (the wrappers'
// `_here` aliases, wrapper_definition.h); a name it lacks fails the link.
#include <cstdint>

#define PROF_WRAPPER_OFFSETS_BEGIN(table)                           \
  ".pushsection .rodata." table ",\"a\",@progbits\n"                \
  ".balign 4\n"                                                     \
  ".hidden " table "\n"                                             \
  ".type " table ",@object\n" table ":\n"
#define PROF_WRAPPER_OFFSET(wrapper) ".long " wrapper " - .\n"
#define PROF_WRAPPER_OFFSETS_END ".popsection\n"
// After extern "C"; hidden: read where it lies, not through the GOT.
#define PROF_WRAPPER_OFFSETS_DECLARE(table) \
  [[gnu::visibility("hidden")]] const int32_t table[]

namespace prof {

// The address entry `i` of such a table stands for.
inline void* address_at(const int32_t* offsets, uint32_t i) {
  const char* entry = reinterpret_cast<const char*>(offsets + i);
  return const_cast<char*>(entry + offsets[i]);
}

}  // namespace prof
