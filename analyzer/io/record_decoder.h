#pragma once
// Reads a capture file chunk by chunk into plain records (io/records.h): the
// one place that parses the protobuf schema and undoes its compact fields
// (FORMAT.md), for the model's RunBuilder and for `dump` alike.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "io/read_error.h"
#include "io/records.h"

namespace prof::analyzer {

class RecordDecoder {
 public:
  enum class Next { kChunk, kEnd, kError };

  RecordDecoder();
  ~RecordDecoder();
  RecordDecoder(const RecordDecoder&) = delete;
  RecordDecoder& operator=(const RecordDecoder&) = delete;

  // Opens the file, checks the magic and reads the header. On false, error()
  // says why.
  [[nodiscard]] bool open(const std::string& path);

  // Reads and decodes the next chunk into `chunk`, which the caller reuses
  // from call to call. kEnd at the end of the file, also when the last chunk
  // was cut short: then truncated_tail() says so.
  [[nodiscard]] Next next(recorded::Chunk& chunk);

  const std::string& path() const;
  const recorded::FileHeader& header() const { return header_; }
  const ReadError& error() const;
  // Byte offset of the length prefix of the chunk next() returned last.
  uint64_t chunk_offset() const;
  // How many chunks next() has returned.
  uint64_t chunk_count() const;
  // Set when the file ends inside its last chunk.
  const std::optional<ReadError>& truncated_tail() const;

 private:
  // The reader and the parsed message it fills, reused between chunks.
  struct Wire;
  std::unique_ptr<Wire> wire_;
  recorded::FileHeader header_;
};

// libprotobuf logs its own line about a message that does not parse; the
// decoder reports it with the byte offset, so the line would only add noise.
void silence_protobuf_logging();

}  // namespace prof::analyzer
