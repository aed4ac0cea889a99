// WireReader's varints, read as a word where ten bytes are left and byte by
// byte near the end, against the format's definition; and the generated
// decoder's in-order pass (records_decode.cpp), which must read a record
// whose fields come out of order, twice or unknown as the loop does.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "io/records.h"
#include "io/wire_reader.h"
#include "proto/prof.pb.h"

namespace analyzer = prof::analyzer;
namespace recorded = prof::analyzer::recorded;

namespace {

// The definition: 7 bits a byte, low first; the bits past 64 dropped.
std::string varint_bytes(uint64_t value) {
  std::string out;
  do {
    out += static_cast<char>((value & 0x7f) | (value >= 0x80 ? 0x80 : 0));
    value >>= 7;
  } while (value != 0);
  return out;
}

// Reads `value` encoded in `length` bytes (padded with continuation bytes
// of zero bits, as a writer may), then `tail` bytes of 0x2a: the value and
// where the reader stopped.
void check_read(uint64_t value, size_t length, size_t tail) {
  std::string bytes = varint_bytes(value);
  if (bytes.size() < length) {
    bytes.back() = static_cast<char>(bytes.back() | 0x80);
    bytes.append(length - bytes.size() - 1, '\x80');
    bytes += '\0';
  }
  bytes.append(tail, '\x2a');
  analyzer::WireReader in(bytes, 0);
  uint64_t read = ~value;
  INFO("value " << value << ", " << length << " bytes, " << tail << " after");
  REQUIRE(in.varint(read));
  CHECK(read == value);
  for (size_t i = 0; i < tail; ++i) REQUIRE(in.take_byte(0x2a));
  CHECK(in.done());
}

}  // namespace

TEST_CASE("A varint of every length reads the same as a word and byte by byte", "[wire]") {
  std::mt19937_64 random(20261129);
  for (int bits = 0; bits <= 64; ++bits) {
    const uint64_t top = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    for (uint64_t value : {top, top + 1, top >> 1, random() & top}) {
      const size_t length = varint_bytes(value).size();
      // Whole, and padded to a longer encoding of the same value.
      for (size_t encoded = length; encoded <= 10; encoded += 3) {
        // Tails from none (the byte-by-byte path) past ten bytes left (the word).
        for (size_t tail : {0, 1, 2, 5, 9, 10, 16}) check_read(value, encoded, tail);
      }
    }
  }
}

TEST_CASE("A varint past ten bytes, or cut short, is refused", "[wire]") {
  for (size_t tail : {0, 16}) {
    std::string eleven(10, '\x80');
    eleven += '\x01';
    eleven.append(tail, '\x2a');
    analyzer::WireReader long_one(eleven, 0);
    uint64_t value = 0;
    CHECK_FALSE(long_one.varint(value));
  }
  for (size_t length = 1; length <= 10; ++length) {
    const std::string cut(length, '\x80');
    analyzer::WireReader in(cut, 0);
    uint64_t value = 0;
    CHECK_FALSE(in.varint(value));
  }
}

TEST_CASE("A record's fields out of order, twice or unknown decode as libprotobuf reads them", "[wire]") {
  // ApiCall fields by hand: tag, value. The agent writes 1, 2, 3, ... once
  // each; here they come backwards, the stack twice (the last wins), launch
  // twice (the second merges into the first) and an unknown field between.
  auto field = [](uint32_t number, uint64_t value) { return varint_bytes(number << 3) + varint_bytes(value); };
  auto launch = [&](uint32_t number, uint64_t value) {
    const std::string body = field(number, value);
    return varint_bytes(10 << 3 | 2) + varint_bytes(body.size()) + body;
  };
  std::string call;
  call += launch(1, 7);                                // kernel_name_id
  call += field(9, 5) + field(15, 99) + field(9, 6);   // stack 5, unknown 15, stack 6
  call += launch(9, 3);                                // stream, merged into the launch
  call += field(6, 300) + field(4, 2) + field(3, 211) + field(2, 1) + field(1, 77);
  // Chunk.api_calls, field 2.
  const std::string list_entry = varint_bytes(2 << 3 | 2) + varint_bytes(call.size()) + call;
  const std::string chunk = list_entry + list_entry;

  prof::proto::Chunk theirs;
  REQUIRE(theirs.ParseFromString(chunk));
  recorded::Chunk ours;
  REQUIRE(analyzer::decode(chunk, ours));
  REQUIRE(ours.api_calls.size() == 2);
  REQUIRE(theirs.api_calls_size() == 2);
  for (int i = 0; i < 2; ++i) {
    const recorded::ApiCall& a = ours.api_calls[static_cast<size_t>(i)];
    const prof::proto::ApiCall& b = theirs.api_calls(i);
    CHECK(a.tid == b.tid());
    CHECK(static_cast<int>(a.domain) == static_cast<int>(b.domain()));
    CHECK(a.callback_id == b.callback_id());
    CHECK(a.name_id == b.name_id());
    CHECK(a.duration_ns == b.duration_ns());
    CHECK(a.stack_id == b.stack_id());
    CHECK(a.stack_id == 6);
    REQUIRE(a.launch.has_value());
    CHECK(a.launch->kernel_name_id == b.launch().kernel_name_id());
    CHECK(a.launch->kernel_name_id == 7);
    CHECK(a.launch->stream == b.launch().stream());
    CHECK(a.launch->stream == 3);
  }
}
