#include "record/file_sink.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

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

size_t skip_written(iovec* pieces, size_t count, size_t first, size_t written) {
  while (first < count && written >= pieces[first].iov_len) written -= pieces[first++].iov_len;
  if (written != 0) {  // a short write, inside pieces[first]
    pieces[first].iov_base = static_cast<char*>(pieces[first].iov_base) + written;
    pieces[first].iov_len -= written;
  }
  return first;
}

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

bool FileSink::write(const std::string_view* parts, size_t count) {
  if (!ensure_ours()) return false;
  std::vector<iovec> pieces;
  pieces.reserve(count);
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    if (parts[i].empty()) continue;
    pieces.push_back({const_cast<char*>(parts[i].data()), parts[i].size()});
    total += parts[i].size();
  }
  // At our own offset: a reopened descriptor starts at 0.
  uint64_t offset = bytes_written_.load(std::memory_order_relaxed);
  size_t first = 0;  // the first piece not yet all written
  while (first < pieces.size()) {
    const int at_once = static_cast<int>(std::min<size_t>(pieces.size() - first, IOV_MAX));
    const ssize_t n = ::pwritev(file_.fd, pieces.data() + first, at_once, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      log_error("writing %s failed: %s; recording stops here", path_.c_str(), strerror(errno));
      return false;
    }
    if (n == 0) {  // no progress, and none to expect: not a loop for ever
      log_error("writing %s wrote nothing; recording stops here", path_.c_str());
      return false;
    }
    offset += static_cast<uint64_t>(n);
    first = skip_written(pieces.data(), pieces.size(), first, static_cast<size_t>(n));
  }
  bytes_written_.fetch_add(total, std::memory_order_relaxed);
  return true;
}

}  // namespace prof
