#pragma once
// Interning of strings for the file (FORMAT.md, "Interning"): the writer
// assigns each distinct string an id once and defines it in the chunk being
// encoded when it is first used.
//
// Every record with a name goes through here, so both tables are flat
// open-addressing arrays with an inline hash: std::unordered_map cost ~150
// instructions per lookup (libstdc++'s out-of-line _Hash_bytes, a node
// chase, a memcmp call), a third of the writer's work per kernel launch.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "encode/chunk_encoder.h"

namespace prof {

class StringTable {
 public:
  // The id of `value`; a new string is defined in `chunk` as a side effect.
  uint64_t intern(std::string_view value, ChunkEncoder& chunk);

  // For strings that stay at one address with one text for the life of the
  // process (CUDA function names, NVTX domain names): keyed by address,
  // which avoids reading the text on every record.
  uint64_t intern_static(const char* value, ChunkEncoder& chunk);

  size_t size() const { return texts_.size(); }

 private:
  struct TextSlot {
    uint64_t hash;
    std::string_view text;  // into texts_
    uint64_t id;            // 0: empty slot
  };
  struct AddressSlot {
    const char* address;
    uint64_t id;  // 0: empty slot
  };

  uint64_t insert(std::string_view value, uint64_t hash, ChunkEncoder& chunk);

  std::vector<TextSlot> text_slots_ = std::vector<TextSlot>(64);  // a power of two
  std::vector<AddressSlot> address_slots_ = std::vector<AddressSlot>(64);
  size_t addresses_ = 0;
  std::deque<std::string> texts_;  // a deque: growing never moves a string
  uint64_t next_id_ = 1;           // 0 means "no string"
};

}  // namespace prof
