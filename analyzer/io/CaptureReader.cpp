#include "io/CaptureReader.h"

#include <cstring>

namespace prof::analyzer {

bool CaptureReader::fail(uint64_t offset, std::string message) {
  error_ = ReadError{path_, offset, std::move(message)};
  return false;
}

CaptureReader::VarintStatus CaptureReader::readVarint(uint64_t& value) {
  value = 0;
  // A uint64 varint has at most 10 bytes; the 10th may only carry one bit.
  for (int i = 0; i < 10; ++i) {
    uint8_t byte = 0;
    if (!bytes_.readByte(byte)) return i == 0 ? VarintStatus::kEof : VarintStatus::kCutShort;
    if (i == 9 && byte > 1) return VarintStatus::kMalformed;
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) return VarintStatus::kOk;
  }
  return VarintStatus::kMalformed;
}

bool CaptureReader::open(const std::string& path) {
  path_ = path;
  if (std::string why = bytes_.open(path); !why.empty()) return fail(0, "cannot read: " + why);

  std::string magic;
  size_t got = bytes_.read(sizeof kMagic, magic);
  if (!bytes_.readError().empty()) return fail(bytes_.offset(), "cannot read: " + bytes_.readError());
  if (got == 0) return fail(0, "empty file (not a libprof capture)");
  if (std::memcmp(magic.data(), kMagic, got) != 0)
    return fail(0, "not a libprof capture (wrong magic bytes)");
  if (got < sizeof kMagic)
    return fail(0, "file too short for the magic bytes (" + std::to_string(got) + " of 8 bytes)");

  const uint64_t headerOffset = bytes_.offset();
  uint64_t length = 0;
  switch (readVarint(length)) {
    case VarintStatus::kOk: break;
    case VarintStatus::kEof:
    case VarintStatus::kCutShort: return fail(headerOffset, "header truncated (no complete length)");
    case VarintStatus::kMalformed: return fail(headerOffset, "header length is not a valid varint");
  }
  if (length > kMaxHeaderBytes)
    return fail(headerOffset, "header length " + std::to_string(length) + " is implausible (corrupt)");
  std::string headerBytes;
  got = bytes_.read(length, headerBytes);
  if (got < length)
    return fail(headerOffset, "header truncated (" + std::to_string(got) + " of " +
                                  std::to_string(length) + " bytes)");
  if (!header_.ParseFromString(headerBytes)) return fail(headerOffset, "header does not parse (corrupt)");
  if (header_.format_major() != kFormatMajor)
    return fail(headerOffset, "unknown format version " + std::to_string(header_.format_major()) + "." +
                                  std::to_string(header_.format_minor()) + " (this profanalyze reads " +
                                  std::to_string(kFormatMajor) + ".x)");
  return true;
}

CaptureReader::Next CaptureReader::next(prof::proto::Chunk& chunk) {
  chunkOffset_ = bytes_.offset();
  const std::string usingBefore = "; using the " + std::to_string(chunkCount_) + " chunks before it";
  uint64_t length = 0;
  switch (readVarint(length)) {
    case VarintStatus::kOk: break;
    case VarintStatus::kEof:
      if (!bytes_.readError().empty()) {
        fail(chunkOffset_, "cannot read: " + bytes_.readError());
        return Next::kError;
      }
      return Next::kEnd;
    case VarintStatus::kCutShort:
      // A killed writer can stop inside the length prefix too.
      truncatedTail_ = ReadError{path_, chunkOffset_, "last chunk truncated (inside its length)" + usingBefore};
      return Next::kEnd;
    case VarintStatus::kMalformed:
      fail(chunkOffset_, "chunk length is not a valid varint (corrupt)");
      return Next::kError;
  }
  if (length > kMaxChunkBytes) {
    fail(chunkOffset_, "chunk length " + std::to_string(length) + " exceeds 256 MiB (corrupt)");
    return Next::kError;
  }
  payload_.clear();
  const size_t got = bytes_.read(length, payload_);
  if (got < length) {
    if (!bytes_.readError().empty()) {
      fail(bytes_.offset(), "cannot read: " + bytes_.readError());
      return Next::kError;
    }
    truncatedTail_ = ReadError{path_, chunkOffset_,
                               "last chunk truncated (" + std::to_string(got) + " of " +
                                   std::to_string(length) + " bytes)" + usingBefore};
    return Next::kEnd;
  }
  chunk.Clear();
  if (!chunk.ParseFromString(payload_)) {
    fail(chunkOffset_, "chunk " + std::to_string(chunkCount_) + " (" + std::to_string(length) +
                           " bytes) does not parse (corrupt)");
    return Next::kError;
  }
  ++chunkCount_;
  return Next::kChunk;
}

}  // namespace prof::analyzer
