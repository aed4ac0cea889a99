#pragma once
// Reads a capture file chunk by chunk into plain records (io/records.h): the
// one place that reads the schema's wire format and undoes its compact
// fields (FORMAT.md), for the model's RunBuilder and for `dump` alike. The
// records and the code that fills them are generated from proto/prof.proto
// (proto/gen_reader_schema.py); each chunk's bytes are decoded once,
// straight into the records.
#include <cstdint>
#include <optional>
#include <string>

#include "io/capture_reader.h"
#include "io/read_error.h"
#include "io/records.h"

namespace prof::analyzer {

class RecordDecoder {
 public:
  enum class Next { kChunk, kEnd, kError };

  // Opens the file, checks the magic and reads the header. On false, error()
  // says why.
  [[nodiscard]] bool open(const std::string& path) { return reader_.open(path); }

  // Reads and decodes the next chunk into `chunk`, which the caller reuses
  // from call to call. kEnd at the end of the file, also when the last chunk
  // was cut short: then truncated_tail() says so.
  [[nodiscard]] Next next(recorded::Chunk& chunk);

  const std::string& path() const { return reader_.path(); }
  const recorded::Header& header() const { return reader_.header(); }
  const ReadError& error() const { return reader_.error(); }
  // Byte offset of the length prefix of the chunk next() returned last.
  uint64_t chunk_offset() const { return reader_.chunk_offset(); }
  // How many chunks next() has returned.
  uint64_t chunk_count() const { return reader_.chunk_count(); }
  // Set when the file ends inside its last chunk.
  const std::optional<ReadError>& truncated_tail() const { return reader_.truncated_tail(); }

 private:
  CaptureReader reader_;
};

}  // namespace prof::analyzer
