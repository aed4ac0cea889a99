// ParallelRecordDecoder hands out what RecordDecoder reads, chunk for chunk,
// whichever of its threads decoded each. Each file is read many times over,
// so that the threads meet in many orders; a mix-up of the order hangs or
// fails (it did, for a version in which the caller decoded ahead too and
// could read the very chunk it then waited for).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "analyzer_test_support.h"
#include "io/parallel_record_decoder.h"
#include "io/record_decoder.h"

using namespace prof::testing;
using prof::analyzer::ParallelRecordDecoder;
using prof::analyzer::RecordDecoder;
namespace recorded = prof::analyzer::recorded;

namespace {

// Chunk c holds c + 1 API calls, the first starting at c: each chunk tells
// which it is, and the chunks differ in size (so a reused one must shrink).
std::string chunks_file(int chunks, const std::string& tail = "") {
  CaptureFileWriter file(make_header(2, 0, "libprof 0.1.0"));
  for (int c = 0; c < chunks; ++c) {
    ChunkBuilder chunk(1'000);
    const auto base = static_cast<uint64_t>(c);
    for (int k = 0; k <= c; ++k) chunk.api_call(1, 0, 1'000 + base + k, 1'000 + base + k + 1, static_cast<uint32_t>(k + 1));
    file.chunk(chunk.finish());
  }
  file.raw(tail);
  return file.bytes();
}

// What a reader gave, call by call, until the end or an error.
struct Reading {
  std::vector<uint64_t> first_starts;  // per chunk
  std::vector<size_t> sizes;
  std::vector<uint64_t> offsets, counts;
  RecordDecoder::Next last = RecordDecoder::Next::kChunk;
  std::string error;
  uint64_t error_offset = 0;
  std::string tail;
};

template <typename Reader>
Reading read_all(Reader& reader, const std::string& path) {
  Reading out;
  REQUIRE(reader.open(path));
  recorded::Chunk chunk;
  for (;;) {
    out.last = reader.next(chunk);
    if (out.last != RecordDecoder::Next::kChunk) break;
    out.first_starts.push_back(chunk.api_calls.empty() ? 0 : chunk.api_calls.front().start_ns);
    out.sizes.push_back(chunk.api_calls.size());
    out.offsets.push_back(reader.chunk_offset());
    out.counts.push_back(reader.chunk_count());
  }
  if (out.last == RecordDecoder::Next::kError) {
    out.error = reader.error().describe();
    out.error_offset = reader.chunk_offset();
  }
  out.counts.push_back(reader.chunk_count());
  if (reader.truncated_tail()) out.tail = reader.truncated_tail()->describe();
  // The end stays for a later call (after an error no caller reads on).
  if (out.last == RecordDecoder::Next::kEnd) CHECK(reader.next(chunk) == RecordDecoder::Next::kEnd);
  return out;
}

void check_as_serial(const std::string& bytes) {
  TempFile file("parallel_decoder");
  file.write(bytes);
  RecordDecoder serial;
  const Reading expected = read_all(serial, file.path());
  for (unsigned threads : {1u, 2u, 3u}) {
    for (int round = 0; round < 60; ++round) {
      INFO("threads " << threads << ", round " << round);
      ParallelRecordDecoder parallel(threads);
      const Reading got = read_all(parallel, file.path());
      REQUIRE(got.first_starts == expected.first_starts);
      REQUIRE(got.sizes == expected.sizes);
      REQUIRE(got.offsets == expected.offsets);
      REQUIRE(got.counts == expected.counts);
      REQUIRE(got.last == expected.last);
      REQUIRE(got.error == expected.error);
      REQUIRE(got.error_offset == expected.error_offset);
      REQUIRE(got.tail == expected.tail);
    }
  }
}

}  // namespace

TEST_CASE("Chunks decoded ahead on other threads come out in file order", "[decoder][parallel]") {
  for (int chunks : {1, 2, 3, 17}) {
    INFO(chunks << " chunks");
    const std::string bytes = chunks_file(chunks);
    check_as_serial(bytes);
  }
}

TEST_CASE("A chunk that does not parse, decoded ahead, is the error after the chunks before it",
          "[decoder][parallel]") {
  // A length-delimited field cut short: the bytes do not parse.
  const std::string garbage = "\x12\x7f\x01";
  check_as_serial(chunks_file(9, varint(garbage.size()) + garbage + varint(2) + "\x08\x01"));
}

TEST_CASE("A file cut inside its last chunk ends with the same truncated tail, decoded ahead",
          "[decoder][parallel]") {
  check_as_serial(chunks_file(7, varint(100) + "\x08\x01"));
}
