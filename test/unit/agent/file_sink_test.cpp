#include <catch2/catch.hpp>

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "record/file_sink.h"

namespace {

std::string temp_path(const char* name) {
  char folder[] = "/tmp/file_sink_test-XXXXXX";
  REQUIRE(mkdtemp(folder) != nullptr);
  return std::string(folder) + "/" + name;
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// `count` pieces of varied sizes (some empty), each byte telling its
// piece and place, and the pieces' text one after another.
struct Pieces {
  std::vector<std::string> texts;
  std::vector<std::string_view> views;
  std::string joined;
};

Pieces make_pieces(size_t count) {
  Pieces made;
  for (size_t i = 0; i < count; ++i) {
    std::string text;
    for (size_t j = 0; j < (i * 7) % 13; ++j) text.push_back(static_cast<char>('a' + (i + j) % 26));
    made.texts.push_back(text);
  }
  for (const std::string& text : made.texts) {
    made.views.emplace_back(text);
    made.joined += text;
  }
  return made;
}

}  // namespace

TEST_CASE("file sink: pieces land one after another, more of them than one gathered write takes") {
  const std::string path = temp_path("pieces.pb");
  prof::FileSink sink(path);
  REQUIRE(sink.create());
  REQUIRE(sink.write("head"));
  // Over IOV_MAX pieces: the write goes in several gathered writes.
  const Pieces pieces = make_pieces(IOV_MAX * 2 + 5);
  REQUIRE(sink.write(pieces.views.data(), pieces.views.size()));
  REQUIRE(sink.write("tail"));
  CHECK(contents(path) == "head" + pieces.joined + "tail");
  CHECK(sink.bytes_written() == pieces.joined.size() + 8);
}

TEST_CASE("file sink: a short write goes on from the first byte not written, and an error is false") {
  // RLIMIT_FSIZE makes the kernel write up to the limit (a short write,
  // here inside a piece), then refuse (EFBIG): in a child, whose limit and
  // ignored SIGXFSZ do not touch the test process.
  const std::string path = temp_path("short.pb");
  const Pieces pieces = make_pieces(300);
  const size_t limit = 1001;
  REQUIRE(pieces.joined.size() > limit + 100);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    prof::FileSink sink(path);
    if (!sink.create()) _exit(10);
    rlimit file_size{limit, limit};
    if (setrlimit(RLIMIT_FSIZE, &file_size) != 0) _exit(11);
    const bool written = sink.write(pieces.views.data(), pieces.views.size());
    _exit(written ? 12 : 0);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);  // 12: the failed write said it was done
  CHECK(contents(path) == pieces.joined.substr(0, limit));
}

TEST_CASE("file sink: after a short write, the pieces go on from the first byte not written") {
  char a[4], b[3], c[5];
  iovec pieces[] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
  SECTION("inside a piece") {
    CHECK(prof::skip_written(pieces, 3, 0, 5) == 1);
    CHECK(pieces[1].iov_base == b + 1);
    CHECK(pieces[1].iov_len == 2);
    // Then the rest of that piece and some of the next.
    CHECK(prof::skip_written(pieces, 3, 1, 4) == 2);
    CHECK(pieces[2].iov_base == c + 2);
    CHECK(pieces[2].iov_len == 3);
    CHECK(prof::skip_written(pieces, 3, 2, 3) == 3);
  }
  SECTION("at a piece's end") {
    CHECK(prof::skip_written(pieces, 3, 0, 7) == 2);
    CHECK(pieces[2].iov_base == c);
    CHECK(pieces[2].iov_len == sizeof c);
  }
  SECTION("all of them") { CHECK(prof::skip_written(pieces, 3, 0, 12) == 3); }
}
