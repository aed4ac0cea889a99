#pragma once
// A minimal protobuf wire-format writer, so that the agent never links
// libprotobuf into the profiled process (see ARCHITECTURE.md). It writes
// proto3 semantics: fields equal to their default are omitted.
#include <cstdint>
#include <string>
#include <string_view>

namespace prof {

inline size_t varint_size(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

// Bytes is std::string (cold paths, tests) or ByteBuffer (the writer's lists).
template <typename Bytes>
class ProtoWriter {
 public:
  explicit ProtoWriter(Bytes& out) : out_(out) {}

  void add_uint(uint32_t field, uint64_t value) {
    if (value == 0) return;
    tag(field, kVarint);
    varint(value);
  }
  void add_int(uint32_t field, int64_t value) {  // int32/int64: two's complement
    if (value == 0) return;
    tag(field, kVarint);
    varint(static_cast<uint64_t>(value));
  }
  void add_sint(uint32_t field, int64_t value) {  // sint32/sint64: zigzag
    if (value == 0) return;
    tag(field, kVarint);
    varint((static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
  }
  void add_bool(uint32_t field, bool value) { add_uint(field, value ? 1 : 0); }
  void add_bytes(uint32_t field, std::string_view value) {
    if (!value.empty()) add_repeated_bytes(field, value);
  }
  // An element of a repeated string field: written even when empty, since an
  // empty element is still an element.
  void add_repeated_bytes(uint32_t field, std::string_view value) {
    tag(field, kLengthDelimited);
    varint(value.size());
    out_.append(value.data(), value.size());
  }
  // A packed repeated varint field.
  template <typename Range>
  void add_packed_uints(uint32_t field, const Range& values) {
    if (values.begin() == values.end()) return;
    add_message(field, [&](ProtoWriter<Bytes>& body) {
      for (uint64_t value : values) body.varint(value);
    });
  }

  // Writes a nested message. The body is written in place after a one-byte
  // length guess, and moved only in the rare case that it is 128 bytes or more;
  // no scratch buffer, no allocation for the common small record. Written even
  // when empty, since presence of a sub-message is meaningful.
  template <typename Fill>
  void add_message(uint32_t field, Fill&& fill) {
    tag(field, kLengthDelimited);
    const size_t length_at = out_.size();
    out_.push_back('\0');
    fill(*this);
    const size_t length = out_.size() - length_at - 1;
    patch_length(length_at, length);
  }

  void varint(uint64_t value) {
    if constexpr (requires { out_.tail(size_t{10}); }) {
      // The writer's hottest line: straight into the buffer's tail.
      char* at = out_.tail(10);
      char* const begin = at;
      while (value >= 0x80) {
        *at++ = static_cast<char>(value | 0x80);
        value >>= 7;
      }
      *at++ = static_cast<char>(value);
      out_.advance(static_cast<size_t>(at - begin));
      return;
    }
    // Most varints are one byte (tags, enums, small ids): skip the scratch
    // copy for them.
    if (value < 0x80) {
      out_.push_back(static_cast<char>(value));
      return;
    }
    char bytes[10];
    size_t n = 0;
    while (value >= 0x80) {
      bytes[n++] = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    bytes[n++] = static_cast<char>(value);
    out_.append(bytes, n);
  }

 private:
  static constexpr uint32_t kVarint = 0;
  static constexpr uint32_t kLengthDelimited = 2;

  void tag(uint32_t field, uint32_t wire_type) { varint((uint64_t{field} << 3) | wire_type); }

  void patch_length(size_t length_at, size_t length) {
    const size_t extra = varint_size(length) - 1;
    if (extra != 0) out_.insert(length_at + 1, extra, '\0');
    size_t at = length_at;
    uint64_t value = length;
    while (value >= 0x80) {
      out_[at++] = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    out_[at] = static_cast<char>(value);
  }

  Bytes& out_;
};

}  // namespace prof
