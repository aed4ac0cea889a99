#include "on_demand_protocol.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "proc_stat.h"

namespace prof {
namespace {

// A fresh directory of this test's own, removed with what it holds.
struct ScratchDirectory {
  std::string path;
  ScratchDirectory() {
    char name[] = "/tmp/on_demand_protocol_test.XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~ScratchDirectory() { std::filesystem::remove_all(path); }
};

TEST_CASE("the three files of a process sit in the user's directory, named by its pid") {
  const std::string directory = "/tmp/libprof-" + std::to_string(getuid());
  CHECK(control_directory() == directory);
  const ControlFiles files = control_files(4242);
  CHECK(files.control == directory + "/4242.ctl");
  CHECK(files.request == directory + "/4242.req");
  CHECK(files.answer == directory + "/4242.done");
}

TEST_CASE("the control file the agent writes names its own process and no other") {
  ScratchDirectory scratch;
  const std::string path = scratch.path + "/1.ctl";
  REQUIRE(write_file_atomically(path, control_text("9.8.7")));
  const std::string text = read_small_file(path);
  CHECK(text.rfind("libprof 9.8.7\n", 0) == 0);
  CHECK(control_names_process(text, getpid()));
  // One tick later is another process (the pid reused after a kill).
  const std::string ticks = process_start_ticks(0);
  REQUIRE(!ticks.empty());
  const std::string later = std::to_string(std::stoll(ticks) + 1);
  CHECK_FALSE(control_names_process("libprof 9.8.7\nstarted " + later + "\n", getpid()));
  // A pid above pid_max's ceiling: no process, so no start time to match,
  // not even an empty one.
  CHECK_FALSE(control_names_process("started \n", int64_t{1} << 40));
  CHECK_FALSE(control_names_process(text, int64_t{1} << 40));
}

TEST_CASE("a malformed control file names no process") {
  const std::string ticks = process_start_ticks(0);
  CHECK_FALSE(control_names_process("", getpid()));
  CHECK_FALSE(control_names_process("libprof 9.8.7\n", getpid()));
  CHECK_FALSE(control_names_process("started" + ticks + "\n", getpid()));   // no space
  CHECK_FALSE(control_names_process(" started " + ticks + "\n", getpid()));  // not at the line's start
  CHECK_FALSE(control_names_process("started " + ticks + "0\n", getpid()));  // the whole rest counts
  // The first "started" line counts, a later one is not looked at.
  CHECK_FALSE(control_names_process("started 1\nstarted " + ticks + "\n", getpid()));
  // Its last line need not end in a newline.
  CHECK(control_names_process("libprof x\nstarted " + ticks, getpid()));
}

TEST_CASE("a request profanalyze writes is read back by the agent as asked") {
  ScratchDirectory scratch;
  const std::string path = scratch.path + "/1.req";
  CaptureRequest steps;
  steps.steps = 3;
  steps.output = "/some dir/capture 1.pb";  // spaces are part of the path
  REQUIRE(write_file_atomically(path, request_text(steps)));
  std::optional<CaptureRequest> read = parse_request(read_small_file(path));
  REQUIRE(read);
  CHECK(read->steps == 3);
  CHECK(read->duration_ms == 0);
  CHECK(read->output == steps.output);

  CaptureRequest duration;
  duration.duration_ms = 1500;
  duration.output = "/out.pb";
  REQUIRE(write_file_atomically(path, request_text(duration)));
  read = parse_request(read_small_file(path));
  REQUIRE(read);
  CHECK(read->steps == 0);
  CHECK(read->duration_ms == 1500);
  CHECK(read->output == "/out.pb");
}

TEST_CASE("a malformed request is not understood") {
  CHECK_FALSE(parse_request(""));
  CHECK_FALSE(parse_request("steps 3\n"));                    // no output
  CHECK_FALSE(parse_request("steps 3\noutput \n"));           // an empty one
  CHECK_FALSE(parse_request("steps 0\noutput /a.pb\n"));      // nothing to record
  CHECK_FALSE(parse_request("steps -2\noutput /a.pb\n"));
  CHECK_FALSE(parse_request("duration_ms 0\noutput /a.pb\n"));
  CHECK_FALSE(parse_request("steps x\noutput /a.pb\n"));
  CHECK_FALSE(parse_request("frames 3\noutput /a.pb\n"));
  CHECK_FALSE(parse_request("output /a.pb\nsteps 3\n"));      // in the wrong order
}

TEST_CASE("an answer the agent writes is read back by profanalyze") {
  ScratchDirectory scratch;
  const std::string path = scratch.path + "/1.done";
  REQUIRE(write_file_atomically(path, answer_text({true, "/runs/capture 1.pb"})));
  std::optional<CaptureAnswer> read = parse_answer(read_small_file(path));
  REQUIRE(read);
  CHECK(read->ok);
  CHECK(read->detail == "/runs/capture 1.pb");

  REQUIRE(write_file_atomically(path, answer_text({false, "a capture window is already open"})));
  read = parse_answer(read_small_file(path));
  REQUIRE(read);
  CHECK_FALSE(read->ok);
  CHECK(read->detail == "a capture window is already open");
}

TEST_CASE("a malformed answer is an error that says what was there; none yet is no answer") {
  CHECK_FALSE(parse_answer(""));
  std::optional<CaptureAnswer> read = parse_answer("done /a.pb\n");
  REQUIRE(read);
  CHECK_FALSE(read->ok);
  CHECK(read->detail == "done /a.pb");
  read = parse_answer("ok\n");  // "ok" with no path is not a success
  REQUIRE(read);
  CHECK_FALSE(read->ok);
  read = parse_answer("ok /a.pb\nok /b.pb\n");  // the first line is the answer
  REQUIRE(read);
  CHECK(read->detail == "/a.pb");
}

TEST_CASE("a file is renamed into place whole, and a failure says why") {
  ScratchDirectory scratch;
  const std::string path = scratch.path + "/1.req";
  REQUIRE(write_file_atomically(path, "first\n"));
  REQUIRE(write_file_atomically(path, "second\n"));
  CHECK(read_small_file(path) == "second\n");
  CHECK(access((path + ".tmp").c_str(), F_OK) != 0);  // renamed, not copied
  errno = 0;
  CHECK_FALSE(write_file_atomically(scratch.path + "/missing/1.req", "x"));
  CHECK(errno == ENOENT);
  CHECK(read_small_file(scratch.path + "/missing/1.req") == "");
  // Longer than one read's buffer.
  const std::string large(10000, 'x');
  REQUIRE(write_file_atomically(path, large));
  CHECK(read_small_file(path) == large);
}

}  // namespace
}  // namespace prof

TEST_CASE("control files of pids no process has are removed; a running process's are kept") {
  const std::string directory = prof::control_directory();
  std::filesystem::create_directories(directory);
  // Above the kernel's largest pid (4194304): no process has it.
  const int64_t gone = 99999999;
  const prof::ControlFiles dead = prof::control_files(gone);
  REQUIRE(prof::write_file_atomically(dead.control, "libprof 0.1.0\nstarted 1\n"));
  REQUIRE(prof::write_file_atomically(dead.request, "steps 1\n"));
  // This process, with a start time that is not its own: a live pid is never
  // touched (its agent rewrites its own file when it starts).
  const prof::ControlFiles live = prof::control_files(getpid());
  REQUIRE(prof::write_file_atomically(live.control, "libprof 0.1.0\nstarted 1\n"));

  CHECK(prof::remove_stale_control_files() >= 1);
  CHECK_FALSE(std::filesystem::exists(dead.control));
  CHECK_FALSE(std::filesystem::exists(dead.request));
  CHECK(std::filesystem::exists(live.control));
  std::filesystem::remove(live.control);
}
