// glibc_function reads glibc's symbol tables itself (libprof.so imports
// nothing an old glibc keeps in libpthread or libdl): its answers must be
// the loader's.
#include <catch2/catch.hpp>

#include <dlfcn.h>

#include "common/glibc_function.h"

namespace {

// libc's own definitions, as the loader finds them in libc's scope: the
// sanitizer runtimes interpose some (RTLD_DEFAULT would find theirs).
void* libc() {
  static void* handle = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  return handle;
}

}  // namespace

TEST_CASE("glibc_function finds what the agent wraps and interposes where the loader does") {
  REQUIRE(libc() != nullptr);
  for (const char* name :
       {"exit", "sigaction", "signal", "execve", "execvpe", "execv", "execvp", "execl", "execlp", "execle", "fexecve",
        "pthread_create", "pthread_join", "pthread_detach", "pthread_once", "pthread_key_create",
        "__pthread_key_create", "pthread_setspecific", "pthread_mutex_trylock", "pthread_setname_np",
        "pthread_sigmask", "pthread_rwlock_init", "pthread_rwlock_destroy", "pthread_rwlock_rdlock",
        "pthread_rwlock_wrlock", "pthread_rwlock_unlock", "dlopen", "dlclose", "dlerror", "dlvsym", "dladdr",
        "dladdr1"}) {
    INFO(name);
    void* expected = dlsym(libc(), name);
    REQUIRE(expected != nullptr);
    CHECK(prof::glibc_function(name) == expected);
  }
}

TEST_CASE("glibc_function takes a function's default version, not an old one") {
  // glibc keeps pthread_cond_wait@GLIBC_2.2.5 (hidden) beside the default.
  REQUIRE(libc() != nullptr);
  void* expected = dlsym(libc(), "pthread_cond_wait");
  void* old = dlvsym(libc(), "pthread_cond_wait", "GLIBC_2.2.5");
  REQUIRE(expected != nullptr);
  REQUIRE(old != nullptr);
  REQUIRE(old != expected);
  CHECK(prof::glibc_function("pthread_cond_wait") == expected);
}

TEST_CASE("glibc_function answers null for what glibc does not define as a plain function") {
  CHECK(prof::glibc_function("libprof_no_such_function") == nullptr);
  CHECK(prof::glibc_function("") == nullptr);
  CHECK(prof::glibc_function("environ") == nullptr);  // an object
  // An IFUNC, whose implementation its resolver picks: not one the agent needs.
  CHECK(prof::glibc_function("strlen") == nullptr);
}
