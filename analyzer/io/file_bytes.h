#pragma once
// Buffered sequential reads from a file descriptor, with the byte offset
// always known (every error message names it). Reads never allocate more
// than the bytes actually present, so a corrupt length cannot make us
// allocate 256 MiB for a 1 KiB file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace prof::analyzer {

class FileBytes {
 public:
  FileBytes() = default;
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  FileBytes(FileBytes&& other) noexcept;
  FileBytes& operator=(FileBytes&& other) noexcept;

  // Empty string on success, else why the file cannot be read.
  [[nodiscard]] std::string open(const std::string& path);

  // Appends up to n bytes to out; returns how many were appended (fewer only
  // at end of file or on a read error, see read_error()).
  size_t read(size_t n, std::string& out);
  // False at end of file (or on a read error).
  bool read_byte(uint8_t& byte);

  uint64_t offset() const { return offset_; }
  const std::string& read_error() const { return read_error_; }

 private:
  bool fill();

  int fd_ = -1;
  uint64_t offset_ = 0;  // of the next byte handed out
  std::vector<char> buffer_;
  size_t pos_ = 0;
  size_t len_ = 0;
  bool eof_ = false;
  std::string read_error_;
};

}  // namespace prof::analyzer
