// libprof.so loads into programs on any x86-64 Linux with glibc 2.17 or
// newer (manylinux2014: RHEL 7, Ubuntu 16.04 and later), although it is
// built against this machine's newer glibc. The linker binds each call to
// the newest version of a symbol (pthread_create@GLIBC_2.34 here), which an
// older glibc lacks, and the dynamic loader then refuses the whole library.
//
// So every glibc symbol that libprof.so, or the libstdc++ and libgcc linked
// into it, imports at a version newer than 2.17 is redirected here with
// `-Wl,--wrap=NAME` (agent/CMakeLists.txt, PROF_AGENT_WRAPPED_GLIBC_SYMBOLS):
// __wrap_NAME calls the same function, which every glibc since 2.2.5 has
// (glibc 2.34 moved the libpthread and libdl functions into libc under new
// versions), found as said below, or, for functions an old glibc does not
// have at all, does the job itself with a system call. test/install/check_agent_portability.sh fails the build's
// tests when a new import needs a line here.
//
// libprof.so does not name libpthread.so.0 and libdl.so.2 as needed (empty
// since glibc 2.34, loading them cost every process +0.08 ms, issue #30),
// and imports none of the functions a glibc before 2.34 keeps there: the
// wrappers below find them with glibc_function (common/glibc_function.h,
// which says why an import, even a weak one, would not do) where the
// process loaded them (every process that can use CUDA has: libcudart,
// libcuda and CPython link both). Where it has not, a wrapper answers as
// glibc's libc did without libpthread, and the agent stays dormant
// (glibc_threads_and_dl_loaded, agent.cpp); libstdc++'s and libgcc's own
// calls (pthread_once, __pthread_key_create) come regardless.
// test/install/check_agent_portability.sh checks that no such import is left.
//
// The functions are called through plain pointer types, so that they never
// meet <pthread.h>'s declarations.
#include "glibc_2_17_symbols.h"

#include "common/glibc_function.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <csignal>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include <atomic>

namespace {

// The function `name` of libc, libpthread or libdl, looked up at its first
// call (null again until the process has the library).
template <typename Function>
Function glibc(std::atomic<Function>& cache, const char* name) {
  Function function = cache.load(std::memory_order_relaxed);
  if (function == nullptr) {
    function = reinterpret_cast<Function>(prof::glibc_function(name));
    cache.store(function, std::memory_order_relaxed);
  }
  return function;
}

// Declares `real`, glibc's `name`, in a wrapper.
#define GLIBC_FUNCTION(name, type)                       \
  using Function = type;                                 \
  static constinit std::atomic<Function> found{nullptr}; \
  const Function real = glibc(found, #name)

}  // namespace

extern "C" {

// libpthread's functions (in libc since 2.34).
typedef void* (*ThreadStart)(void*);

int __wrap_pthread_create(void* thread, const void* attributes, ThreadStart start, void* argument) {
  GLIBC_FUNCTION(pthread_create, int (*)(void*, const void*, ThreadStart, void*));
  if (real == nullptr) return EAGAIN;
  return real(thread, attributes, start, argument);
}
// Without libpthread no thread was made here to join or detach.
int __wrap_pthread_join(unsigned long thread, void** result) {
  GLIBC_FUNCTION(pthread_join, int (*)(unsigned long, void**));
  if (real == nullptr) return ESRCH;
  return real(thread, result);
}
int __wrap_pthread_detach(unsigned long thread) {
  GLIBC_FUNCTION(pthread_detach, int (*)(unsigned long));
  if (real == nullptr) return ESRCH;
  return real(thread);
}
// Without libpthread the process has one thread (glibc's threads come from
// pthread_create): a once is a flag. Only the agent's own onces come here.
int __wrap_pthread_once(void* once, void (*run)(void)) {
  GLIBC_FUNCTION(pthread_once, int (*)(void*, void (*)(void)));
  if (real == nullptr) {
    int* state = static_cast<int*>(once);
    if (*state == 0) {
      *state = 2;
      run();
    }
    return 0;
  }
  return real(once, run);
}
int __wrap_pthread_key_create(void* key, void (*destroy)(void*)) {
  GLIBC_FUNCTION(pthread_key_create, int (*)(void*, void (*)(void*)));
  if (real == nullptr) return EAGAIN;
  return real(key, destroy);
}
// libgcc and libstdc++ call this one to learn whether threads are in use.
int __wrap___pthread_key_create(void* key, void (*destroy)(void*)) {
  GLIBC_FUNCTION(__pthread_key_create, int (*)(void*, void (*)(void*)));
  if (real == nullptr) return EAGAIN;
  return real(key, destroy);
}
// Without libpthread pthread_create above makes no thread to size.
int __wrap_pthread_attr_setstacksize(void* attributes, size_t bytes) {
  GLIBC_FUNCTION(pthread_attr_setstacksize, int (*)(void*, size_t));
  if (real == nullptr) return EINVAL;
  return real(attributes, bytes);
}
int __wrap_pthread_setspecific(unsigned int key, const void* value) {
  GLIBC_FUNCTION(pthread_setspecific, int (*)(unsigned int, const void*));
  if (real == nullptr) return EINVAL;
  return real(key, value);
}
// One thread: no lock is ever contended, as glibc's libc answered for
// pthread_mutex_lock without libpthread.
int __wrap_pthread_mutex_trylock(void* mutex) {
  GLIBC_FUNCTION(pthread_mutex_trylock, int (*)(void*));
  if (real == nullptr) return 0;
  return real(mutex);
}
int __wrap_pthread_setname_np(unsigned long thread, const char* name) {
  GLIBC_FUNCTION(pthread_setname_np, int (*)(unsigned long, const char*));
  if (real == nullptr) return ENOSYS;
  return real(thread, name);
}
int __wrap_pthread_sigmask(int how, const void* set, void* old_set) {
  GLIBC_FUNCTION(pthread_sigmask, int (*)(int, const void*, void*));
  if (real == nullptr) {
    return sigprocmask(how, static_cast<const sigset_t*>(set), static_cast<sigset_t*>(old_set)) == 0 ? 0 : errno;
  }
  return real(how, set, old_set);
}

// RE2's Mutex (third_party/re2, the step rule) is a reader-writer lock:
// uncontended with one thread.
int __wrap_pthread_rwlock_init(void* lock, const void* attributes) {
  GLIBC_FUNCTION(pthread_rwlock_init, int (*)(void*, const void*));
  if (real == nullptr) return 0;
  return real(lock, attributes);
}
int __wrap_pthread_rwlock_destroy(void* lock) {
  GLIBC_FUNCTION(pthread_rwlock_destroy, int (*)(void*));
  if (real == nullptr) return 0;
  return real(lock);
}
int __wrap_pthread_rwlock_rdlock(void* lock) {
  GLIBC_FUNCTION(pthread_rwlock_rdlock, int (*)(void*));
  if (real == nullptr) return 0;
  return real(lock);
}
int __wrap_pthread_rwlock_wrlock(void* lock) {
  GLIBC_FUNCTION(pthread_rwlock_wrlock, int (*)(void*));
  if (real == nullptr) return 0;
  return real(lock);
}
int __wrap_pthread_rwlock_unlock(void* lock) {
  GLIBC_FUNCTION(pthread_rwlock_unlock, int (*)(void*));
  if (real == nullptr) return 0;
  return real(lock);
}

// libdl's functions (in libc since 2.34). dlopen and dlvsym(RTLD_NEXT, ...)
// look at their caller's object: that is still libprof.so when the call
// goes through these wrappers.
void* __wrap_dlopen(const char* file, int mode) {
  GLIBC_FUNCTION(dlopen, void* (*)(const char*, int));
  if (real == nullptr) return nullptr;
  return real(file, mode);
}
int __wrap_dlclose(void* handle) {
  GLIBC_FUNCTION(dlclose, int (*)(void*));
  if (real == nullptr) return -1;
  return real(handle);
}
char* __wrap_dlerror(void) {
  static char absent[] = "libdl.so.2 is not loaded in this process";
  GLIBC_FUNCTION(dlerror, char* (*)(void));
  if (real == nullptr) return absent;
  return real();
}
void* __wrap_dlvsym(void* handle, const char* name, const char* version) {
  GLIBC_FUNCTION(dlvsym, void* (*)(void*, const char*, const char*));
  if (real == nullptr) return nullptr;
  return real(handle, name, version);
}
int __wrap_dladdr(const void* address, void* info) {
  GLIBC_FUNCTION(dladdr, int (*)(const void*, void*));
  if (real == nullptr) return 0;
  return real(address, info);
}
int __wrap_dladdr1(const void* address, void* info, void** extra, int flags) {
  GLIBC_FUNCTION(dladdr1, int (*)(const void*, void*, void**, int));
  if (real == nullptr) return 0;
  return real(address, info, extra, flags);
}

// stat and fstat were inline calls of __xstat/__fxstat before glibc 2.33;
// the kernel's struct stat is glibc's on x86-64.
int __wrap_stat(const char* path, void* status) { return static_cast<int>(syscall(SYS_stat, path, status)); }
int __wrap_fstat(int descriptor, void* status) { return static_cast<int>(syscall(SYS_fstat, descriptor, status)); }
int __wrap_fstat64(int descriptor, void* status) { return static_cast<int>(syscall(SYS_fstat, descriptor, status)); }
int __wrap_lstat(const char* path, void* status) { return static_cast<int>(syscall(SYS_lstat, path, status)); }

// libstdc++ reads this (glibc 2.32) to skip atomic operations in a process
// that has one thread; 0 always takes the atomic path, correct everywhere.
char __wrap___libc_single_threaded = 0;

// std::random_device's sources (glibc 2.25 and 2.36), from the kernel.
static int fill_random(void* buffer, size_t length) {
  unsigned char* cursor = static_cast<unsigned char*>(buffer);
  while (length > 0) {
    const long got = syscall(SYS_getrandom, cursor, length, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    cursor += got;
    length -= static_cast<size_t>(got);
  }
  return 0;
}
int __wrap_getentropy(void* buffer, size_t length) {
  if (length > 256) {
    errno = EIO;
    return -1;
  }
  return fill_random(buffer, length);
}
unsigned int __wrap_arc4random(void) {
  unsigned int value = 0;
  if (fill_random(&value, sizeof(value)) != 0) value = static_cast<unsigned int>(getpid()) * 2654435761u;
  return value;
}

// libgcc's unwinder finds a frame's unwind tables with _dl_find_object
// (glibc 2.35) when it was built against a glibc that has it. Older ones:
// the same answer from dl_iterate_phdr, which libgcc used before.
struct FoundObject {
  unsigned long long flags;
  void* map_start;
  void* map_end;
  void* link_map;
  void* eh_frame;
  unsigned long long reserved[7];
};
struct ObjectSearch {
  ElfW(Addr) address;
  struct FoundObject* found;
  int matched;
};

static int find_object_of_address(struct dl_phdr_info* info, size_t size, void* data) {
  static_cast<void>(size);
  ObjectSearch* search = static_cast<ObjectSearch*>(data);
  ElfW(Addr) start = static_cast<ElfW(Addr)>(-1);
  ElfW(Addr) end = 0;
  int contains = 0;
  void* eh_frame = nullptr;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* header = &info->dlpi_phdr[i];
    const ElfW(Addr) segment_start = info->dlpi_addr + header->p_vaddr;
    if (header->p_type == PT_LOAD) {
      if (segment_start < start) start = segment_start;
      if (segment_start + header->p_memsz > end) end = segment_start + header->p_memsz;
      if (search->address >= segment_start && search->address < segment_start + header->p_memsz) contains = 1;
    } else if (header->p_type == PT_GNU_EH_FRAME) {
      eh_frame = reinterpret_cast<void*>(segment_start);
    }
  }
  if (!contains) return 0;
  memset(search->found, 0, sizeof(*search->found));
  search->found->map_start = reinterpret_cast<void*>(start);
  search->found->map_end = reinterpret_cast<void*>(end);
  search->found->eh_frame = eh_frame;
  search->matched = 1;
  return 1;
}

int __wrap__dl_find_object(void* address, struct FoundObject* found) {
  ObjectSearch search = {reinterpret_cast<ElfW(Addr)>(address), found, 0};
  dl_iterate_phdr(find_object_of_address, &search);
  if (!search.matched) return -1;
  // The link map, which libgcc does not read, as glibc gives it.
  Dl_info ignored;
  void* link_map = nullptr;
  if (__wrap_dladdr1(address, &ignored, &link_map, RTLD_DL_LINKMAP) != 0) found->link_map = link_map;
  return 0;
}

}  // extern "C"

namespace prof {

// The agent's threads, its CUPTI and its lookups of the functions it
// interposes need both libraries' functions. Before glibc 2.34 a loaded
// libpthread.so.0 has all the agent's (pthread_setname_np since 2.12), and
// a loaded libdl.so.2 all of its: one of each stands for the rest.
bool glibc_threads_and_dl_loaded() {
  return glibc_function("pthread_create") != nullptr && glibc_function("dlvsym") != nullptr;
}

}  // namespace prof
