#pragma once
// The writer's lookup tables (strings by text and by address, stacks by
// return addresses) are open-addressed with linear probing: a power-of-two
// vector of slots, a slot whose id is 0 is empty, and at most half full so
// that a miss ends at an empty slot soon. These are the steps they share.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prof {

// The first empty slot from `home` on: where a new entry whose lookup
// starts at `home` goes.
template <typename Slot, typename Allocator>
size_t free_slot_from(const std::vector<Slot, Allocator>& slots, size_t home) {
  const size_t mask = slots.size() - 1;
  size_t i = home;
  while (slots[i].id != 0) i = (i + 1) & mask;
  return i;
}

// The empty slot where a new entry of `hash` goes, in a table placed by the
// hash's low bits.
template <typename Slot, typename Allocator>
size_t free_slot(const std::vector<Slot, Allocator>& slots, uint64_t hash) {
  return free_slot_from(slots, hash & (slots.size() - 1));
}

// Makes room for one more entry in a table that holds `entries`: doubles
// the slots when it would be more than half full.
template <typename Slot, typename Allocator, typename HashOf>
void reserve_one_more(std::vector<Slot, Allocator>& slots, size_t entries, HashOf&& hash_of) {
  if (2 * (entries + 1) <= slots.size()) return;
  std::vector<Slot, Allocator> old(slots.size() * 2);
  old.swap(slots);
  for (const Slot& slot : old) {
    if (slot.id != 0) slots[free_slot(slots, hash_of(slot))] = slot;
  }
}

}  // namespace prof
