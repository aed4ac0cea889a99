#pragma once
// The capture file: created on first use, appended to with whole writes,
// its size counted. Writer thread only, except bytes_written().
//
// The program may close, dup2 over or reuse the file's descriptor at any
// time (own_fd.h): each write first checks that the descriptor still names
// our file, and when it does not, opens the file again by its absolute path
// (the same file, by device and inode) and writes at our own offset, so
// that nothing of ours lands in the program's files and nothing is lost.
#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/own_fd.h"

namespace prof {

// After a gathered write of `written` bytes from pieces[first] on: the index
// of the first piece not all written, moved on past what was (FileSink::
// write's short writes, apart for their test).
size_t skip_written(iovec* pieces, size_t count, size_t first, size_t written);

class FileSink {
 public:
  explicit FileSink(std::string path) : path_(std::move(path)) {}
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  // Creates (truncates) the file. False, logged, when it cannot be.
  [[nodiscard]] bool create();
  // Appends all of `bytes`, retrying short writes. False, logged, on error.
  [[nodiscard]] bool write(std::string_view bytes) { return write(&bytes, 1); }
  // Appends `parts` one after another, in one gathered write (pwritev) when
  // it all goes at once: a chunk's lists without copying them together.
  [[nodiscard]] bool write(const std::string_view* parts, size_t count);

  // Another name, before the file is created (the run's claim decides it).
  void set_path(std::string path) { path_ = std::move(path); }
  // Closes the file (if any) and names the next one: the first create()
  // after this makes it. Windowed recording writes one file per window.
  void close_and_rename(std::string path);

  // Closes the file after its last write (created() stays true): a
  // process at its descriptor limit (ulimit -n 5) needs it for the run's
  // bookkeeping.
  void close() { close_if_ours(file_); }

  const std::string& path() const { return path_; }
  bool created() const { return created_; }
  uint64_t bytes_written() const { return bytes_written_.load(std::memory_order_relaxed); }

 private:
  // The descriptor is ours again (reopened) or false, said why.
  [[nodiscard]] bool ensure_ours();

  std::string path_;
  std::string absolute_path_;  // for reopening after the program chdir()s
  OwnFd file_;
  bool created_ = false;
  dev_t device_ = 0;  // the file's, kept when the descriptor is lost
  ino_t inode_ = 0;
  std::atomic<uint64_t> bytes_written_{0};
};

}  // namespace prof
