#pragma once
// The descriptors the agent keeps open for the life of a process (the
// capture file, the writer's eventfd, a copy of stderr) live among the
// program's, which may close every descriptor above 2 (closefrom,
// close_range), dup2 over a range of them, or simply reuse a number the
// agent holds once it is closed. The agent then must never write to a
// number that has become the program's file. So its descriptors sit at a
// high number with close-on-exec (out of the way of programs that recycle
// 3..N, and never inherited by a child), and before each use the agent
// checks by device and inode that the number still names the same open
// file; when it does not, the number is no longer the agent's and is left
// alone (not written, not closed).
#include <sys/types.h>

namespace prof {

struct OwnFd {
  int fd = -1;
  dev_t device = 0;
  ino_t inode = 0;
};

// Moves `fd` to a high number with close-on-exec (closing `fd`) and notes
// what it names. `fd` itself, noted, when no high number can be had (a low
// RLIMIT_NOFILE). {-1} when `fd` is negative or cannot be examined (closed).
OwnFd keep_out_of_the_way(int fd);

// A close-on-exec copy of `fd` (left open) at the number keep_out_of_the_way
// would move it to, never below `lowest_allowed`, noted; {-1} when no
// number from `lowest_allowed` up can be had (ulimit -n 5).
OwnFd keep_copy_out_of_the_way(int fd, int lowest_allowed);

// Whether `own.fd` still names the file it named when kept. Async-signal-safe
// (fstat).
bool still_ours(const OwnFd& own);

// Closes `own.fd` when it is still ours; leaves the number alone otherwise
// (it is the program's now). Resets `own`.
void close_if_ours(OwnFd& own);

}  // namespace prof
