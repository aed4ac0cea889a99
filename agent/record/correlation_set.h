#pragma once
// A set of CUDA correlation ids, for the writer thread's WindowLaunches:
// every launch CUPTI will report is inserted as its call is drained and
// erased as its GPU record arrives, so the set takes one insert and one
// erase per launch. std::unordered_set paid a node's malloc and free for
// each, ~200 instructions per launch of the writer's (callgrind,
// tiny_kernels).
//
// CUPTI numbers calls as they begin, and a run of launches is inserted and
// erased mostly in that order, tens of thousands in flight at once (CUPTI
// hands its records over a 4 MiB buffer at a time). So the ids from the
// oldest one held on are bits of a sliding window: an insert or erase is a
// bit in a word next to the previous one's. A hash table scattered them
// over hundreds of KiB, a random slot per erase (perf: the writer's
// costliest function after its drain loop); one placed by the low bits
// kept them in order but made every erase shift a cluster of thousands.
//
// What falls outside the window goes to a flat hash set: an id below it (a
// call that began before those held, drained late), and ids whose records
// never come (CUPTI dropped them): when the window would span more than
// kMaxWindowIds, its oldest word moves into the hash set, so that one lost
// record holds no window open behind it.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace prof {

// The hash set for the ids outside the window: open addressing, linear
// probing, erase by backward shift (no tombstones).
class IdHashSet {
 public:
  // False when `id` was there already.
  bool insert(uint32_t id) {
    if (id == 0) {  // 0 marks an empty slot: kept aside
      const bool added = !has_zero_;
      has_zero_ = true;
      size_ += added ? 1 : 0;
      return added;
    }
    if (2 * (size_ + 1) > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = home_of(id);; i = (i + 1) & mask) {
      if (slots_[i] == id) return false;
      if (slots_[i] == 0) {
        slots_[i] = id;
        ++size_;
        return true;
      }
    }
  }

  // False when `id` was not there.
  bool erase(uint32_t id) {
    if (size_ == 0) return false;
    if (id == 0) {
      const bool had = has_zero_;
      has_zero_ = false;
      size_ -= had ? 1 : 0;
      return had;
    }
    const size_t mask = slots_.size() - 1;
    size_t i = home_of(id);
    while (slots_[i] != id) {
      if (slots_[i] == 0) return false;
      i = (i + 1) & mask;
    }
    --size_;
    // Backward shift: the ids after the hole that may move into it (their
    // home is not between the hole and them) move back, so that every id
    // stays reachable from its home with no empty slot on the way.
    for (;;) {
      size_t next = (i + 1) & mask;
      for (;; next = (next + 1) & mask) {
        if (slots_[next] == 0) {
          slots_[i] = 0;
          return true;
        }
        const size_t home = home_of(slots_[next]);
        if (((next - home) & mask) >= ((next - i) & mask)) break;
      }
      slots_[i] = slots_[next];
      i = next;
    }
  }

  bool contains(uint32_t id) const {
    if (id == 0) return has_zero_;
    if (size_ == 0) return false;
    const size_t mask = slots_.size() - 1;
    for (size_t i = home_of(id);; i = (i + 1) & mask) {
      if (slots_[i] == id) return true;
      if (slots_[i] == 0) return false;
    }
  }

  size_t size() const { return size_; }

  void clear() {
    if (size_ != 0) slots_.assign(slots_.size(), 0);
    has_zero_ = false;
    size_ = 0;
  }

 private:
  // Fibonacci hashing: clusters stay short whatever the ids' spacing.
  size_t home_of(uint32_t id) const { return static_cast<uint32_t>(id * 0x9E3779B9u) >> shift_; }

  void grow() {
    std::vector<uint32_t> old(slots_.size() * 2, 0);
    old.swap(slots_);
    --shift_;
    const size_t mask = slots_.size() - 1;
    for (uint32_t id : old) {
      if (id == 0) continue;
      size_t i = home_of(id);
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = id;
    }
  }

  std::vector<uint32_t> slots_ = std::vector<uint32_t>(16, 0);  // a power of two, at most half full
  int shift_ = 32 - 4;  // 32 - log2(slots_.size())
  size_t size_ = 0;     // ids held, 0 included
  bool has_zero_ = false;
};

class CorrelationSet {
 public:
  // The widest the window gets: 2^18 ids, 32 KiB of bits.
  static constexpr uint64_t kMaxWindowIds = uint64_t{1} << 18;

  // False when `id` was there already. Inline for an id in a word the
  // window holds (63 inserts of 64 in a run of launches), the rest out of
  // line: the writer makes one insert and one erase per launch.
  bool insert(uint32_t id) {
    const uint64_t index = (id >> 6) - first_word_;  // wraps, so >= words_held_, for a word below the window
    if (index >= words_held_) [[unlikely]] return insert_outside_held_words(id);
    uint64_t& bits = word_at(index);
    const uint64_t bit = uint64_t{1} << (id & 63);
    if ((bits & bit) != 0) return false;
    bits |= bit;
    ++in_window_;
    return true;
  }

  // False when `id` was not there.
  bool erase(uint32_t id) {
    const uint64_t index = (id >> 6) - first_word_;
    if (index >= words_held_) return outside_.size() != 0 && outside_.erase(id);
    uint64_t& bits = word_at(index);
    const uint64_t bit = uint64_t{1} << (id & 63);
    if ((bits & bit) == 0) return false;
    bits &= ~bit;
    --in_window_;
    // The window starts at its oldest id held: only an erase from its first
    // word can empty that word.
    if (index == 0 && bits == 0) pop_empty_first_words();
    return true;
  }

  bool contains(uint32_t id) const {
    const uint64_t word = id >> 6;
    if (words_held_ == 0 || word < first_word_ || word - first_word_ >= words_held_) return outside_.contains(id);
    return (word_at(word - first_word_) >> (id & 63) & 1) != 0;
  }

  size_t size() const { return in_window_ + outside_.size(); }
  bool empty() const { return size() == 0; }

  // Keeps the memory: a window's launches come back with the next one.
  void clear() {
    while (words_held_ != 0) {
      word_at(0) = 0;
      pop_first_word();
    }
    in_window_ = 0;
    outside_.clear();
    outside_below_ = 0;
  }

 private:
  // words_ is a ring of a power-of-two size; the window's words are
  // words_held_ of them from ring_start_, the first holding ids from
  // 64 * first_word_ on. The first word holds an id whenever the window
  // holds any (so that the window is no wider than its ids).
  uint64_t& word_at(uint64_t index) { return words_[(ring_start_ + index) & ring_mask_]; }
  const uint64_t& word_at(uint64_t index) const { return words_[(ring_start_ + index) & ring_mask_]; }

  // An id in no word the window holds: below it, above it, or the window empty.
  [[gnu::noinline]] bool insert_outside_held_words(uint32_t id) {
    const uint64_t word = id >> 6;
    if (words_held_ == 0) first_word_ = word > outside_below_ ? word : outside_below_;
    if (word < first_word_) {
      if (word + 1 > outside_below_) outside_below_ = word + 1;
      return outside_.insert(id);
    }
    while (words_held_ != 0 && word - first_word_ >= kMaxWindowIds / 64) evict_first_word();
    if (words_held_ == 0) first_word_ = word;  // at or above outside_below_: what was evicted lay below `word`
    while (word - first_word_ >= words_held_) push_word();
    uint64_t& bits = word_at(word - first_word_);
    const uint64_t bit = uint64_t{1} << (id & 63);
    if ((bits & bit) != 0) return false;
    bits |= bit;
    ++in_window_;
    return true;
  }
  // Once per 64 erases of a run of launches: out of line, so that an
  // erase's caller saves no registers for its loop.
  [[gnu::noinline]] void pop_empty_first_words() {
    while (words_held_ != 0 && word_at(0) == 0) pop_first_word();
  }

  void push_word() {
    if (words_held_ == words_.size()) {  // the ring is full: double it, in order
      std::vector<uint64_t> grown(words_.empty() ? kFirstWords : words_.size() * 2, 0);
      for (size_t i = 0; i < words_held_; ++i) grown[i] = word_at(i);
      words_.swap(grown);
      ring_start_ = 0;
      ring_mask_ = words_.size() - 1;
    }
    word_at(words_held_) = 0;
    ++words_held_;
  }
  void pop_first_word() {
    ring_start_ = (ring_start_ + 1) & ring_mask_;
    ++first_word_;
    --words_held_;
  }
  // The window's oldest word's ids move into the hash set.
  void evict_first_word() {
    outside_below_ = first_word_ + 1;
    uint64_t& bits = word_at(0);
    for (uint64_t left = bits; left != 0; left &= left - 1) {
      outside_.insert(static_cast<uint32_t>(first_word_ * 64 + static_cast<uint64_t>(__builtin_ctzll(left))));
      --in_window_;
    }
    bits = 0;
    pop_first_word();
    pop_empty_first_words();
  }

  // Made at the first insert: the writer holds four sets from the start,
  // and a process that never records (a shell under an exported
  // LD_PRELOAD) should not fill 2 KB of heap for them (issue #30).
  static constexpr size_t kFirstWords = 64;
  std::vector<uint64_t> words_;  // empty, or a power of two
  size_t ring_mask_ = 0;         // words_.size() - 1, once it has any
  size_t ring_start_ = 0;
  size_t words_held_ = 0;
  uint64_t first_word_ = 0;  // id / 64 of the window's first word
  size_t in_window_ = 0;     // ids held in the window
  // Every id in outside_ lies in a word below this, and this is at most
  // first_word_ while the window holds any: an id is in one place only,
  // found by its word.
  uint64_t outside_below_ = 0;
  IdHashSet outside_;
};

}  // namespace prof
