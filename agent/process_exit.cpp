#include "process_exit.h"

#include <sys/syscall.h>
#include <unistd.h>

// glibc's own _exit, without a dlsym: exit_group is all it does (and what
// it retries until the process is gone).
[[noreturn]] static void exit_now(int status) {
  for (;;) syscall(SYS_exit_group, status);
}

extern "C" [[gnu::visibility("default")]] [[noreturn]] void _exit(int status) {
  prof::finish_before_exit();
  exit_now(status);
}

extern "C" [[gnu::visibility("default")]] [[noreturn]] void _Exit(int status) {
  prof::finish_before_exit();
  exit_now(status);
}
