#include "io/wire_reader.h"

#include <cstring>

namespace prof::analyzer {

bool WireReader::varint_slow(uint64_t& value) {
  if (end_ - at_ >= 10) {
    // One of up to 8 bytes read as a word, with no branch on its length: a
    // loop's exit branch, on lengths that vary from field to field (a time
    // delta of 2 or 3 bytes), mispredicts often. (Inline in varint(), this
    // took more instructions and more mispredictions, callgrind.)
    uint64_t word;
    memcpy(&word, at_, sizeof word);
    // The high bit of each byte that ends a varint; the first one ends this.
    const uint64_t ends = ~word & 0x8080808080808080ull;
    if (ends != 0) [[likely]] {
      const int bits = __builtin_ctzll(ends) + 1;  // 8 per byte of the varint
      uint64_t x = word & (~uint64_t{0} >> (64 - bits)) & 0x7f7f7f7f7f7f7f7full;
      // The 7-bit groups packed together: pairs of bytes into 14 bits, pairs
      // of those into 28, then 56.
      x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
      x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
      x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
      at_ += bits / 8;
      value = x;
      return true;
    }
    // 9 or 10 bytes. Read through a local pointer: at_ is a member and the
    // bytes are uint8_t, which may alias it, so the loop would store and
    // reload at_ for every byte. With ten bytes left no byte needs the end
    // check either.
    const uint8_t* at = at_;
    uint64_t result = 0;
    for (int i = 0; i < 10; ++i) {
      const uint8_t byte = at[i];
      result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
      if (byte < 0x80) {
        at_ = at + i + 1;
        value = result;
        return true;
      }
    }
    at_ = at + 10;
    value = result;
    return false;  // an 11th byte: not a varint
  }
  value = 0;
  for (int i = 0; i < 10; ++i) {
    if (at_ == end_) return false;
    const uint8_t byte = *at_++;
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (byte < 0x80) return true;
  }
  return false;  // an 11th byte: not a varint
}

bool WireReader::skip(uint32_t field, WireType type) {
  uint64_t ignored = 0;
  std::string_view bytes;
  switch (type) {
    case WireType::kVarint: return varint(ignored);
    case WireType::kFixed64: return fixed(8);
    case WireType::kFixed32: return fixed(4);
    case WireType::kLength: return this->bytes(bytes);
    case WireType::kEndGroup: return false;
    case WireType::kStartGroup: {
      // A group nests like a message, up to its own end-group tag.
      if (depth_ + 1 > kMaxDepth) return false;
      ++depth_;
      for (;;) {
        uint32_t inner = 0;
        WireType inner_type{};
        if (!tag(inner, inner_type)) return false;
        if (inner_type == WireType::kEndGroup) {
          --depth_;
          return inner == field;
        }
        if (!skip(inner, inner_type)) return false;
      }
    }
  }
  return false;
}

bool read_map_entry(std::string_view entry, int depth, std::string& key, std::string& value) {
  WireReader in(entry, depth);
  if (!in.nested_ok()) return false;
  while (!in.done()) {
    uint32_t field = 0;
    WireType type{};
    if (!in.tag(field, type)) return false;
    std::string_view bytes;
    if (field == 1 && type == WireType::kLength) {
      if (!in.bytes(bytes) || !valid_utf8(bytes)) return false;  // a string key
      key.assign(bytes);
    } else if (field == 2 && type == WireType::kLength) {
      if (!in.bytes(bytes)) return false;
      value.assign(bytes);
    } else if (!in.skip(field, type)) {
      return false;
    }
  }
  return true;
}

bool valid_utf8(std::string_view text) {
  const auto* at = reinterpret_cast<const uint8_t*>(text.data());
  const uint8_t* end = at + text.size();
  while (at < end) {
    const uint8_t lead = *at;
    if (lead < 0x80) {
      ++at;
      continue;
    }
    int length = 0;
    uint8_t low = 0x80, high = 0xbf;  // the second byte's range
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) low = 0xa0;   // overlong
      if (lead == 0xed) high = 0x9f;  // surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) low = 0x90;   // overlong
      if (lead == 0xf4) high = 0x8f;  // past U+10FFFF
    } else {
      return false;
    }
    if (end - at < length) return false;
    if (at[1] < low || at[1] > high) return false;
    for (int i = 2; i < length; ++i)
      if (at[i] < 0x80 || at[i] > 0xbf) return false;
    at += length;
  }
  return true;
}

}  // namespace prof::analyzer
