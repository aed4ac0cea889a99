#include "stacks/python_site_cache.h"

#include <pthread.h>

#include <mutex>

namespace prof {
namespace {

// On the heap, reached through a pointer: the agent may be dlopened (through
// CUDA_INJECTION64_PATH), and a library with initial-exec TLS (the agent's
// other thread_locals, and this pointer: no __tls_get_addr call per walk)
// has its whole TLS block placed in the loader's small static surplus,
// which a 32 KiB cache would overflow (dlopen then fails).
[[gnu::tls_model("initial-exec")]] thread_local PythonSiteCache* t_cache = nullptr;
// Not in AgentState: a pthread key, whose destructor runs at thread exit.
pthread_key_t g_cache_key;
std::once_flag g_cache_key_once;

// Frees a thread's cache when it exits (a key destructor; a walk in a later
// destructor allocates a new one, which the next round frees).
void free_cache(void* cache) {
  delete static_cast<PythonSiteCache*>(cache);
  t_cache = nullptr;
}

[[gnu::noinline]] PythonSiteCache& new_thread_cache() {
  std::call_once(g_cache_key_once, [] { pthread_key_create(&g_cache_key, free_cache); });
  t_cache = new PythonSiteCache;
  pthread_setspecific(g_cache_key, t_cache);
  return *t_cache;
}

}  // namespace

PythonSiteCache& thread_site_cache() {
  if (t_cache != nullptr) [[likely]] return *t_cache;
  return new_thread_cache();
}

void PythonSiteCache::next_epoch(uint64_t frees_total) {
  seen_total_ = frees_total;
  if (++epoch_ != 0) return;
  // After 2^32 epochs an entry left from the first could match again:
  // empty them all and start over.
  for (auto& set : sets_) {
    for (PythonSite& entry : set) entry = PythonSite{};
  }
  epoch_ = 1;
}

PythonSite* PythonSiteCache::find_after_first(PythonSite* set, uintptr_t code, uint64_t key) {
  for (size_t way = 1; way < kWays; ++way) {
    if (set[way].code == code && set[way].key == key) return &set[way];
  }
  const auto site = static_cast<uint32_t>(key);
  for (size_t way = 0; way < kWays; ++way) {
    PythonSite& entry = set[way];
    if (entry.code != code || static_cast<uint32_t>(entry.key) != site || (entry.key >> 32) == 0) continue;
    // Filled in an earlier epoch (make_first keeps one entry per site): it
    // holds if no code object at an address of its slot was freed since.
    if (entry.frees != python_code_frees_at(code)) return nullptr;
    entry.key = key;
    return &entry;
  }
  return nullptr;
}

PythonSite& PythonSiteCache::make_first(PythonSite* set, uintptr_t code, uint64_t key) {
  size_t last = kWays - 1;  // the way whose entry is dropped
  const auto site = static_cast<uint32_t>(key);
  for (size_t way = 0; way < kWays; ++way) {
    if (set[way].code == code && static_cast<uint32_t>(set[way].key) == site) {
      last = way;  // the same site's entry, whose code object was freed
      break;
    }
  }
  for (size_t way = last; way > 0; --way) set[way] = set[way - 1];
  return set[0];
}

}  // namespace prof
