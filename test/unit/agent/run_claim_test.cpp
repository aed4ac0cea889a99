#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "run_claim.h"

namespace {

// Each case starts a run of its own, as a fresh launch would, in a TMPDIR
// of its own: a new run sweeps the folders of runs whose first process is
// gone, and these runs' pids are made up.
void forget_run() {
  unsetenv("PROF_RUN");
  unsetenv("PROF_RUN_PID");
  static const std::string private_tmp = [] {
    char pattern[] = "/tmp/run_claim_test-XXXXXX";
    const char* made = mkdtemp(pattern);
    return std::string(made != nullptr ? made : "/tmp");
  }();
  setenv("TMPDIR", private_tmp.c_str(), 1);
}

bool is_folder(const char* path) {
  struct stat st {};
  return path != nullptr && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

TEST_CASE("the first process to claim an output gets it; the others get their pid's name") {
  forget_run();
  prof::RunClaim launcher;
  launcher.join(100);
  REQUIRE(launcher.first_of_run());
  REQUIRE(is_folder(getenv("PROF_RUN")));

  prof::RunClaim program, worker;
  program.join(101);  // started by the launcher: the environment names the run
  worker.join(102);
  CHECK(!program.first_of_run());
  CHECK(program.claim("out/x.pb") == "out/x.pb");
  CHECK(worker.claim("out/x.pb") == "out/x.102.pb");
  CHECK(worker.claim("out/y.pb") == "out/y.pb");  // another output: its own claim

  CHECK(program.note_written("out/x.pb", 1234));
  CHECK(worker.note_written("out/x.102.pb", 56));
  CHECK(program.finish().empty());  // only the run's first process speaks
  const std::string folder = getenv("PROF_RUN");
  CHECK(launcher.finish() == "wrote 2 files: out/x.pb (1234 bytes), out/x.102.pb (56 bytes)");
  CHECK(!is_folder(folder.c_str()));

  // A process that ends after the first one: its note fails, it speaks itself.
  CHECK(!worker.note_written("out/x.102.pb", 56));
  forget_run();
}

TEST_CASE("a run that recorded nothing says so once; one file is named alone") {
  forget_run();
  prof::RunClaim quiet;
  quiet.join(200);
  CHECK(quiet.finish() == "nothing recorded; no file written");
  forget_run();

  prof::RunClaim alone;
  alone.join(300);
  CHECK(alone.claim("run.pb") == "run.pb");
  CHECK(alone.note_written("run.pb", 9));
  CHECK(alone.finish() == "wrote run.pb (9 bytes)");
  forget_run();
}

TEST_CASE("the run's line says how many GPU records never came, per file") {
  forget_run();
  prof::RunClaim launcher, program, worker;
  launcher.join(500);
  program.join(501);
  worker.join(502);
  CHECK(program.note_written("x.pb", 1234, 1));
  CHECK(worker.note_written("x.502.pb", 56, 0));
  CHECK(launcher.finish() ==
        "wrote 2 files: x.pb (1234 bytes; 1 GPU record never came (still running at exit)), x.502.pb (56 bytes)");
  forget_run();
  CHECK(prof::RunClaim::describe_file("run.pb", 9, 2) == "run.pb (9 bytes; 2 GPU records never came (still running at exit))");
}

TEST_CASE("the run's first process stays first after an exec (same pid)") {
  forget_run();
  prof::RunClaim shell;
  shell.join(400);
  prof::RunClaim same_process_after_exec;
  same_process_after_exec.join(400);
  CHECK(same_process_after_exec.first_of_run());
  CHECK(same_process_after_exec.finish() == "nothing recorded; no file written");
  forget_run();
}

TEST_CASE("each image of a process that execs itself gets a file of its own") {
  forget_run();
  prof::RunClaim first_image;
  first_image.join(500);
  CHECK(first_image.claim("run.pb") == "run.pb");
  prof::RunClaim second_image, third_image;
  second_image.join(500);  // the same pid, after an exec
  third_image.join(500);
  CHECK(second_image.claim("run.pb") == "run.500.pb");
  CHECK(third_image.claim("run.pb") == "run.500.2.pb");
  first_image.finish();
  forget_run();
}
