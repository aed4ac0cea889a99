#include <catch2/catch.hpp>

#include <google/protobuf/io/coded_stream.h>

#include "proto/prof.pb.h"
#include "record/string_table.h"

namespace {

prof::proto::Chunk parse(const std::string& framed) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(framed.data()),
                                            static_cast<int>(framed.size()));
  uint32_t length = 0;
  REQUIRE(in.ReadVarint32(&length));
  prof::proto::Chunk chunk;
  REQUIRE(chunk.ParseFromArray(framed.data() + in.CurrentPosition(), static_cast<int>(length)));
  return chunk;
}

}  // namespace

TEST_CASE("a string is defined once, in the chunk that first uses it") {
  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  const uint64_t a = strings.intern("forward", chunk);
  const uint64_t b = strings.intern("backward", chunk);
  CHECK(a != 0);
  CHECK(b != a);
  CHECK(strings.intern("forward", chunk) == a);
  const prof::proto::Chunk first = parse(chunk.finish());
  REQUIRE(first.strings_size() == 2);
  CHECK(first.strings(0).id() == a);
  CHECK(first.strings(0).value() == "forward");
  CHECK(first.strings(1).id() == b);

  // A later chunk reuses the ids without defining them again.
  CHECK(strings.intern("backward", chunk) == b);
  const uint64_t c = strings.intern("optimizer", chunk);
  const prof::proto::Chunk second = parse(chunk.finish());
  REQUIRE(second.strings_size() == 1);
  CHECK(second.strings(0).id() == c);
  CHECK(strings.size() == 3);
}

TEST_CASE("static strings are interned by address but share ids with equal text") {
  static const char kName[] = "cudaMemcpyAsync";
  const std::string same_text = "cudaMemcpyAsync";
  prof::StringTable strings;
  prof::ChunkEncoder chunk;
  const uint64_t by_address = strings.intern_static(kName, chunk);
  CHECK(strings.intern_static(kName, chunk) == by_address);
  CHECK(strings.intern(same_text, chunk) == by_address);
  CHECK(strings.intern_static(nullptr, chunk) == 0);
  CHECK(parse(chunk.finish()).strings_size() == 1);
}
