#include "record/string_table.h"

#include <cstring>

#include "record/probe_table.h"

namespace prof {
namespace {

// The last 1 to 7 bytes of a short text as one word, with fixed-size loads
// only (a memcpy of a variable count is a libc call, more than the hash).
uint64_t short_tail(const char* p, size_t n) {
  if (n >= 4) {
    uint32_t first, last;
    memcpy(&first, p, 4);
    memcpy(&last, p + n - 4, 4);
    return (uint64_t{first} << 32) | last;
  }
  return (uint64_t{static_cast<uint8_t>(p[0])} << 16) |
         (uint64_t{static_cast<uint8_t>(p[n >> 1])} << 8) | static_cast<uint8_t>(p[n - 1]);
}

// Eight bytes per multiply, then a final mix so that the low bits (the slot)
// depend on every byte. Not for untrusted input; names come from the app.
// Inline into both intern() and prefetch().
[[gnu::always_inline]] inline uint64_t hash_text(std::string_view text) {
  const char* p = text.data();
  const size_t size = text.size();
  uint64_t h = 0x9E3779B97F4A7C15ull ^ size;
  uint64_t word;
  size_t n = size;
  while (n >= 8) {
    word = load_u64(p);
    h = (h ^ word) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  if (n != 0) {
    if (size >= 8) {
      word = load_u64(text.data() + size - 8);  // the last 8 bytes, overlapping
    } else {
      word = short_tail(p, n);
    }
    h = (h ^ word) * 0x94D049BB133111EBull;
  }
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 32);
}

uint64_t hash_address(const char* address) {
  const uint64_t h = reinterpret_cast<uintptr_t>(address) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

}  // namespace

void StringTable::prefetch(std::string_view value) const {
  __builtin_prefetch(&text_slots_[home_of(static_cast<uint32_t>(hash_text(value) >> 32))]);
}

uint64_t StringTable::intern(std::string_view value, ChunkEncoder& chunk) {
  const auto tag = static_cast<uint32_t>(hash_text(value) >> 32);
  const size_t mask = text_slots_.size() - 1;
  for (size_t i = home_of(tag);; i = (i + 1) & mask) {
    const TextSlot slot = text_slots_[i];
    if (slot.id == 0) return insert(value, tag, chunk);
    // Equal tags of different texts: 1 in 2^32 per slot compared.
    if (slot.tag == tag && text_of(slot.id) == value) return slot.id;
  }
}

void StringTable::grow_text_slots() {
  SlotTable old(text_slots_.size() * 2);
  old.swap(text_slots_);
  --tag_shift_;
  // In the old table's order, which is nearly the order of the tags: the
  // writes into the new table go forward through it too.
  for (const TextSlot& slot : old) {
    if (slot.id != 0) text_slots_[free_slot_from(text_slots_, home_of(slot.tag))] = slot;
  }
}

uint64_t StringTable::insert(std::string_view value, uint32_t tag, ChunkEncoder& chunk) {
  // At most half full, so that a miss ends at an empty slot soon; 2^32
  // slots at most (the tag's bits), far beyond any process's strings.
  if (2 * (entries_ + 1) > text_slots_.size() && tag_shift_ > 0) grow_text_slots();
  if ((entries_ & (kEntryBlock - 1)) == 0) {
    entry_blocks_.push_back(std::make_unique_for_overwrite<Entry[]>(kEntryBlock));
  }
  const std::string_view stored = store(value);
  entry_blocks_.back()[entries_ & (kEntryBlock - 1)] = {stored.data(), stored.size()};
  const auto id = static_cast<uint32_t>(++entries_);
  text_slots_[free_slot_from(text_slots_, home_of(tag))] = {tag, id};
  chunk.add_string(id, value);
  return id;
}

std::string_view StringTable::store(std::string_view value) {
  constexpr size_t kBlockBytes = 64u << 10;
  if (value.empty()) return {};
  char* at;
  if (value.size() > kBlockBytes / 4) {  // a long one in a block of its own
    blocks_.push_back(std::make_unique<char[]>(value.size()));
    at = blocks_.back().get();
  } else {
    if (value.size() > block_left_) {
      blocks_.push_back(std::make_unique<char[]>(kBlockBytes));
      block_ = blocks_.back().get();
      block_left_ = kBlockBytes;
    }
    at = block_ + (kBlockBytes - block_left_);
    block_left_ -= value.size();
  }
  memcpy(at, value.data(), value.size());
  return {at, value.size()};
}

uint64_t StringTable::intern_by_address_missed(const void* address, std::string_view value, ChunkEncoder& chunk) {
  const uint64_t id = intern(value, chunk);
  const std::string_view stored = text_of(static_cast<uint32_t>(id));
  if (stored.size() > UINT32_MAX) return id;  // not cached: its size would not fit the slot
  sized_cache_[cache_slot(address)] = {address, stored.data(), static_cast<uint32_t>(stored.size()),
                                       static_cast<uint32_t>(id)};
  return id;
}

uint64_t StringTable::intern_by_address_missed(const char* value, ChunkEncoder& chunk) {
  const uint64_t id = intern(value, chunk);
  const std::string_view stored = text_of(static_cast<uint32_t>(id));
  if (stored.size() > UINT32_MAX) return id;  // not cached: its size would not fit the slot
  terminated_cache_[cache_slot(value)] = {value, stored.data(), static_cast<uint32_t>(stored.size()),
                                          static_cast<uint32_t>(id)};
  return id;
}

uint64_t StringTable::intern_static(const char* value, ChunkEncoder& chunk) {
  if (value == nullptr) return 0;
  const size_t mask = address_slots_.size() - 1;
  for (size_t i = hash_address(value) & mask;; i = (i + 1) & mask) {
    const AddressSlot& slot = address_slots_[i];
    if (slot.id == 0) break;
    if (slot.address == value) return slot.id;
  }
  const uint64_t id = intern(value, chunk);
  reserve_one_more(address_slots_, addresses_, [](const AddressSlot& slot) { return hash_address(slot.address); });
  address_slots_[free_slot(address_slots_, hash_address(value))] = {value, id};
  ++addresses_;
  return id;
}

}  // namespace prof
