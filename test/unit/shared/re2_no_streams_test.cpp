// third_party/re2_no_streams/: the logging and StringPiece members prof_re2
// is built with instead of RE2's (which used iostreams). StringPiece's
// members mean what std::string_view's do, edge cases included; a log line
// reaches stderr whole, as "file:line: message", cut at its buffer.
// re2_no_streams' util/logging.h (first on this test's include path); its
// CHECK gives way to Catch's, included after.
#include "util/logging.h"
#undef CHECK

#include <catch2/catch.hpp>
#include <stdio.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "re2/stringpiece.h"

using re2::StringPiece;

namespace {

// What `write_log` printed to stderr.
template <typename WriteLog>
std::string stderr_of(WriteLog write_log) {
  fflush(stderr);
  FILE* capture = tmpfile();
  REQUIRE(capture != nullptr);
  const int saved = dup(STDERR_FILENO);
  dup2(fileno(capture), STDERR_FILENO);
  write_log();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string text;
  rewind(capture);
  for (int c; (c = fgetc(capture)) != EOF;) text.push_back(static_cast<char>(c));
  fclose(capture);
  return text;
}

enum class Opcode { kMatch = 4 };

// A StringPiece as text for Catch to print (it has no operator<< here).
std::string text_of(StringPiece piece) { return std::string(piece.data(), piece.size()); }

}  // namespace

TEST_CASE("StringPiece's find, rfind, substr and copy answer as std::string_view's") {
  const std::string text = "abcabcab";
  const StringPiece piece(text);
  const std::string_view view(text);
  for (size_t pos : {size_t{0}, size_t{2}, size_t{7}, size_t{8}, size_t{9}, StringPiece::npos}) {
    INFO("pos " << pos);
    for (std::string needle : {"", "a", "ab", "cab", "abcabcab", "abcabcabc", "x"}) {
      INFO("needle '" << needle << "'");
      CHECK(piece.find(StringPiece(needle), pos) == view.find(needle, pos));
      CHECK(piece.rfind(StringPiece(needle), pos) == view.rfind(needle, pos));
    }
    CHECK(piece.find('c', pos) == view.find('c', pos));
    CHECK(piece.rfind('c', pos) == view.rfind('c', pos));
  }
  CHECK(StringPiece().find('a') == StringPiece::npos);
  CHECK(StringPiece().rfind('a') == StringPiece::npos);
  CHECK(text_of(piece.substr(3, 2)) == "ab");
  CHECK(text_of(piece.substr(6)) == "ab");
  CHECK(piece.substr(100).empty());  // clamped, where string_view would throw
  char buffer[4] = {};
  CHECK(piece.copy(buffer, 3, 6) == 2);
  CHECK(std::string(buffer, 2) == "ab");
  CHECK(piece.copy(buffer, 3, 100) == 0);
}

TEST_CASE("RE2's LOG writes one line to stderr: file, line, then what was streamed") {
  const std::string line = stderr_of([] {
    LOG(ERROR) << "Bad args: nsubmatch=" << 7 << ", size " << size_t{12} << ' ' << -3 << " op " << Opcode::kMatch << ' '
               << std::string("text") << ' ' << 0.5;
  });
  CHECK(line.rfind(__FILE__ ":", 0) == 0);
  CHECK(line.find(": Bad args: nsubmatch=7, size 12 -3 op 4 text 0.5\n") != std::string::npos);
  CHECK(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
}

TEST_CASE("A log line longer than its buffer is cut and still ends the line") {
  const std::string line = stderr_of([] { LOG(ERROR) << std::string(5000, 'x'); });
  CHECK(line.size() == 1024);
  CHECK(line.back() == '\n');
}

TEST_CASE("VLOG above 0 writes nothing") {
  CHECK(stderr_of([] { VLOG(1) << "quiet"; }).empty());
}
