#pragma once
// Per thread: where a Python frame is in its code (the code object's address
// and the instruction) -> the frame to record (code id and line), so that a
// call site seen before costs a few loads and compares, not a line table
// decode and a lock (python_frames.cpp fills it).
//
// An entry holds while its code object's slot has counted no further free
// (python_code_frees.h): a code object allocated where a freed one was never
// meets the freed one's names or lines. Checking that per frame would cost a
// load and a compare more; instead each thread numbers the changes it has
// seen of the process's total of frees (its epoch), and an entry carries the
// epoch it was last found to hold in. The same epoch: no code object was
// freed since, the entry holds. An older one: the entry is checked against
// its slot's count once, then holds again in this epoch.
//
// Four ways per set, the newest first: two call sites of one stack that hash
// to the same set do not evict each other on every walk (a direct-mapped
// table would decode both on every call).
#include <cstddef>
#include <cstdint>

#include "stacks/python_code_frees.h"
#include "stacks/python_frames.h"

namespace prof {

struct PythonSite {
  uintptr_t code = 0;
  // Low half: the site in the code (f_lasti up to 3.10; 3.11+ the
  // instruction's distance from the code object's start). High half: the
  // epoch the entry last held in; 0 (never a thread's epoch) when empty.
  uint64_t key = 0;
  uint64_t frees = 0;  // python_code_frees_at(code) when filled
  PythonFrame frame{0, -1};  // what to record (the entry bit set when every frame is one)
};
static_assert(sizeof(PythonSite) == 32, "a power of two: the set's address is a shift");

class PythonSiteCache {
 public:
  static constexpr size_t kWays = 4;
  static constexpr size_t kSets = 256;  // a power of two; 32 KiB per thread in all

  // `first_epoch`: 1, except in the test of what follows the last epoch.
  explicit PythonSiteCache(uint32_t first_epoch = 1) : epoch_(first_epoch) {}

  // Call once per walk, after the thread's frames are frozen (it is in a C
  // call), with python_code_frees_total(); returns the walk's key base (the
  // epoch in the high half), what key_of combines with a site.
  uint64_t begin_walk(uint64_t frees_total) {
    if (frees_total != seen_total_) [[unlikely]] next_epoch(frees_total);
    return static_cast<uint64_t>(epoch_) << 32;
  }
  static uint64_t key_of(uint64_t walk_key, uint32_t site) { return walk_key | site; }

  PythonSite* set_of(size_t hash) { return sets_[hash & (kSets - 1)]; }

  // The entry for (code, key) in `set`'s ways after the first (which the
  // caller looked at), or one that held in an earlier epoch and still does
  // (its key renewed); null when neither.
  PythonSite* find_after_first(PythonSite* set, uintptr_t code, uint64_t key);

  // The set's first way, after the others moved down one (the last one's
  // entry is dropped) and any entry for (code, same site) in an older epoch
  // was cleared: the caller fills it.
  PythonSite& make_first(PythonSite* set, uintptr_t code, uint64_t key);

 private:
  void next_epoch(uint64_t frees_total);

  PythonSite sets_[kSets][kWays];
  uint64_t seen_total_ = 0;  // python_code_frees_total() when epoch_ began
  uint32_t epoch_;  // never 0
};

// The calling thread's cache (allocated on its first walk, freed when it
// exits).
PythonSiteCache& thread_site_cache();

}  // namespace prof
