#include "views/trace_file.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace prof::analyzer {

bool TraceFile::is_gzip_path(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".gz"; }

TraceFile::~TraceFile() { (void)close(); }

bool TraceFile::open(const std::string& path) {
  path_ = path;
  failed_ = false;
  if (is_gzip_path(path)) {
    // Level 6: zlib's default; traces compress about 10x.
    gzip_ = gzopen(path.c_str(), "wb6");
    if (!gzip_) error_ = path + ": cannot create: " + std::strerror(errno);
    return gzip_ != nullptr;
  }
  plain_ = std::fopen(path.c_str(), "wb");
  if (!plain_) error_ = path + ": cannot create: " + std::strerror(errno);
  return plain_ != nullptr;
}

void TraceFile::write(std::string_view bytes) {
  if (failed_ || bytes.empty()) return;
  if (gzip_) {
    // gzwrite takes an unsigned length: write in pieces of at most 1 GiB.
    while (!bytes.empty()) {
      const size_t n = std::min<size_t>(bytes.size(), size_t{1} << 30);
      if (gzwrite(static_cast<gzFile>(gzip_), bytes.data(), static_cast<unsigned>(n)) != static_cast<int>(n)) {
        failed_ = true;
        error_ = path_ + ": write failed";
        return;
      }
      bytes.remove_prefix(n);
    }
  } else if (plain_) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), plain_) != bytes.size()) {
      failed_ = true;
      error_ = path_ + ": write failed: " + std::strerror(errno);
    }
  }
}

bool TraceFile::close() {
  if (gzip_) {
    if (gzclose(static_cast<gzFile>(gzip_)) != Z_OK && !failed_) {
      failed_ = true;
      error_ = path_ + ": write failed";
    }
    gzip_ = nullptr;
  }
  if (plain_) {
    if (std::fclose(plain_) != 0 && !failed_) {
      failed_ = true;
      error_ = path_ + ": write failed: " + std::strerror(errno);
    }
    plain_ = nullptr;
  }
  return !failed_;
}

}  // namespace prof::analyzer
