#include "common/own_fd.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace prof {
namespace {

// Programs that recycle descriptors do it from 3 up to a bound of their
// own (64, 256, 1024: the select() limit); the agent's sit above 1024 where
// the limit allows, else in the top quarter of what it allows.
int lowest_high_number() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1100;
  const rlim_t allowed = limit.rlim_cur;
  if (allowed > 2048) return 1100;
  if (allowed < 16) return -1;  // ulimit -n 5: no room to move; keep the number we have
  return static_cast<int>(allowed - allowed / 4);
}

// What `fd` names, noted; {-1} when it cannot be examined.
OwnFd noted(int fd) {
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return {};
  OwnFd own;
  own.fd = fd;
  own.device = st.st_dev;
  own.inode = st.st_ino;
  return own;
}

}  // namespace

OwnFd keep_out_of_the_way(int fd) {
  OwnFd own;
  if (fd < 0) return own;
  const int lowest = lowest_high_number();
  if (lowest > fd) {
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, lowest);
    if (high >= 0) {
      ::close(fd);
      fd = high;
    }
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return noted(fd);
}

OwnFd keep_copy_out_of_the_way(int fd, int lowest_allowed) {
  // One dup, straight to the high number: a copy at `lowest_allowed` moved
  // on by keep_out_of_the_way grew the descriptor table twice (64 to 128
  // entries, then to 2,048) and took 3 more system calls, in every process
  // that starts a run (issue #30, start-up).
  const int lowest = lowest_high_number();
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, lowest > lowest_allowed ? lowest : lowest_allowed);
  // Every high number taken: the lowest number the caller allows, as
  // keep_out_of_the_way keeps a descriptor it cannot move.
  if (copy < 0 && lowest > lowest_allowed) copy = fcntl(fd, F_DUPFD_CLOEXEC, lowest_allowed);
  return noted(copy);
}

bool still_ours(const OwnFd& own) {
  if (own.fd < 0) return false;
  struct stat st {};
  return fstat(own.fd, &st) == 0 && st.st_dev == own.device && st.st_ino == own.inode;
}

void close_if_ours(OwnFd& own) {
  if (still_ours(own)) ::close(own.fd);
  own = OwnFd{};
}

}  // namespace prof
