#pragma once
// The protobuf wire format, read in place: what the generated decoder
// (io/records_decode.cpp, from proto/gen_reader_schema.py) reads each
// message with. It knows no schema; its rules are libprotobuf's, so that a
// chunk this reader refuses is one libprotobuf refuses too (FORMAT.md).
#include <cstdint>
#include <string>
#include <string_view>

namespace prof::analyzer {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLength = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

inline int32_t unzigzag32(uint32_t v) { return static_cast<int32_t>((v >> 1) ^ (~(v & 1) + 1)); }
inline int64_t unzigzag64(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

// Strict UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF):
// what protobuf requires of a `string` field.
bool valid_utf8(std::string_view text);

class WireReader {
 public:
  // `depth`: how many messages enclose this one; protobuf refuses more than
  // 100, and so do we (a corrupt file must not exhaust the stack).
  static constexpr int kMaxDepth = 100;

  WireReader(std::string_view bytes, int depth)
      : at_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(at_ + bytes.size()), depth_(depth) {}

  bool done() const { return at_ == end_; }
  int depth() const { return depth_; }
  bool nested_ok() const { return depth_ <= kMaxDepth; }

  // Up to 10 bytes; bits past 64 are dropped, as protobuf does. Always
  // inline, as bytes(): GCC left both out of line once varint() read two
  // bytes itself, a call for every field (callgrind: 962 -> 865 M
  // instructions for `info` of the 1M-event capture).
  [[gnu::always_inline]] bool varint(uint64_t& value) {
    if (at_ != end_ && *at_ < 0x80) {
      value = *at_++;
      return true;
    }
    // Two bytes inline: at each field's site its length mostly repeats
    // (a callback id of 2 bytes, a time delta of 3), so this predicts well.
    if (end_ - at_ >= 2 && at_[1] < 0x80) {
      value = (at_[0] & 0x7fu) | (static_cast<uint64_t>(at_[1]) << 7);
      at_ += 2;
      return true;
    }
    return varint_slow(value);
  }

  // Whether the next byte is `byte` (a one-byte tag), taken if so.
  bool take_byte(uint8_t byte) {
    if (at_ != end_ && *at_ == byte) {
      ++at_;
      return true;
    }
    return false;
  }

  bool tag(uint32_t& field, WireType& type) {
    uint64_t tag = 0;
    if (!varint(tag) || tag > UINT32_MAX) return false;
    field = static_cast<uint32_t>(tag >> 3);
    const auto wire = static_cast<uint32_t>(tag & 7);
    if (field == 0 || wire > 5) return false;
    type = static_cast<WireType>(wire);
    return true;
  }

  // A length-delimited field's bytes, in place.
  [[gnu::always_inline]] bool bytes(std::string_view& out) {
    uint64_t length = 0;
    if (!varint(length) || length > static_cast<uint64_t>(end_ - at_)) return false;
    out = std::string_view(reinterpret_cast<const char*>(at_), length);
    at_ += length;
    return true;
  }

  // Skips the field whose tag was just read. An end-group here has no
  // start-group: the message does not parse.
  bool skip(uint32_t field, WireType type);

 private:
  bool varint_slow(uint64_t& value);
  bool fixed(size_t n) {
    if (static_cast<size_t>(end_ - at_) < n) return false;
    at_ += n;
    return true;
  }

  const uint8_t* at_;
  const uint8_t* end_;
  int depth_;
};

// One map<string, bytes> entry (key 1, value 2; either may be absent).
bool read_map_entry(std::string_view entry, int depth, std::string& key, std::string& value);

}  // namespace prof::analyzer
