#include <catch2/catch.hpp>

#include <limits>

#include "encode/byte_buffer.h"
#include "encode/proto_wire.h"
#include "proto/prof.pb.h"

// ApiCall has fields of every wire shape the writer produces: unsigned and
// signed varints, zigzag, and nested messages.
TEST_CASE("varints of every length survive a parse by libprotobuf") {
  const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, (1ull << 32) + 5,
                             std::numeric_limits<uint64_t>::max()};
  for (uint64_t value : values) {
    std::string bytes;
    prof::ProtoWriter w(bytes);
    w.add_uint(6, value);  // ApiCall.duration_ns (uint64)
    prof::proto::ApiCall parsed;
    REQUIRE(parsed.ParseFromString(bytes));
    CHECK(parsed.duration_ns() == value);
    CHECK(bytes.size() == (value == 0 ? 0 : 1 + prof::varint_size(value)));
  }
}

TEST_CASE("zigzag fields keep their sign") {
  const int64_t values[] = {0, 1, -1, 63, -64, 1'000'000'007, -1'000'000'007,
                            std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  for (int64_t value : values) {
    std::string bytes;
    prof::ProtoWriter(bytes).add_sint(5, value);  // ApiCall.start_delta_ns (sint64)
    prof::proto::ApiCall parsed;
    REQUIRE(parsed.ParseFromString(bytes));
    CHECK(parsed.start_delta_ns() == value);
  }
}

TEST_CASE("negative int32 fields use ten-byte two's complement like libprotobuf") {
  const int32_t values[] = {1, -1, 35, -35, std::numeric_limits<int32_t>::min()};
  for (int32_t value : values) {
    std::string bytes;
    prof::ProtoWriter(bytes).add_int(8, value);  // ApiCall.return_code (int32)
    prof::proto::ApiCall parsed;
    REQUIRE(parsed.ParseFromString(bytes));
    CHECK(parsed.return_code() == value);
    prof::proto::ApiCall reference;
    reference.set_return_code(value);
    CHECK(bytes == reference.SerializeAsString());
  }
}

TEST_CASE("a nested message longer than 127 bytes gets a two-byte length") {
  std::string bytes;
  prof::ProtoWriter w(bytes);
  const std::string long_name(300, 'x');
  w.add_message(16, [&](auto& s) {  // Chunk.strings
    s.add_uint(1, 7);
    s.add_bytes(2, long_name);
  });
  w.add_message(16, [&](auto& s) {
    s.add_uint(1, 8);
    s.add_bytes(2, "short");
  });
  prof::proto::Chunk parsed;
  REQUIRE(parsed.ParseFromString(bytes));
  REQUIRE(parsed.strings_size() == 2);
  CHECK(parsed.strings(0).id() == 7);
  CHECK(parsed.strings(0).value() == long_name);
  CHECK(parsed.strings(1).value() == "short");
}

TEST_CASE("a ByteBuffer writer produces the same bytes as a std::string writer") {
  std::string reference;
  prof::ByteBuffer buffer;
  const std::string long_name(200, 'y');  // a two-byte length: the insert path
  auto write = [&](auto& out) {
    prof::ProtoWriter w(out);
    w.add_uint(1, 300);
    w.add_sint(5, -12345);
    w.add_message(10, [&](auto& m) {
      m.add_uint(1, 7);
      m.add_bytes(2, long_name);
    });
    w.add_bytes(2, "tail");
  };
  write(reference);
  write(buffer);
  CHECK(std::string(buffer.view()) == reference);
  prof::proto::ApiCall parsed;
  REQUIRE(parsed.ParseFromString(reference));
  CHECK(parsed.tid() == 300);
  CHECK(parsed.start_delta_ns() == -12345);
}

TEST_CASE("fields at their default value take no bytes") {
  std::string bytes;
  prof::ProtoWriter w(bytes);
  w.add_uint(1, 0);
  w.add_sint(5, 0);
  w.add_bytes(2, "");
  w.add_bool(10, false);
  CHECK(bytes.empty());
}
