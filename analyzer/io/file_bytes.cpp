#include "io/file_bytes.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace prof::analyzer {
namespace {
constexpr size_t kBufferBytes = 1 << 20;
}

FileBytes::~FileBytes() {
  if (fd_ >= 0) ::close(fd_);
}

FileBytes::FileBytes(FileBytes&& other) noexcept { *this = std::move(other); }

FileBytes& FileBytes::operator=(FileBytes&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    offset_ = other.offset_;
    buffer_ = std::move(other.buffer_);
    pos_ = other.pos_;
    len_ = other.len_;
    eof_ = other.eof_;
    read_error_ = std::move(other.read_error_);
  }
  return *this;
}

std::string FileBytes::open(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return std::strerror(errno);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return std::strerror(errno);
  // open() succeeds on a directory and read() fails later with EISDIR; say
  // it plainly up front.
  if (S_ISDIR(st.st_mode)) return "is a directory";
  buffer_.resize(kBufferBytes);
  return {};
}

bool FileBytes::fill() {
  if (eof_ || fd_ < 0) return false;
  pos_ = 0;
  len_ = 0;
  for (;;) {
    ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      read_error_ = std::strerror(errno);
      eof_ = true;
      return false;
    }
    if (got == 0) {
      eof_ = true;
      return false;
    }
    len_ = static_cast<size_t>(got);
    return true;
  }
}

bool FileBytes::read_byte(uint8_t& byte) {
  if (pos_ == len_ && !fill()) return false;
  byte = static_cast<uint8_t>(buffer_[pos_++]);
  ++offset_;
  return true;
}

size_t FileBytes::read(size_t n, std::string& out) {
  size_t done = 0;
  while (done < n) {
    if (pos_ == len_ && !fill()) break;
    size_t take = std::min(n - done, len_ - pos_);
    out.append(buffer_.data() + pos_, take);
    pos_ += take;
    done += take;
    offset_ += take;
  }
  return done;
}

}  // namespace prof::analyzer
