#include "io/record_decoder.h"

namespace prof::analyzer {

RecordDecoder::Next RecordDecoder::next(recorded::Chunk& chunk) {
  std::string_view payload;
  switch (reader_.next(payload)) {
    case CaptureReader::Next::kError: return Next::kError;
    case CaptureReader::Next::kEnd: return Next::kEnd;
    case CaptureReader::Next::kChunk: break;
  }
  if (!decode(payload, chunk)) {
    reader_.fail_chunk();
    return Next::kError;
  }
  return Next::kChunk;
}

}  // namespace prof::analyzer
