#include "io/capture_reader.h"

#include <cstring>

namespace prof::analyzer {

bool CaptureReader::fail(uint64_t offset, std::string message) {
  error_ = ReadError{path_, offset, std::move(message)};
  return false;
}

CaptureReader::VarintStatus CaptureReader::read_varint(uint64_t& value) {
  value = 0;
  // A uint64 varint has at most 10 bytes; the 10th may only carry one bit.
  for (int i = 0; i < 10; ++i) {
    uint8_t byte = 0;
    if (!bytes_.read_byte(byte)) return i == 0 ? VarintStatus::kEof : VarintStatus::kCutShort;
    if (i == 9 && byte > 1) return VarintStatus::kMalformed;
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) return VarintStatus::kOk;
  }
  return VarintStatus::kMalformed;
}

bool CaptureReader::open(const std::string& path) {
  path_ = path;
  if (std::string why = bytes_.open(path); !why.empty()) {
    fail(0, "cannot read: " + why);
    error_.has_offset = false;
    return false;
  }

  std::string magic;
  size_t got = bytes_.read(sizeof kMagic, magic);
  if (!bytes_.read_error().empty()) return fail(bytes_.offset(), "cannot read: " + bytes_.read_error());
  if (got == 0) return fail(0, "empty file (not a libprof capture)");
  if (std::memcmp(magic.data(), kMagic, got) != 0)
    return fail(0, "not a libprof capture (wrong magic bytes)");
  if (got < sizeof kMagic)
    return fail(0, "file too short for the magic bytes (" + std::to_string(got) + " of 8 bytes)");

  const uint64_t header_offset = bytes_.offset();
  uint64_t length = 0;
  switch (read_varint(length)) {
    case VarintStatus::kOk: break;
    case VarintStatus::kEof:
    case VarintStatus::kCutShort: return fail(header_offset, "header truncated (no complete length)");
    case VarintStatus::kMalformed: return fail(header_offset, "header length is not a valid varint");
  }
  if (length > kMaxHeaderBytes)
    return fail(header_offset, "header length " + std::to_string(length) + " is implausible (corrupt)");
  std::string header_bytes;
  got = bytes_.read(length, header_bytes);
  if (got < length)
    return fail(header_offset, "header truncated (" + std::to_string(got) + " of " +
                                  std::to_string(length) + " bytes)");
  if (!decode(header_bytes, header_)) return fail(header_offset, "header does not parse (corrupt)");
  if (header_.format_major != kFormatMajor)
    return fail(header_offset, "unknown format version " + std::to_string(header_.format_major) + "." +
                                  std::to_string(header_.format_minor) + " (this profanalyze reads " +
                                  std::to_string(kFormatMajor) + ".x)");
  return true;
}

CaptureReader::Next CaptureReader::next(std::string_view& payload) {
  chunk_offset_ = bytes_.offset();
  const std::string using_before = "; using the " + std::to_string(chunk_count_) + " chunks before it";
  uint64_t length = 0;
  switch (read_varint(length)) {
    case VarintStatus::kOk: break;
    case VarintStatus::kEof:
      if (!bytes_.read_error().empty()) {
        fail(chunk_offset_, "cannot read: " + bytes_.read_error());
        return Next::kError;
      }
      return Next::kEnd;
    case VarintStatus::kCutShort:
      // A killed writer can stop inside the length prefix too.
      truncated_tail_ = ReadError{path_, chunk_offset_, "last chunk truncated (inside its length)" + using_before};
      return Next::kEnd;
    case VarintStatus::kMalformed:
      fail(chunk_offset_, "chunk length is not a valid varint (corrupt)");
      return Next::kError;
  }
  if (length == 0) {
    // The agent writes a chunk only when it has records, so a zero length is
    // not a chunk: typically zero bytes appended or preallocated, which
    // would otherwise read as one empty chunk per byte, slowly.
    fail(chunk_offset_, "a chunk of length 0 (the agent never writes one: zero bytes in the file?) (corrupt)");
    return Next::kError;
  }
  if (length > kMaxChunkBytes) {
    fail(chunk_offset_, "chunk length " + std::to_string(length) + " exceeds 256 MiB (corrupt)");
    return Next::kError;
  }
  payload_.clear();
  const size_t got = bytes_.read(length, payload_);
  if (got < length) {
    if (!bytes_.read_error().empty()) {
      fail(bytes_.offset(), "cannot read: " + bytes_.read_error());
      return Next::kError;
    }
    truncated_tail_ = ReadError{path_, chunk_offset_,
                               "last chunk truncated (" + std::to_string(got) + " of " +
                                   std::to_string(length) + " bytes)" + using_before};
    return Next::kEnd;
  }
  payload = payload_;
  ++chunk_count_;
  return Next::kChunk;
}

CaptureReader::Next CaptureReader::take(std::string& payload) {
  std::string_view view;
  const Next next_chunk = next(view);
  if (next_chunk == Next::kChunk) payload.swap(payload_);
  return next_chunk;
}

void CaptureReader::fail_chunk() {
  --chunk_count_;  // it was not read after all
  fail(chunk_offset_, "chunk " + std::to_string(chunk_count_) + " (" + std::to_string(payload_.size()) +
                          " bytes) does not parse (corrupt)");
}

}  // namespace prof::analyzer
