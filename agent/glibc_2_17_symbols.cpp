// libprof.so loads into programs on any x86-64 Linux with glibc 2.17 or
// newer (manylinux2014: RHEL 7, Ubuntu 16.04 and later), although it is
// built against this machine's newer glibc. The linker binds each call to
// the newest version of a symbol (pthread_create@GLIBC_2.34 here), which an
// older glibc lacks, and the dynamic loader then refuses the whole library.
//
// So every glibc symbol that libprof.so, or the libstdc++ and libgcc linked
// into it, imports at a version newer than 2.17 is redirected here with
// `-Wl,--wrap=NAME` (agent/CMakeLists.txt, PROF_AGENT_WRAPPED_GLIBC_SYMBOLS):
// __wrap_NAME calls the same function under its oldest version, which
// every glibc since 2.2.5 still exports (glibc 2.34 moved the libpthread and
// libdl functions into libc and kept the old versions as aliases), or, for
// functions an old glibc does not have at all, does the job itself with a
// system call. test/install/check_agent_portability.sh fails the build's
// tests when a new import needs a line here.
//
// The functions are declared here with plain pointer types, under names of
// their own, so that they never meet <pthread.h>'s declarations.
#include <dlfcn.h>
#include <link.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>

extern "C" {

#define OLD_VERSION(local_name, symbol_at_version) __asm__(".symver " #local_name ", " symbol_at_version)

// libpthread's functions (in libc since 2.34), under their first versions.
typedef void* (*ThreadStart)(void*);
int prof_old_pthread_create(void*, const void*, ThreadStart, void*);
int prof_old_pthread_join(unsigned long, void**);
int prof_old_pthread_detach(unsigned long);
int prof_old_pthread_once(void*, void (*)(void));
int prof_old_pthread_key_create(void*, void (*)(void*));
int prof_old___pthread_key_create(void*, void (*)(void*));
int prof_old_pthread_setspecific(unsigned int, const void*);
int prof_old_pthread_mutex_trylock(void*);
int prof_old_pthread_setname_np(unsigned long, const char*);
int prof_old_pthread_sigmask(int, const void*, void*);
OLD_VERSION(prof_old_pthread_create, "pthread_create@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_join, "pthread_join@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_detach, "pthread_detach@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_once, "pthread_once@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_key_create, "pthread_key_create@GLIBC_2.2.5");
OLD_VERSION(prof_old___pthread_key_create, "__pthread_key_create@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_setspecific, "pthread_setspecific@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_mutex_trylock, "pthread_mutex_trylock@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_setname_np, "pthread_setname_np@GLIBC_2.12");
OLD_VERSION(prof_old_pthread_sigmask, "pthread_sigmask@GLIBC_2.2.5");

int __wrap_pthread_create(void* thread, const void* attributes, ThreadStart start, void* argument) {
  return prof_old_pthread_create(thread, attributes, start, argument);
}
int __wrap_pthread_join(unsigned long thread, void** result) { return prof_old_pthread_join(thread, result); }
int __wrap_pthread_detach(unsigned long thread) { return prof_old_pthread_detach(thread); }
int __wrap_pthread_once(void* once, void (*run)(void)) { return prof_old_pthread_once(once, run); }
int __wrap_pthread_key_create(void* key, void (*destroy)(void*)) { return prof_old_pthread_key_create(key, destroy); }
// libgcc and libstdc++ call this one to learn whether threads are in use.
int __wrap___pthread_key_create(void* key, void (*destroy)(void*)) {
  return prof_old___pthread_key_create(key, destroy);
}
int __wrap_pthread_setspecific(unsigned int key, const void* value) {
  return prof_old_pthread_setspecific(key, value);
}
int __wrap_pthread_mutex_trylock(void* mutex) { return prof_old_pthread_mutex_trylock(mutex); }
int __wrap_pthread_setname_np(unsigned long thread, const char* name) {
  return prof_old_pthread_setname_np(thread, name);
}
int __wrap_pthread_sigmask(int how, const void* set, void* old_set) {
  return prof_old_pthread_sigmask(how, set, old_set);
}

// RE2's Mutex (third_party/re2, the step rule) is a reader-writer lock.
int prof_old_pthread_rwlock_init(void*, const void*);
int prof_old_pthread_rwlock_destroy(void*);
int prof_old_pthread_rwlock_rdlock(void*);
int prof_old_pthread_rwlock_wrlock(void*);
int prof_old_pthread_rwlock_unlock(void*);
OLD_VERSION(prof_old_pthread_rwlock_init, "pthread_rwlock_init@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_rwlock_destroy, "pthread_rwlock_destroy@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_rwlock_rdlock, "pthread_rwlock_rdlock@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_rwlock_wrlock, "pthread_rwlock_wrlock@GLIBC_2.2.5");
OLD_VERSION(prof_old_pthread_rwlock_unlock, "pthread_rwlock_unlock@GLIBC_2.2.5");
int __wrap_pthread_rwlock_init(void* lock, const void* attributes) {
  return prof_old_pthread_rwlock_init(lock, attributes);
}
int __wrap_pthread_rwlock_destroy(void* lock) { return prof_old_pthread_rwlock_destroy(lock); }
int __wrap_pthread_rwlock_rdlock(void* lock) { return prof_old_pthread_rwlock_rdlock(lock); }
int __wrap_pthread_rwlock_wrlock(void* lock) { return prof_old_pthread_rwlock_wrlock(lock); }
int __wrap_pthread_rwlock_unlock(void* lock) { return prof_old_pthread_rwlock_unlock(lock); }

// libdl's functions (in libc since 2.34).
void* prof_old_dlopen(const char*, int);
int prof_old_dlclose(void*);
char* prof_old_dlerror(void);
void* prof_old_dlvsym(void*, const char*, const char*);
int prof_old_dladdr(const void*, void*);
int prof_old_dladdr1(const void*, void*, void**, int);
OLD_VERSION(prof_old_dlopen, "dlopen@GLIBC_2.2.5");
OLD_VERSION(prof_old_dlclose, "dlclose@GLIBC_2.2.5");
OLD_VERSION(prof_old_dlerror, "dlerror@GLIBC_2.2.5");
OLD_VERSION(prof_old_dlvsym, "dlvsym@GLIBC_2.2.5");
OLD_VERSION(prof_old_dladdr, "dladdr@GLIBC_2.2.5");
OLD_VERSION(prof_old_dladdr1, "dladdr1@GLIBC_2.3.3");

// dlopen and dlvsym(RTLD_NEXT, ...) look at their caller's object: that is
// still libprof.so when the call goes through these wrappers.
void* __wrap_dlopen(const char* file, int mode) { return prof_old_dlopen(file, mode); }
int __wrap_dlclose(void* handle) { return prof_old_dlclose(handle); }
char* __wrap_dlerror(void) { return prof_old_dlerror(); }
void* __wrap_dlvsym(void* handle, const char* name, const char* version) {
  return prof_old_dlvsym(handle, name, version);
}
int __wrap_dladdr(const void* address, void* info) { return prof_old_dladdr(address, info); }
int __wrap_dladdr1(const void* address, void* info, void** extra, int flags) {
  return prof_old_dladdr1(address, info, extra, flags);
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
  if (prof_old_dladdr1(address, &ignored, &link_map, RTLD_DL_LINKMAP) != 0) found->link_map = link_map;
  return 0;
}

}  // extern "C"
