#pragma once
// Interning of strings for the file (FORMAT.md, "Interning"): the writer
// assigns each distinct string an id once and defines it in the chunk being
// encoded when it is first used.
//
// Every record with a name goes through here, so both tables are flat
// open-addressing arrays with an inline hash: std::unordered_map cost ~150
// instructions per lookup (libstdc++'s out-of-line _Hash_bytes, a node
// chase, a memcmp call), a third of the writer's work per kernel launch.
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "common/unaligned.h"
#include "encode/chunk_encoder.h"
#include "huge_page_allocator.h"

// Whether a sanitizer checks this build's reads: AddressSanitizer sees a
// read past a name's NUL as an overflow, ThreadSanitizer as a race with
// whatever another thread writes there (GCC says so with __SANITIZE_*__,
// clang with __has_feature).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PROF_STRING_TABLE_READS_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define PROF_STRING_TABLE_READS_CHECKED 1
#endif
#endif
#ifndef PROF_STRING_TABLE_READS_CHECKED
#define PROF_STRING_TABLE_READS_CHECKED 0
#endif

namespace prof {

class StringTable {
 public:
  // The id of `value`; a new string is defined in `chunk` as a side effect.
  uint64_t intern(std::string_view value, ChunkEncoder& chunk);

  // For strings that stay at one address with one text for the life of the
  // process (CUDA function names, NVTX domain names): keyed by address,
  // which avoids reading the text on every record.
  uint64_t intern_static(const char* value, ChunkEncoder& chunk);

  // For texts that come again and again from one address, a kernel's name
  // (CUDA keeps it in the loaded module): a small cache by address in front
  // of intern(), each hit checked against the text, so that a name whose
  // address was reused for another (a module unloaded) is still exact. A hit
  // costs a compare of the text, where intern() hashes it and compares it
  // (a launch's name was interned twice per launch: its call's and its
  // kernel's, ~100 instructions each). `value` is the text read from
  // `address`; the NUL-terminated form reads it there itself.
  // A hit is inline, with the text's place and size in the cache slot (the
  // writer calls these twice per launch: a call and its return were ~50
  // instructions of each ~75, callgrind), a miss out of line.
  uint64_t intern_by_address(const void* address, std::string_view value, ChunkEncoder& chunk) {
    const CachedAddress& cached = sized_cache_[cache_slot(address)];
    if (cached.address == address && cached.id != 0 && cached.size == value.size() &&
        same_text(cached.text, value.data(), value.size())) [[likely]] {
      return cached.id;
    }
    return intern_by_address_missed(address, value, chunk);
  }
  uint64_t intern_by_address(const char* value, ChunkEncoder& chunk) {
    const CachedAddress& cached = terminated_cache_[cache_slot(value)];
    if (cached.address == value && cached.id != 0 && same_terminated_text(value, cached.text, cached.size))
        [[likely]] {
      return cached.id;
    }
    return intern_by_address_missed(value, chunk);
  }

  size_t size() const { return entries_; }
  // The text of an id this table gave; it stays where it is for the
  // table's life.
  std::string_view text_of(uint64_t id) const {
    const Entry& entry = entry_blocks_[(id - 1) >> kEntryBlockShift][(id - 1) & (kEntryBlock - 1)];
    return {entry.text, entry.size};
  }

  // Whether `n` bytes at `a` and `b` are the same: a name's text (a kernel's,
  // tens of bytes) in a few word loads, inline; a memcmp call was ~20
  // instructions and its call ~10 more per launch (callgrind, tiny_kernels).
  // Loads of 8, 4 or 1 bytes, overlapping, never past the `n` bytes.
  [[gnu::always_inline]] static bool same_text(const char* a, const char* b, size_t n) {
    if (n > 32) return memcmp(a, b, n) == 0;
    if (n >= 16) {  // the first 16 bytes and the last 16, overlapping
      return ((load_u64(a) ^ load_u64(b)) | (load_u64(a + 8) ^ load_u64(b + 8)) |
              (load_u64(a + n - 16) ^ load_u64(b + n - 16)) | (load_u64(a + n - 8) ^ load_u64(b + n - 8))) == 0;
    }
    if (n >= 8) return ((load_u64(a) ^ load_u64(b)) | (load_u64(a + n - 8) ^ load_u64(b + n - 8))) == 0;
    if (n >= 4) return ((load_u32(a) ^ load_u32(b)) | (load_u32(a + n - 4) ^ load_u32(b + n - 4))) == 0;
    // 0 to 3 bytes: the first, the middle and the last cover them.
    return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
  }

  // Whether the NUL-terminated `value` is the `n` bytes at `text`, reading
  // no byte of `value` that may not be there: past its NUL, where a shorter
  // text than `n` bytes ends, only bytes of the page its first byte is on
  // (mapped, since that byte is), which is all it reads when its `n` bytes
  // and the NUL's place lie in that page; else strnlen first, which stops
  // at the NUL. Not strncmp: glibc's takes a slow path when either text lies
  // near the end of a page, which it tests on the two addresses ORed, so
  // that its cost moved with where the writer's heap put the cached text,
  // from run to run: 12 to 175 instructions per kernel (callgrind,
  // tiny_kernels). strnlen and the compare took ~38, its call out of line
  // included; the compare alone, within the page (most names), ~15.
  // Under a sanitizer that checks reads, strnlen always (see
  // PROF_STRING_TABLE_READS_CHECKED).
  [[gnu::always_inline]] static bool same_terminated_text(const char* value, const char* text, size_t n) {
#if !PROF_STRING_TABLE_READS_CHECKED
    constexpr uintptr_t kPageBytes = 4096;  // the smallest page of any Linux target
    if ((reinterpret_cast<uintptr_t>(value) & (kPageBytes - 1)) + n < kPageBytes) [[likely]] {
      return value[n] == '\0' && same_text(value, text, n);
    }
#endif
    return strnlen(value, n + 1) == n && same_text(value, text, n);
  }

  // Brings the slot where `value`'s lookup starts into the cache: the writer
  // calls it a few records ahead of intern(), so that the cache miss of a new
  // name (a random slot of a table of megabytes) overlaps the work on the
  // records before it instead of stalling each time.
  void prefetch(std::string_view value) const;
  // Whether prefetch() can gain anything: the slots no longer fit in the
  // cache (2 MiB, 128k strings and more).
  bool worth_prefetching() const { return text_slots_.size() >= (size_t{1} << 18); }

 private:
  // A string's id is its number in entries plus one. A slot holds the
  // hash's high 32 bits (the tag) and the id, 8 bytes: a million distinct
  // strings (NVTX names with a step number in them) probe a 16-32 MiB table
  // in huge pages rather than 128 MiB of 32-byte slots on small pages.
  //
  // A slot's place is the tag's top bits, not the hash's low bits: when the
  // table doubles, each slot moves to twice its place, computed from the slot
  // alone, so growing is one pass that reads the old table and writes the
  // new one in order. With the low bits it read each string's entry for its
  // hash, a random access per string: doubling a table of a million took
  // 80-150 ms, during which the app's ring filled.
  struct TextSlot {
    uint32_t tag;  // the hash's high 32 bits
    uint32_t id;   // 0: empty slot
  };
  struct AddressSlot {
    const char* address;
    uint64_t id;  // 0: empty slot
  };

  uint64_t insert(std::string_view value, uint32_t tag, ChunkEncoder& chunk);
  size_t home_of(uint32_t tag) const { return tag >> tag_shift_; }
  void grow_text_slots();
  std::string_view store(std::string_view value);

  // In mappings of their own, out of the app's malloc arenas.
  using SlotTable = std::vector<TextSlot, HugePageAllocator<TextSlot, OwnMappings>>;
  SlotTable text_slots_ = SlotTable(64);  // a power of two
  int tag_shift_ = 32 - 6;  // 32 - log2(text_slots_.size())
  // Each string's text, in blocks that never move: a vector of a million
  // entries that doubled copied 16 MiB at once (another stall of the
  // writer). Left uninitialized, so that a block's pages are touched only as
  // strings arrive.
  struct Entry {
    const char* text;  // into blocks_
    size_t size;
  };
  static constexpr int kEntryBlockShift = 16;
  static constexpr size_t kEntryBlock = size_t{1} << kEntryBlockShift;
  std::vector<std::unique_ptr<Entry[]>> entry_blocks_;
  size_t entries_ = 0;
  // The texts, packed in blocks that never move (a string_view stays valid).
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* block_ = nullptr;  // the block short texts go into
  size_t block_left_ = 0;
  std::vector<AddressSlot> address_slots_ = std::vector<AddressSlot>(64);
  size_t addresses_ = 0;
  // intern_by_address's caches, direct-mapped: one for texts with a length
  // (from a ring record), one for NUL-terminated texts, so that a cached
  // text is only ever compared the way it was read.
  // A slot holds its text's place and size (text_of(id)'s), so that a hit
  // reads no entry block.
  struct CachedAddress {
    const void* address = nullptr;
    const char* text = nullptr;  // in blocks_, which never move
    uint32_t size = 0;
    uint32_t id = 0;  // 0: empty
  };
  static constexpr int kAddressCacheBits = 8;
  using AddressCache = std::array<CachedAddress, size_t{1} << kAddressCacheBits>;
  static size_t cache_slot(const void* address) {
    return (reinterpret_cast<uintptr_t>(address) * 0x9E3779B97F4A7C15ull) >> (64 - kAddressCacheBits);
  }
  [[gnu::noinline]] uint64_t intern_by_address_missed(const void* address, std::string_view value,
                                                      ChunkEncoder& chunk);
  [[gnu::noinline]] uint64_t intern_by_address_missed(const char* value, ChunkEncoder& chunk);
  AddressCache sized_cache_{};
  AddressCache terminated_cache_{};
};

}  // namespace prof
