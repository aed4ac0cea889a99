#include "record/file_sink.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/log.h"

namespace prof {

FileSink::~FileSink() {
  if (fd_ >= 0) ::close(fd_);
}

void FileSink::close_and_rename(std::string path) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  path_ = std::move(path);
  bytes_written_.store(0, std::memory_order_relaxed);
}

bool FileSink::create() {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    log_error("cannot create %s: %s; recording is off", path_.c_str(), strerror(errno));
    return false;
  }
  return true;
}

bool FileSink::write(std::string_view bytes) {
  const char* data = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(fd_, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      log_error("writing %s failed: %s; recording stops here", path_.c_str(), strerror(errno));
      return false;
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  bytes_written_.fetch_add(bytes.size(), std::memory_order_relaxed);
  return true;
}

}  // namespace prof
