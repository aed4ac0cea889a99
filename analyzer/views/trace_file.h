#pragma once
// Where `trace` writes: a file, gzip-compressed (zlib) when its name ends in
// ".gz", or a stream (stdout).
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>

#include "views/chrome_trace.h"

namespace prof::analyzer {

class TraceFile final : public TraceSink {
 public:
  TraceFile() = default;
  ~TraceFile() override;
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;

  // False, with error() set, when the file cannot be created.
  [[nodiscard]] bool open(const std::string& path);
  void write(std::string_view bytes) override;
  // Flushes and closes; false, with error() set, when a write failed.
  [[nodiscard]] bool close();
  const std::string& error() const { return error_; }

  static bool is_gzip_path(std::string_view path);

 private:
  std::string path_;
  std::FILE* plain_ = nullptr;
  void* gzip_ = nullptr;  // gzFile, kept opaque so zlib.h stays in the .cpp
  bool failed_ = false;
  std::string error_;
};

// Writes into an std::ostream (stdout, tests).
class StreamTraceSink final : public TraceSink {
 public:
  explicit StreamTraceSink(std::ostream& out) : out_(out) {}
  void write(std::string_view bytes) override { out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); }

 private:
  std::ostream& out_;
};

}  // namespace prof::analyzer
