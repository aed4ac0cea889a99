#pragma once
// Reads a capture file chunk by chunk (framing in proto/FORMAT.md): magic,
// varint-length Header, then varint-length Chunks to end of file. Only one
// chunk is in memory at a time, so files far larger than memory stream
// through. It hands out each chunk's bytes; RecordDecoder decodes them.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "io/file_bytes.h"
#include "io/read_error.h"
#include "io/records.h"

namespace prof::analyzer {

class CaptureReader {
 public:
  static constexpr char kMagic[8] = {'\x89', 'P', 'R', 'O', 'F', '\r', '\n', '\x1a'};
  static constexpr uint32_t kFormatMajor = 2;
  // The newest minor version of format 2 this reader knows (FORMAT.md,
  // Versions): a newer one is read, with a warning that what it adds is skipped.
  static constexpr uint32_t kKnownFormatMinor = 4;
  // FORMAT.md: the agent never writes a chunk this large, so a longer length
  // means the length itself is garbage.
  static constexpr uint64_t kMaxChunkBytes = 256ull << 20;
  // A Header is a few dozen bytes; anything this large is not a header.
  static constexpr uint64_t kMaxHeaderBytes = 1ull << 20;

  enum class Next { kChunk, kEnd, kError };

  // Opens the file, checks the magic and reads the header. On false, error()
  // says why.
  [[nodiscard]] bool open(const std::string& path);

  // Reads the next chunk's bytes; `payload` stays valid until the next call.
  // kEnd at the end of the file, also when the last chunk was cut short: then
  // truncated_tail() says so.
  [[nodiscard]] Next next(std::string_view& payload);
  // The same, the chunk's bytes swapped into `payload` (whose old buffer
  // the reader reuses): for a chunk decoded on another thread.
  [[nodiscard]] Next take(std::string& payload);
  // Reports that the chunk next() returned last does not parse.
  void fail_chunk();

  const std::string& path() const { return path_; }
  const recorded::Header& header() const { return header_; }
  const ReadError& error() const { return error_; }
  // Byte offset of the length prefix of the chunk next() returned last.
  uint64_t chunk_offset() const { return chunk_offset_; }
  // How many chunks next() has returned.
  uint64_t chunk_count() const { return chunk_count_; }
  // Set when the file ends inside its last chunk (the process was killed
  // while writing): "byte X: last chunk truncated (N of M bytes); using the K
  // chunks before it".
  const std::optional<ReadError>& truncated_tail() const { return truncated_tail_; }

 private:
  enum class VarintStatus { kOk, kEof, kCutShort, kMalformed };
  VarintStatus read_varint(uint64_t& value);
  bool fail(uint64_t offset, std::string message);

  std::string path_;
  FileBytes bytes_;
  recorded::Header header_;
  ReadError error_;
  std::optional<ReadError> truncated_tail_;
  std::string payload_;  // reused between chunks
  uint64_t chunk_offset_ = 0;
  uint64_t chunk_count_ = 0;
};

}  // namespace prof::analyzer
