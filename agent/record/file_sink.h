#pragma once
// The capture file: created on first use, appended to with whole writes,
// its size counted. Writer thread only, except bytes_written().
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace prof {

class FileSink {
 public:
  explicit FileSink(std::string path) : path_(std::move(path)) {}
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  // Creates (truncates) the file. False, logged, when it cannot be.
  [[nodiscard]] bool create();
  // Appends all of `bytes`, retrying short writes. False, logged, on error.
  [[nodiscard]] bool write(std::string_view bytes);

  // Another name, before the file is created (the run's claim decides it).
  void set_path(std::string path) { path_ = std::move(path); }
  // Closes the file (if any) and names the next one: the first create()
  // after this makes it. Windowed recording writes one file per window.
  void close_and_rename(std::string path);

  const std::string& path() const { return path_; }
  bool created() const { return fd_ >= 0; }
  uint64_t bytes_written() const { return bytes_written_.load(std::memory_order_relaxed); }

 private:
  std::string path_;
  int fd_ = -1;
  std::atomic<uint64_t> bytes_written_{0};
};

}  // namespace prof
