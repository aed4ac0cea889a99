#include "record/string_table.h"

namespace prof {

uint64_t StringTable::intern(std::string_view value, ChunkEncoder& chunk) {
  if (auto found = ids_.find(value); found != ids_.end()) return found->second;
  const uint64_t id = next_id_++;
  ids_.emplace(std::string(value), id);
  chunk.add_string(id, value);
  return id;
}

uint64_t StringTable::intern_static(const char* value, ChunkEncoder& chunk) {
  if (value == nullptr) return 0;
  if (auto found = static_ids_.find(value); found != static_ids_.end()) return found->second;
  const uint64_t id = intern(value, chunk);
  static_ids_.emplace(value, id);
  return id;
}

}  // namespace prof
