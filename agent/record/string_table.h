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
#include <memory>
#include <string_view>
#include <vector>

#include "encode/chunk_encoder.h"
#include "record/huge_page_allocator.h"

namespace prof {

class StringTable {
 public:
  // The id of `value`; a new string is defined in `chunk` as a side effect.
  uint64_t intern(std::string_view value, ChunkEncoder& chunk);

  // For strings that stay at one address with one text for the life of the
  // process (CUDA function names, NVTX domain names): keyed by address,
  // which avoids reading the text on every record.
  uint64_t intern_static(const char* value, ChunkEncoder& chunk);

  size_t size() const { return entries_.size(); }

 private:
  // A string's id is its index in entries_ plus one. A slot holds 32 bits
  // of the hash and the id, 8 bytes: a million distinct strings (NVTX
  // names with a step number in them) probe a 16-32 MiB table in huge pages
  // rather than 128 MiB of 32-byte slots on small pages (2.5x faster per
  // new string), so that the writer keeps up with a thread making them.
  struct TextSlot {
    uint32_t tag;  // the hash's high 32 bits
    uint32_t id;   // 0: empty slot
  };
  struct TextEntry {
    uint64_t hash;
    std::string_view text;  // into blocks_
  };
  struct AddressSlot {
    const char* address;
    uint64_t id;  // 0: empty slot
  };

  uint64_t insert(std::string_view value, uint64_t hash, ChunkEncoder& chunk);
  std::string_view store(std::string_view value);

  std::vector<TextSlot, HugePageAllocator<TextSlot>> text_slots_ =
      std::vector<TextSlot, HugePageAllocator<TextSlot>>(64);  // a power of two
  std::vector<TextEntry, HugePageAllocator<TextEntry>> entries_;
  // The texts, packed in blocks that never move (a string_view stays valid).
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_ = nullptr;  // the block short texts go into
  size_t block_left_ = 0;
  std::vector<AddressSlot> address_slots_ = std::vector<AddressSlot>(64);
  size_t addresses_ = 0;
};

}  // namespace prof
