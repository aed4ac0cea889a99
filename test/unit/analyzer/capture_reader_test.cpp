// Framing and bad input: every broken file gives exactly one error line
// naming the file and byte offset, and a non-zero exit; a cut last chunk is
// a warning and the rest is read.
#include <catch2/catch.hpp>
#include <filesystem>

#include "analyzer_test_support.h"
#include "io/capture_reader.h"

using namespace prof::testing;

namespace {

std::string one_range_chunk(uint64_t name_id = 1) {
  ChunkBuilder c(1000);
  c.string(name_id, "range" + std::to_string(name_id)).range(1, name_id, 1000, 2000);
  return framed(c.finish());
}

// Runs `info` and `report` on the file; both must fail the same way, naming
// the byte offset, or none (kNothingRead) when no byte of the file was read.
constexpr int64_t kNothingRead = -1;
void require_one_error_line(const std::string& path, int64_t offset, const std::string& what) {
  for (const char* command : {"info", "report"}) {
    CliResult r = run_cli({command, path});
    INFO(command << " stderr: " << r.err);
    CHECK(r.exit_code == prof::analyzer::kExitBadInput);
    CHECK(line_count(r.err) == 1);
    CHECK_THAT(r.err, Catch::StartsWith("profanalyze: " + path + ": " +
                                        (offset == kNothingRead ? "" : "byte " + std::to_string(offset) + ": ")));
    if (offset == kNothingRead) CHECK_THAT(r.err, !Catch::Contains("byte"));
    CHECK_THAT(r.err, Catch::Contains(what));
    CHECK(r.out.empty());
  }
}

const size_t kHeaderEnd = CaptureFileWriter().size();

}  // namespace

TEST_CASE("A file with a header and chunks reads chunk by chunk", "[reader]") {
  TempFile f;
  f.write(CaptureFileWriter().raw(one_range_chunk(1)).raw(one_range_chunk(2)).bytes());
  prof::analyzer::CaptureReader reader;
  REQUIRE(reader.open(f.path()));
  CHECK(reader.header().format_major == 2);
  CHECK(reader.header().producer == "libprof test-writer");
  std::string_view payload;
  REQUIRE(reader.next(payload) == prof::analyzer::CaptureReader::Next::kChunk);
  CHECK(reader.chunk_offset() == kHeaderEnd);
  prof::proto::Chunk chunk;
  REQUIRE(chunk.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
  CHECK(chunk.strings(0).value() == "range1");
  REQUIRE(reader.next(payload) == prof::analyzer::CaptureReader::Next::kChunk);
  REQUIRE(chunk.ParseFromArray(payload.data(), static_cast<int>(payload.size())));
  CHECK(chunk.strings(0).value() == "range2");
  CHECK(reader.next(payload) == prof::analyzer::CaptureReader::Next::kEnd);
  CHECK(reader.chunk_count() == 2);
  CHECK_FALSE(reader.truncated_tail());
}

TEST_CASE("A file with a header and no chunks is an empty run, not an error", "[reader]") {
  TempFile f;
  f.write(CaptureFileWriter().bytes());
  CliResult r = run_cli({"info", f.path()});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("chunks        0"));
}

TEST_CASE("An empty file is rejected at byte 0", "[reader][bad-input]") {
  TempFile f;
  f.write("");
  require_one_error_line(f.path(), 0, "empty file");
}

TEST_CASE("A file shorter than the magic is rejected at byte 0", "[reader][bad-input]") {
  TempFile f;
  f.write(std::string(kCaptureMagic.substr(0, 5)));
  require_one_error_line(f.path(), 0, "too short for the magic bytes (5 of 8 bytes)");
}

TEST_CASE("A file with the wrong magic is rejected at byte 0", "[reader][bad-input]") {
  TempFile f;
  f.write("{\"traceEvents\": []}");
  require_one_error_line(f.path(), 0, "wrong magic");
}

TEST_CASE("A file whose header is cut short is rejected at the header's offset", "[reader][bad-input]") {
  TempFile f;
  SECTION("inside the header bytes") {
    f.write(std::string(kCaptureMagic) + varint(20) + "\x08\x01");
    require_one_error_line(f.path(), 8, "header truncated (2 of 20 bytes)");
  }
  SECTION("inside the header's length") {
    f.write(std::string(kCaptureMagic) + "\x80");
    require_one_error_line(f.path(), 8, "header truncated");
  }
  SECTION("before the header's length") {
    f.write(std::string(kCaptureMagic));
    require_one_error_line(f.path(), 8, "header truncated");
  }
}

TEST_CASE("A file of an unknown major format version is rejected", "[reader][bad-input]") {
  TempFile f;
  f.write(CaptureFileWriter(make_header(3, 3)).raw(one_range_chunk()).bytes());
  require_one_error_line(f.path(), 8, "unknown format version 3.3 (this profanalyze reads 2.x)");
}

TEST_CASE("A file of the retired format 1 is rejected", "[reader][bad-input]") {
  TempFile f;
  f.write(CaptureFileWriter(make_header(1, 0)).raw(one_range_chunk()).bytes());
  require_one_error_line(f.path(), 8, "unknown format version 1.0 (this profanalyze reads 2.x)");
}

TEST_CASE("A newer minor format version is read", "[reader]") {
  TempFile f;
  f.write(CaptureFileWriter(make_header(2, 9)).raw(one_range_chunk()).bytes());
  CHECK(run_cli({"report", f.path()}).exit_code == 0);
}

TEST_CASE("A malformed chunk length varint is rejected at the chunk's offset", "[reader][bad-input]") {
  TempFile f;
  const std::string first = one_range_chunk();
  f.write(CaptureFileWriter().raw(first).raw(std::string(11, '\xff')).bytes());
  require_one_error_line(f.path(), kHeaderEnd + first.size(), "chunk length is not a valid varint");
}

TEST_CASE("A chunk length over 256 MiB is rejected without allocating it", "[reader][bad-input]") {
  TempFile f;
  f.write(CaptureFileWriter().raw(varint((256ull << 20) + 1)).raw("abc").bytes());
  require_one_error_line(f.path(), kHeaderEnd, "chunk length 268435457 exceeds 256 MiB");
}

TEST_CASE("Zero bytes after the chunks are rejected where they start, not read as empty chunks", "[reader][bad-input]") {
  TempFile f;
  const std::string first = one_range_chunk();
  // 64 MiB of zeros took 26 s to read, as 67 million empty chunks.
  f.write(CaptureFileWriter().raw(first).raw(std::string(8 << 20, '\0')).bytes());
  require_one_error_line(f.path(), static_cast<int64_t>(kHeaderEnd + first.size()), "a chunk of length 0");
}

TEST_CASE("A chunk that does not parse is rejected at the chunk's offset", "[reader][bad-input]") {
  TempFile f;
  const std::string first = one_range_chunk();
  // 0xff as a tag: wire type 7 does not exist.
  f.write(CaptureFileWriter().raw(first).raw(varint(4) + "\xff\xff\xff\x7f").raw(one_range_chunk(2)).bytes());
  require_one_error_line(f.path(), kHeaderEnd + first.size(), "chunk 1 (4 bytes) does not parse");
}

TEST_CASE("A path that does not exist is reported, not crashed on", "[reader][bad-input]") {
  require_one_error_line("/nonexistent/run.pb", kNothingRead, "cannot read: No such file or directory");
}

TEST_CASE("A directory with no captures given as the file is reported", "[reader][bad-input]") {
  // A folder names the captures in it (cli/capture_paths.h); one with none is an error.
  const std::filesystem::path empty =
      std::filesystem::temp_directory_path() / ("prof-empty-" + std::to_string(::getpid()));
  std::filesystem::create_directory(empty);
  require_one_error_line(empty.string(), kNothingRead, "is a directory with no capture files (*.pb) in it");
  std::filesystem::remove(empty);
}

TEST_CASE("A pattern that matches no file is reported", "[reader][bad-input]") {
  require_one_error_line("/nonexistent/run*.pb", kNothingRead, "no file matches the pattern");
}

TEST_CASE("An unreadable file is reported", "[reader][bad-input]") {
  if (::geteuid() == 0) {
    // root reads files of any mode; nothing to test there.
    SUCCEED("skipped: running as root");
    return;
  }
  TempFile f;
  f.write(CaptureFileWriter().bytes());
  std::filesystem::permissions(f.path(), std::filesystem::perms::none);
  require_one_error_line(f.path(), kNothingRead, "Permission denied");
}

TEST_CASE("With several files, the bad one is named", "[reader][bad-input]") {
  TempFile good, bad;
  good.write(CaptureFileWriter().raw(one_range_chunk()).bytes());
  bad.write("nope");
  CliResult r = run_cli({"report", good.path(), bad.path()});
  CHECK(r.exit_code == prof::analyzer::kExitBadInput);
  CHECK(line_count(r.err) == 1);
  CHECK_THAT(r.err, Catch::Contains(bad.path() + ": byte 0:"));
}

TEST_CASE("A truncated last chunk is a warning and the chunks before it are used", "[reader]") {
  TempFile f;
  const std::string c1 = one_range_chunk(1), c2 = one_range_chunk(2), c3 = one_range_chunk(3);
  const uint64_t last_offset = kHeaderEnd + c1.size() + c2.size();
  SECTION("cut inside the chunk's bytes") {
    f.write(CaptureFileWriter().raw(c1).raw(c2).raw(c3.substr(0, c3.size() - 3)).bytes());
    CliResult r = run_cli({"report", f.path()});
    CHECK(r.exit_code == 0);
    CHECK(line_count(r.err) == 1);
    const uint64_t length = c3.size() - 1;  // the 1-byte varint is not part of the length
    CHECK(r.err == "profanalyze: warning: " + f.path() + ": byte " + std::to_string(last_offset) +
                       ": last chunk truncated (" + std::to_string(length - 3) + " of " + std::to_string(length) +
                       " bytes); using the 2 chunks before it\n");
    CHECK_THAT(r.out, Catch::Contains("range1"));
    CHECK_THAT(r.out, Catch::Contains("range2"));
    CHECK_THAT(r.out, !Catch::Contains("range3"));
  }
  SECTION("cut inside the chunk's length") {
    f.write(CaptureFileWriter().raw(c1).raw(c2).raw("\x80").bytes());
    CliResult r = run_cli({"info", f.path()});
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.err, Catch::Contains("byte " + std::to_string(last_offset) + ": last chunk truncated"));
    CHECK_THAT(r.out, Catch::Contains("chunks        2 (last chunk truncated, skipped)"));
  }
}

TEST_CASE("A large file streams chunk by chunk", "[reader]") {
  // 64 chunks of ~1 MiB each: the reader holds one at a time.
  TempFile f;
  CaptureFileWriter file;
  ChunkBuilder c(0);
  c.string(1, std::string(1 << 20, 'x')).range(1, 1, 0, 10);
  const std::string one = framed(c.finish());
  {
    std::ofstream out(f.path(), std::ios::binary);
    out << file.bytes();
    for (int i = 0; i < 64; ++i) out << one;
  }
  prof::analyzer::Run run;
  REQUIRE(load({f.path()}, run).empty());
  CHECK(run.cpu_events.size() == 64);
  CHECK(run.processes[0].chunks == 64);
}
