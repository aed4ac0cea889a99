#include "capture/hooks/real_symbols.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>

namespace prof {
namespace {

// Not in AgentState: the interposed dlsym is called by the loader, libc and
// sanitizer runtimes before the agent's constructor has run.
std::atomic<DlsymFn> g_real_dlsym{nullptr};

struct LibrarySearch {
  const char* part;
  const char* path;
};

// Whether the object `info` describes holds this code: the agent is known
// by its own address, never by its name (a CUDA library may well live under
// /opt/libprof/ or a checkout named libprof).
bool is_the_agent(const dl_phdr_info* info) {
  const auto own = reinterpret_cast<ElfW(Addr)>(&is_the_agent);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD) continue;
    const ElfW(Addr) begin = info->dlpi_addr + segment.p_vaddr;
    if (own >= begin && own < begin + segment.p_memsz) return true;
  }
  return false;
}

int find_library(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<LibrarySearch*>(data);
  if (info->dlpi_name != nullptr && strstr(info->dlpi_name, search->part) != nullptr &&
      !is_the_agent(info)) {
    search->path = info->dlpi_name;
    return 1;
  }
  return 0;
}

}  // namespace

DlsymFn real_dlsym() {
  DlsymFn real = g_real_dlsym.load(std::memory_order_acquire);
  if (real != nullptr) return real;
  // The versions glibc has given dlsym: 2.34 moved it into libc proper.
  for (const char* version : {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0"}) {
    real = reinterpret_cast<DlsymFn>(dlvsym(RTLD_NEXT, "dlsym", version));
    if (real != nullptr) break;
  }
  g_real_dlsym.store(real, std::memory_order_release);
  return real;
}

void* next_definition(const char* name, const char* library) {
  DlsymFn lookup = real_dlsym();
  if (lookup == nullptr) return nullptr;
  if (void* found = lookup(RTLD_NEXT, name)) return found;
  LibrarySearch search{library, nullptr};
  dl_iterate_phdr(find_library, &search);
  if (search.path == nullptr) return nullptr;
  void* handle = dlopen(search.path, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* found = lookup(handle, name);
  dlclose(handle);  // RTLD_NOLOAD took a reference
  return found;
}

}  // namespace prof
