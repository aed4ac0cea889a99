#pragma once
// A minimal protobuf wire-format writer, so that the agent never links
// libprotobuf into the profiled process (see docs/ARCHITECTURE.md). It writes
// proto3 semantics: fields equal to their default are omitted.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "encode/byte_buffer.h"

namespace prof {

inline size_t varint_size(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

// Where a ProtoWriter puts its bytes: the primitives every field is made of.
template <typename Bytes>
class WireOut;

// std::string: cold paths (file preamble, tests), plain appends.
template <>
class WireOut<std::string> {
 public:
  explicit WireOut(std::string& out) : out_(out) {}
  void varint(uint64_t value) {
    char bytes[10];
    size_t n = 0;
    while (value >= 0x80) {
      bytes[n++] = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    bytes[n++] = static_cast<char>(value);
    out_.append(bytes, n);
  }
  void append(const char* bytes, size_t n) { out_.append(bytes, n); }
  void room(size_t) {}
  size_t size() const { return out_.size(); }
  void open_gap(size_t at, size_t n) { out_.insert(at, n, '\0'); }
  char* at(size_t offset) { return out_.data() + offset; }

 private:
  std::string& out_;
};

// ByteBuffer: the writer's hot path. The write position lives in this
// object (a local of the encoding function, in registers once inlined: its
// address never escapes, grow() takes values) and goes back to the buffer
// when the writer is done. Room is checked once per message and per
// variable-length field, not per varint: every check leaves kScalarRoom
// bytes free, enough for the scalar fields that follow it. callgrind, 20k
// launches: varint was 29.7M of the writer's 57.5M instructions as an
// out-of-line call that reloaded the buffer's size and capacity per byte.
template <>
class WireOut<ByteBuffer> {
 public:
  // The most bytes the scalar fields of one message (or between two
  // variable-length fields) take: 10-byte varints behind 2-byte tags, so 85
  // fields. The widest message (Kernel) has 19.
  static constexpr size_t kScalarRoom = 1024;

  explicit WireOut(ByteBuffer& out)
      : out_(out), base_(out.data()), at_(base_ + out.size()), limit_(base_ + out.capacity()) {
    room(0);
  }
  ~WireOut() { out_.resize(static_cast<size_t>(at_ - base_)); }
  WireOut(const WireOut&) = delete;
  WireOut& operator=(const WireOut&) = delete;

  // Unchecked: the last room() call left space for it.
  [[gnu::always_inline]] void varint(uint64_t value) {
    char* at = at_;
    // Ids, counts, tags and most deltas take one or two bytes: no loop.
    if (value < 0x80) {
      at[0] = static_cast<char>(value);
      at_ = at + 1;
      return;
    }
    if (value < 0x4000) {
      at[0] = static_cast<char>(value | 0x80);
      at[1] = static_cast<char>(value >> 7);
      at_ = at + 2;
      return;
    }
    while (value >= 0x80) {
      *at++ = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    *at++ = static_cast<char>(value);
    at_ = at;
  }
  void append(const char* bytes, size_t n) {
    room(n);
    if (n != 0) memcpy(at_, bytes, n);
    at_ += n;
  }
  [[gnu::always_inline]] void room(size_t n) {
    if (static_cast<size_t>(limit_ - at_) < n + kScalarRoom) [[unlikely]] {
      const size_t used = size();
      base_ = grow(out_, used, n + kScalarRoom);
      at_ = base_ + used;
      limit_ = base_ + out_.capacity();
    }
  }
  size_t size() const { return static_cast<size_t>(at_ - base_); }
  void open_gap(size_t at, size_t n) {
    room(n);
    memmove(base_ + at + n, base_ + at, size() - at);
    at_ += n;
  }
  char* at(size_t offset) { return base_ + offset; }

 private:
  [[gnu::noinline]] static char* grow(ByteBuffer& out, size_t used, size_t n) {
    out.resize(used);
    out.reserve(used + n);
    return out.data();
  }

  ByteBuffer& out_;
  char* base_;
  char* at_;
  char* limit_;
};

// Fields written through a plain `char*` that the caller keeps in a local
// and passes along (each function returns the position after what it
// wrote): the encoders of the writer's most frequent records (ChunkEncoder's
// API calls), which check room once per record. A local whose address is
// never taken stays in a register; WireOut's cursor is a member, and GCC
// stored it back to the stack after every varint (a char store may alias
// it): 2 of the ~10 instructions per field of the generated path. Same
// bytes as ProtoWriter (chunk_encoder_test compares them).
namespace wire {

inline constexpr uint32_t kVarint = 0;
inline constexpr uint32_t kLengthDelimited = 2;

[[gnu::always_inline]] inline char* varint(char* at, uint64_t value) {
  // Unrolled for the two- and three-byte values of times and durations
  // (deltas of microseconds): 5 instructions a byte instead of the loop's 7.
  if (value < 0x80) {
    at[0] = static_cast<char>(value);
    return at + 1;
  }
  at[0] = static_cast<char>(value | 0x80);
  value >>= 7;
  if (value < 0x80) {
    at[1] = static_cast<char>(value);
    return at + 2;
  }
  at[1] = static_cast<char>(value | 0x80);
  value >>= 7;
  if (value < 0x80) {
    at[2] = static_cast<char>(value);
    return at + 3;
  }
  at += 2;
  while (value >= 0x80) {
    *at++ = static_cast<char>(value | 0x80);
    value >>= 7;
  }
  *at++ = static_cast<char>(value);
  return at;
}

// A tag of one byte: fields 1 to 15.
template <uint32_t Field, uint32_t WireType>
inline constexpr char kTag = static_cast<char>((Field << 3) | WireType);

// A varint field; nothing for 0 (proto3). Tag and value in one store when
// the value takes one byte, as ids, counts and kinds mostly do (for a
// two-byte tag, fields 16 to 2047, a four-byte store of which three count:
// the caller's room covers the fourth, which the next field overwrites or
// which lies past the end).
template <uint32_t Field>
[[gnu::always_inline]] inline char* uint_field(char* at, uint64_t value) {
  static_assert(Field >= 1 && Field < 2048, "a tag of one or two bytes");
  if (value == 0) return at;
  constexpr uint32_t tag = Field << 3 | kVarint;
  if constexpr (Field < 16) {
    if (value < 0x80) {
      const auto two = static_cast<uint16_t>(tag | (value << 8));
      memcpy(at, &two, 2);
      return at + 2;
    }
    *at = static_cast<char>(tag);
    return varint(at + 1, value);
  } else {
    constexpr uint32_t tag_bytes = (tag & 0x7F) | 0x80 | (tag >> 7) << 8;
    if (value < 0x80) {
      const auto four = static_cast<uint32_t>(tag_bytes | (value << 16));
      memcpy(at, &four, 4);
      return at + 3;
    }
    const auto two = static_cast<uint16_t>(tag_bytes);
    memcpy(at, &two, 2);
    return varint(at + 2, value);
  }
}
template <uint32_t Field>  // int32/int64: two's complement, as ProtoWriter::add_int
[[gnu::always_inline]] inline char* int_field(char* at, int64_t value) {
  return uint_field<Field>(at, static_cast<uint64_t>(value));
}
template <uint32_t Field>  // sint32/sint64: zigzag
[[gnu::always_inline]] inline char* sint_field(char* at, int64_t value) {
  return uint_field<Field>(at, (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
}

// A nested message whose body is known to take fewer than 128 bytes: its
// tag and a one-byte length, then the body, written from the position
// begin_short_message() returns; end_short_message() sets the length.
template <uint32_t Field>
[[gnu::always_inline]] inline char* begin_short_message(char* at) {
  at[0] = kTag<Field, kLengthDelimited>;
  return at + 2;
}
[[gnu::always_inline]] inline void end_short_message(char* body, const char* end) {
  body[-1] = static_cast<char>(end - body);
}

}  // namespace wire

// Bytes is std::string (cold paths, tests) or ByteBuffer (the writer's
// lists). With a ByteBuffer, the bytes are in the buffer once the writer is
// destroyed: use one writer per buffer at a time.
template <typename Bytes>
class ProtoWriter {
 public:
  explicit ProtoWriter(Bytes& out) : out_(out) {}

  [[gnu::always_inline]] void add_uint(uint32_t field, uint64_t value) {
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
    out_.append(value.data(), value.size());  // and room for what follows
  }
  // A packed repeated varint field.
  template <typename Range>
  void add_packed_uints(uint32_t field, const Range& values) {
    if (values.begin() == values.end()) return;
    add_message(field, [&](ProtoWriter<Bytes>& body) {
      for (uint64_t value : values) {
        body.out_.room(0);
        body.varint(value);
      }
    });
  }

  // Writes a nested message. The body is written in place after a one-byte
  // length guess, and moved only in the rare case that it is 128 bytes or more;
  // no scratch buffer, no allocation for the common small record. Written even
  // when empty, since presence of a sub-message is meaningful.
  template <typename Fill>
  void add_message(uint32_t field, Fill&& fill) {
    out_.room(0);
    tag(field, kLengthDelimited);
    const size_t length_at = out_.size();
    out_.append("", 1);
    fill(*this);
    const size_t length = out_.size() - length_at - 1;
    if (length < 0x80) [[likely]] {
      *out_.at(length_at) = static_cast<char>(length);
    } else {
      patch_length(length_at, length);
    }
  }

  [[gnu::always_inline]] void varint(uint64_t value) { out_.varint(value); }

 private:
  static constexpr uint32_t kVarint = 0;
  static constexpr uint32_t kLengthDelimited = 2;

  [[gnu::always_inline]] void tag(uint32_t field, uint32_t wire_type) {
    varint((uint64_t{field} << 3) | wire_type);
  }

  void patch_length(size_t length_at, size_t length) {
    const size_t extra = varint_size(length) - 1;
    if (extra != 0) out_.open_gap(length_at + 1, extra);
    char* at = out_.at(length_at);
    uint64_t value = length;
    while (value >= 0x80) {
      *at++ = static_cast<char>(value | 0x80);
      value >>= 7;
    }
    *at = static_cast<char>(value);
  }

  WireOut<Bytes> out_;
};

}  // namespace prof
