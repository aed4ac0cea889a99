#include "record/file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace prof {
namespace {

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

}  // namespace

FileSink::~FileSink() { close_if_ours(file_); }

void FileSink::close_and_rename(std::string path) {
  close_if_ours(file_);
  created_ = false;
  path_ = std::move(path);
  bytes_written_.store(0, std::memory_order_relaxed);
}

bool FileSink::create() {
  absolute_path_ = absolute(path_);
  const int fd = ::open(absolute_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    log_error("cannot create %s: %s; recording is off", path_.c_str(), strerror(errno));
    return false;
  }
  file_ = keep_out_of_the_way(fd);
  if (file_.fd < 0) {
    log_error("cannot create %s: its descriptor was closed at once; recording is off", path_.c_str());
    return false;
  }
  device_ = file_.device;
  inode_ = file_.inode;
  created_ = true;
  return true;
}

bool FileSink::ensure_ours() {
  if (still_ours(file_)) return true;
  // The program took the number (closed it, dup2()ed over it): it is the
  // program's now, and stays open as the program left it.
  file_ = OwnFd{};
  const int fd = ::open(absolute_path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    log_error("the program closed %s's descriptor and it cannot be opened again: %s; recording stops here",
              path_.c_str(), strerror(errno));
    return false;
  }
  OwnFd reopened = keep_out_of_the_way(fd);
  if (reopened.fd < 0 || reopened.device != device_ || reopened.inode != inode_) {
    if (reopened.fd >= 0) ::close(reopened.fd);
    log_error("the program closed %s's descriptor and the file was replaced; recording stops here",
              path_.c_str());
    return false;
  }
  log_debug("the program closed %s's descriptor; opened it again", path_.c_str());
  file_ = reopened;
  return true;
}

bool FileSink::write(std::string_view bytes) {
  if (!ensure_ours()) return false;
  const char* data = bytes.data();
  size_t left = bytes.size();
  // At our own offset: a reopened descriptor starts at 0.
  uint64_t offset = bytes_written_.load(std::memory_order_relaxed);
  while (left > 0) {
    ssize_t n = ::pwrite(file_.fd, data, left, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      log_error("writing %s failed: %s; recording stops here", path_.c_str(), strerror(errno));
      return false;
    }
    data += n;
    left -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  bytes_written_.fetch_add(bytes.size(), std::memory_order_relaxed);
  return true;
}

}  // namespace prof
