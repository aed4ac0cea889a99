#pragma once
// Words read from any address: a memcpy of a constant size, which compiles
// to one load (the writer compares and hashes texts and records a word at a
// time, from addresses with no alignment to speak of).
#include <cstdint>
#include <cstring>

namespace prof {

inline uint64_t load_u64(const char* p) {
  uint64_t word;
  memcpy(&word, p, sizeof word);
  return word;
}

inline uint32_t load_u32(const char* p) {
  uint32_t word;
  memcpy(&word, p, sizeof word);
  return word;
}

}  // namespace prof
