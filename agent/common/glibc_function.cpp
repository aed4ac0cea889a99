#include "common/glibc_function.h"

#include <elf.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstring>

namespace prof {
namespace {

struct DynamicTables {
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const uint32_t* gnu_hash = nullptr;
  const uint32_t* sysv_hash = nullptr;
  const ElfW(Half)* versions = nullptr;
};

struct Library {
  ElfW(Addr) base = 0;
  DynamicTables tables;
  bool found = false;
};

// Searched in this order: since 2.34 libc holds them all; before, the
// names the agent asks for live in one of the other two.
constexpr const char* kLibraries[] = {"libc.so.6", "libpthread.so.0", "libdl.so.2"};
constexpr int kLibraryCount = 3;

// By the file name the loader opened, which for these is their soname
// (the name DT_NEEDED gives and ld.so.cache resolves; libc-2.17.so is
// reached as libc.so.6). Reading each object's DT_SONAME instead cost
// 2,100 instructions more per process.
int library_index(const char* path) {
  if (path == nullptr) return -1;
  const char* slash = strrchr(path, '/');
  const char* file = slash != nullptr ? slash + 1 : path;
  for (int i = 0; i < kLibraryCount; ++i) {
    if (strcmp(file, kLibraries[i]) == 0) return i;
  }
  return -1;
}

// The loader relocates the dynamic section's addresses in place on x86-64;
// a table that reads as an offset is one the loader left unrelocated.
template <typename Table>
const Table* table_at(ElfW(Addr) value, ElfW(Addr) base) {
  return reinterpret_cast<const Table*>(value < base ? value + base : value);
}

int find_libraries(dl_phdr_info* info, size_t, void* data) {
  const int index = library_index(info->dlpi_name);
  if (index < 0) return 0;
  Library* search = static_cast<Library*>(data) + index;
  if (search->found) return 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
    const auto* entry = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    DynamicTables& tables = search->tables;
    const ElfW(Addr) base = info->dlpi_addr;
    for (; entry->d_tag != DT_NULL; ++entry) {
      const ElfW(Addr) value = entry->d_un.d_ptr;
      if (entry->d_tag == DT_SYMTAB) tables.symbols = table_at<ElfW(Sym)>(value, base);
      if (entry->d_tag == DT_STRTAB) tables.names = table_at<char>(value, base);
      if (entry->d_tag == DT_GNU_HASH) tables.gnu_hash = table_at<uint32_t>(value, base);
      if (entry->d_tag == DT_HASH) tables.sysv_hash = table_at<uint32_t>(value, base);
      if (entry->d_tag == DT_VERSYM) tables.versions = table_at<ElfW(Half)>(value, base);
    }
    search->base = base;
    search->found = tables.symbols != nullptr && tables.names != nullptr &&
                    (tables.gnu_hash != nullptr || tables.sysv_hash != nullptr);
    return 0;
  }
  return 0;
}

// A defined function under its default version (not a hidden old one).
bool defines(const DynamicTables& tables, uint32_t index, const char* name) {
  const ElfW(Sym)& symbol = tables.symbols[index];
  if (symbol.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(symbol.st_info) != STT_FUNC) return false;
  if (tables.versions != nullptr && (tables.versions[index] & 0x8000) != 0) return false;
  return strcmp(tables.names + symbol.st_name, name) == 0;
}

uint32_t gnu_hash_of(const char* name) {
  uint32_t hash = 5381;
  for (const unsigned char* c = reinterpret_cast<const unsigned char*>(name); *c != 0; ++c) hash = hash * 33 + *c;
  return hash;
}

uint32_t sysv_hash_of(const char* name) {
  uint32_t hash = 0;
  for (const unsigned char* c = reinterpret_cast<const unsigned char*>(name); *c != 0; ++c) {
    hash = (hash << 4) + *c;
    const uint32_t high = hash & 0xf0000000u;
    if (high != 0) hash ^= high >> 24;
    hash &= ~high;
  }
  return hash;
}

// DT_GNU_HASH: buckets, bloom words ahead of them, then a chain per bucket
// whose entries hold the hash with the low bit marking the chain's end.
const ElfW(Sym)* gnu_lookup(const DynamicTables& tables, const char* name) {
  const uint32_t* header = tables.gnu_hash;
  const uint32_t bucket_count = header[0];
  const uint32_t first_hashed = header[1];
  const uint32_t bloom_words = header[2];
  if (bucket_count == 0) return nullptr;
  const auto* buckets = reinterpret_cast<const uint32_t*>(reinterpret_cast<const ElfW(Addr)*>(header + 4) + bloom_words);
  const uint32_t* chains = buckets + bucket_count;
  const uint32_t hash = gnu_hash_of(name);
  uint32_t index = buckets[hash % bucket_count];
  if (index < first_hashed) return nullptr;
  for (;; ++index) {
    const uint32_t chained = chains[index - first_hashed];
    if ((chained | 1) == (hash | 1) && defines(tables, index, name)) return &tables.symbols[index];
    if (chained & 1) return nullptr;
  }
}

// DT_HASH: nbucket, nchain, buckets, chains of symbol indices.
const ElfW(Sym)* sysv_lookup(const DynamicTables& tables, const char* name) {
  const uint32_t* header = tables.sysv_hash;
  const uint32_t bucket_count = header[0];
  if (bucket_count == 0) return nullptr;
  const uint32_t* buckets = header + 2;
  const uint32_t* chains = buckets + bucket_count;
  for (uint32_t index = buckets[sysv_hash_of(name) % bucket_count]; index != STN_UNDEF; index = chains[index]) {
    if (defines(tables, index, name)) return &tables.symbols[index];
  }
  return nullptr;
}

void* function_in(const Library& library, const char* name) {
  if (!library.found) return nullptr;
  const DynamicTables& tables = library.tables;
  const ElfW(Sym)* symbol = tables.gnu_hash != nullptr ? gnu_lookup(tables, name) : sysv_lookup(tables, name);
  return symbol != nullptr ? reinterpret_cast<void*>(library.base + symbol->st_value) : nullptr;
}

// libc.so.6's tables, kept by the first search that found them (libc is
// never unloaded): since glibc 2.34 it answers every name the agent asks
// for without another walk of the loaded objects (dl_iterate_phdr, ~1,800
// instructions, 3 times in each process's start-up).
enum class Kept : int { no, being_kept, yes };
std::atomic<Kept> g_libc_kept{Kept::no};
Library g_libc;

}  // namespace

void* glibc_function(const char* name) {
  if (g_libc_kept.load(std::memory_order_acquire) == Kept::yes) {
    if (void* found = function_in(g_libc, name)) return found;
  }
  Library libraries[kLibraryCount];
  dl_iterate_phdr(find_libraries, libraries);
  Kept no = Kept::no;
  if (libraries[0].found && g_libc_kept.compare_exchange_strong(no, Kept::being_kept, std::memory_order_relaxed)) {
    g_libc = libraries[0];
    g_libc_kept.store(Kept::yes, std::memory_order_release);
  }
  for (const Library& library : libraries) {
    if (void* found = function_in(library, name)) return found;
  }
  return nullptr;
}

}  // namespace prof
