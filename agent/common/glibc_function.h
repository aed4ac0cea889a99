#pragma once
// glibc's own definition of a function, found without the loader's help:
// read from the dynamic symbol tables of libc.so.6 and, where the process
// loaded them, libpthread.so.0 and libdl.so.2 (as the loader reads them:
// the GNU or SysV hash table, the default version of the name).
//
// libprof.so names neither libpthread.so.0 nor libdl.so.2 as needed (empty
// since glibc 2.34, loading them cost every process +0.08 ms), and imports
// nothing that an older glibc keeps only there: such an import would bind
// to a version the loader checks against the file the link named (libc.so.6
// here), which lacks it before 2.34 ("relocation error", weak or not:
// glibc's dl-lookup.c). So those functions (glibc_2_17_symbols.cpp) and, in
// a process without libdl, libc's definitions of what the agent interposes
// (sigaction, exit, the exec family: dlsym(RTLD_NEXT) lives in libdl) are
// looked up here.

#include <dlfcn.h>

#include <atomic>

namespace prof {

// Null when none of the three is loaded with a function of that name
// (an IFUNC, such as strlen, counts as none: none of the functions asked
// for is one).
// Looks again on each call: cache the answer.
void* glibc_function(const char* name);

// The definition after libprof.so's of a libc function the agent
// interposes (dlsym(RTLD_NEXT)), or libc's own where there is no libdl (an
// old glibc; the agent is dormant there); looked up once into `cache`.
// No function-local static: its guard (__cxa_guard_*) is intercepted by
// sanitizer runtimes, which call sigaction() during their own start-up.
template <typename Function>
Function next_libc_definition(std::atomic<Function>& cache, const char* name) {
  Function function = cache.load(std::memory_order_acquire);
  if (function == nullptr) {
    function = reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
    if (function == nullptr) function = reinterpret_cast<Function>(glibc_function(name));
    cache.store(function, std::memory_order_release);
  }
  return function;
}

}  // namespace prof
