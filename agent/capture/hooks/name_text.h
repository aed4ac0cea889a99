#pragma once
// A table of names kept as one text of NUL-ended names ("cuInit\0cuMemAlloc\0")
// and the offset at which each begins. A table of `const char*` holds one
// pointer per name that the loader relocates in every process under
// LD_PRELOAD, and each page of such pointers is a page copied on write
// before main (issue #30); offsets are constants the loader never touches.
#include <array>
#include <cstddef>
#include <cstdint>

namespace prof {

// Not constexpr: called only when a text's names are not `count` (a
// generated list and its text out of step), which fails the build.
void text_holds_another_number_of_names();

// Where each of the `count` names of `text` begins: the first at 0, each
// next one after the NUL that ends the one before.
template <size_t count, size_t size>
consteval std::array<uint16_t, count> name_offsets(const char (&text)[size]) {
  static_assert(size <= 65536, "offsets are 16-bit");
  std::array<uint16_t, count> offsets{};
  size_t names = 0;
  for (size_t i = 0; i + 1 < size; ++i) {  // the literal's own NUL ends no name
    if (text[i] != '\0') continue;
    ++names;
    if (names < count) offsets[names] = static_cast<uint16_t>(i + 1);
  }
  if (names != count) text_holds_another_number_of_names();
  return offsets;
}

}  // namespace prof
