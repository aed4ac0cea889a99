// Preloaded ahead of libprof.so by a test: the agent's writer thread
// (named libprof-writer) sleeps 150 ms before each poll, so it falls behind
// the program's steps as on a loaded machine, deterministically.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
int poll(struct pollfd* fds, nfds_t n, int timeout) {
  static int (*real)(struct pollfd*, nfds_t, int);
  // POSIX's way to a function pointer from dlsym (ISO C has no cast for it).
  if (!real) *(void**)&real = dlsym(RTLD_NEXT, "poll");
  char name[16] = {0};
  pthread_getname_np(pthread_self(), name, sizeof name);
  if (strcmp(name, "libprof-writer") == 0) usleep(150000);
  return real(fds, n, timeout);
}
