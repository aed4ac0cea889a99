// The Python frame reader's per-thread cache of call sites: which entries a
// walk finds, which it drops, and when an entry from an earlier epoch of
// code object frees still holds. No Python here: code objects are
// addresses, and their frees are counted into python_code_frees.h's slots
// by hand, as the agent's tp_dealloc hook would.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>

#include "stacks/python_code_frees.h"
#include "stacks/python_site_cache.h"

namespace {

using prof::PythonFrame;
using prof::PythonSite;
using prof::PythonSiteCache;

constexpr size_t kSharedSet = 7;  // every site below hashes here unless said

// Looks a site up as the walk does: the set's first way, then the others.
const PythonSite* look_up(PythonSiteCache& cache, uint64_t walk_key, uintptr_t code, uint32_t site,
                          size_t hash = kSharedSet) {
  PythonSite* set = cache.set_of(hash);
  const uint64_t key = PythonSiteCache::key_of(walk_key, site);
  if (set->code == code && set->key == key) return set;
  return cache.find_after_first(set, code, key);
}

// Caches `code_id` for a site, as the walk does after reading it.
void fill(PythonSiteCache& cache, uint64_t walk_key, uintptr_t code, uint32_t site, uint32_t code_id,
          size_t hash = kSharedSet) {
  PythonSite* set = cache.set_of(hash);
  const uint64_t key = PythonSiteCache::key_of(walk_key, site);
  PythonSite& entry = cache.make_first(set, code, key);
  entry.code = code;
  entry.key = key;
  entry.frees = prof::python_code_frees_at(code);
  entry.frame = PythonFrame{code_id, static_cast<int32_t>(site)};
}

uint32_t code_id_at(PythonSiteCache& cache, uint64_t walk_key, uintptr_t code, uint32_t site) {
  const PythonSite* entry = look_up(cache, walk_key, code, site);
  return entry == nullptr ? 0 : entry->frame.code_id();
}

// A code object's free, counted as the hook counts it; returns the new total.
uint64_t count_free(uintptr_t code) {
  prof::g_python_code_frees[prof::python_code_free_slot(code)].fetch_add(1);
  return prof::g_python_code_frees_total.fetch_add(1) + 1;
}

// Code object addresses whose frees are counted in different slots.
constexpr uintptr_t kCodeA = 0x7f0000010000;
constexpr uintptr_t kCodeB = 0x7f0000010100;
constexpr uintptr_t kCodeC = 0x7f0000010200;
constexpr uintptr_t kCodeD = 0x7f0000010300;
constexpr uintptr_t kCodeE = 0x7f0000010400;

}  // namespace

TEST_CASE("four sites sharing a set are all kept; a fifth drops the one cached first") {
  static_assert(PythonSiteCache::kWays == 4);
  auto cache = std::make_unique<PythonSiteCache>();
  const uint64_t walk = cache->begin_walk(prof::python_code_frees_total());
  fill(*cache, walk, kCodeA, 10, 1);
  fill(*cache, walk, kCodeB, 10, 2);
  fill(*cache, walk, kCodeC, 10, 3);
  fill(*cache, walk, kCodeD, 10, 4);
  CHECK(code_id_at(*cache, walk, kCodeA, 10) == 1);
  CHECK(code_id_at(*cache, walk, kCodeB, 10) == 2);
  CHECK(code_id_at(*cache, walk, kCodeC, 10) == 3);
  CHECK(code_id_at(*cache, walk, kCodeD, 10) == 4);
  CHECK(code_id_at(*cache, walk, kCodeA, 12) == 0);  // another site of a cached code object

  fill(*cache, walk, kCodeE, 10, 5);
  CHECK(code_id_at(*cache, walk, kCodeA, 10) == 0);
  CHECK(code_id_at(*cache, walk, kCodeE, 10) == 5);
  CHECK(code_id_at(*cache, walk, kCodeB, 10) == 2);
  CHECK(code_id_at(*cache, walk, kCodeD, 10) == 4);
  // Another set is untouched by all this.
  CHECK(look_up(*cache, walk, kCodeB, 10, kSharedSet + 1) == nullptr);
}

TEST_CASE("after a code object's free, only the entries of its slot are read again") {
  REQUIRE(prof::python_code_free_slot(kCodeA) != prof::python_code_free_slot(kCodeB));
  auto cache = std::make_unique<PythonSiteCache>();
  const uint64_t before = cache->begin_walk(prof::python_code_frees_total());
  fill(*cache, before, kCodeA, 10, 1);
  fill(*cache, before, kCodeB, 10, 2);

  const uint64_t after = cache->begin_walk(count_free(kCodeA));
  CHECK(after != before);
  // A code object at A's address now may not be the one cached: not found.
  CHECK(code_id_at(*cache, after, kCodeA, 10) == 0);
  // B's slot counted no free: its entry holds, and holds in this epoch
  // from now on without its slot being read (the first way's compare).
  CHECK(code_id_at(*cache, after, kCodeB, 10) == 2);
  const PythonSite* b = look_up(*cache, after, kCodeB, 10);
  REQUIRE(b != nullptr);
  CHECK(b->key == PythonSiteCache::key_of(after, 10));

  // Walks with no free in between are one epoch.
  CHECK(cache->begin_walk(prof::python_code_frees_total()) == after);
}

TEST_CASE("a site read again after its code object's free replaces its old entry, not another") {
  auto cache = std::make_unique<PythonSiteCache>();
  const uint64_t before = cache->begin_walk(prof::python_code_frees_total());
  fill(*cache, before, kCodeA, 10, 1);
  fill(*cache, before, kCodeB, 10, 2);
  fill(*cache, before, kCodeC, 10, 3);
  fill(*cache, before, kCodeD, 10, 4);  // A in the last way

  const uint64_t after = cache->begin_walk(count_free(kCodeA));
  REQUIRE(code_id_at(*cache, after, kCodeA, 10) == 0);
  fill(*cache, after, kCodeA, 10, 9);  // the code object now at A's address
  CHECK(code_id_at(*cache, after, kCodeA, 10) == 9);
  CHECK(code_id_at(*cache, after, kCodeB, 10) == 2);
  CHECK(code_id_at(*cache, after, kCodeC, 10) == 3);
  CHECK(code_id_at(*cache, after, kCodeD, 10) == 4);
}

TEST_CASE("after the last epoch number every entry is emptied, none renewed") {
  // Totals of frees by hand: the cache only compares them. A new cache
  // starts a new epoch on its first walk (its last total seen is 0).
  auto cache = std::make_unique<PythonSiteCache>(UINT32_MAX - 1);
  const uint64_t last = cache->begin_walk(1000);
  REQUIRE(last == uint64_t{UINT32_MAX} << 32);
  fill(*cache, last, kCodeA, 10, 1);
  fill(*cache, last, kCodeB, 10, 2, kSharedSet + 1);
  REQUIRE(code_id_at(*cache, last, kCodeA, 10) == 1);

  // A free elsewhere: the epoch number wraps. An entry renewed from its
  // slot's count now could one day meet its old epoch number again.
  const uint64_t first = cache->begin_walk(1001);
  CHECK(first == uint64_t{1} << 32);
  CHECK(code_id_at(*cache, first, kCodeA, 10) == 0);
  CHECK(look_up(*cache, first, kCodeB, 10, kSharedSet + 1) == nullptr);
}
