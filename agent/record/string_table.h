#pragma once
// Interning of strings for the file (FORMAT.md, "Interning"): the writer
// assigns each distinct string an id once and defines it in the chunk being
// encoded when it is first used.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "encode/chunk_encoder.h"

namespace prof {

class StringTable {
 public:
  // The id of `value`; a new string is defined in `chunk` as a side effect.
  uint64_t intern(std::string_view value, ChunkEncoder& chunk);

  // For strings with static storage (CUDA function names): keyed by address,
  // which avoids hashing the text on every record.
  uint64_t intern_static(const char* value, ChunkEncoder& chunk);

  size_t size() const { return ids_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, uint64_t, Hash, std::equal_to<>> ids_;
  std::unordered_map<const char*, uint64_t> static_ids_;
  uint64_t next_id_ = 1;  // 0 means "no string"
};

}  // namespace prof
