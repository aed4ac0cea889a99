#include <catch2/catch.hpp>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "proc_stat.h"
#include "run_claim.h"

namespace {

// A TMPDIR of this test's own: a run that makes its folder sweeps the
// folders of runs whose first process is gone.
const std::string& private_tmp() {
  static const std::string made = [] {
    char pattern[] = "/tmp/run_claim_test-XXXXXX";
    const char* folder = mkdtemp(pattern);
    return std::string(folder != nullptr ? folder : "/tmp");
  }();
  return made;
}

// Each case starts a run of its own, as a fresh launch would. The run's
// first process is this one (its folder is named by a running process);
// the others are made-up pids that find the run in the environment.
void forget_run() {
  unsetenv("PROF_RUN");
  unsetenv("PROF_RUN_PID");
  setenv("TMPDIR", private_tmp().c_str(), 1);
}

uint32_t self() { return static_cast<uint32_t>(getpid()); }

bool is_folder(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> run_folders() {
  std::vector<std::string> names;
  if (DIR* dir = opendir(private_tmp().c_str())) {
    while (const dirent* entry = readdir(dir)) {
      if (std::string(entry->d_name).rfind("libprof-run-", 0) == 0) names.emplace_back(entry->d_name);
    }
    closedir(dir);
  }
  return names;
}

// A pid no process has.
uint32_t dead_pid() {
  uint32_t pid = 4194303;
  while (prof::process_exists(pid)) --pid;
  return pid;
}

// The run of first process `pid` as PROF_RUN names it, and the name of its
// mark (a symbolic link to its folder).
std::string run_name(uint32_t pid) {
  return private_tmp() + "/libprof-run-" + std::to_string(getuid()) + "-" + std::to_string(pid);
}

std::string folder_name(uint32_t pid, const std::string& ticks) { return run_name(pid) + "-" + ticks; }

bool is_link(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

}  // namespace

TEST_CASE("the first process to claim an output gets it; the others get their pid's name") {
  forget_run();
  prof::RunClaim launcher;
  launcher.join(self());
  REQUIRE(launcher.first_of_run());
  // Named by the first process's pid; its folder by its start time too.
  CHECK(std::string(getenv("PROF_RUN")) == run_name(self()));
  const std::string folder = folder_name(self(), prof::process_start_ticks(0));
  CHECK(!is_folder(folder));  // made by the first process that records
  CHECK(!is_link(run_name(self())));

  prof::RunClaim program, worker;
  program.join(101);  // started by the launcher: the environment names the run
  worker.join(102);
  CHECK(!program.first_of_run());
  CHECK(program.claim("out/x.pb") == "out/x.pb");
  CHECK(is_folder(folder));
  CHECK(is_link(run_name(self())));  // made before the folder, for the first process's exit
  CHECK(worker.claim("out/x.pb") == "out/x.102.pb");
  CHECK(worker.claim("out/y.pb") == "out/y.pb");  // another output: its own claim

  CHECK(program.note_written("out/x.pb", 1234));
  CHECK(worker.note_written("out/x.102.pb", 56));
  CHECK(program.finish().empty());  // only the run's first process speaks
  CHECK(launcher.finish() == "wrote 2 files: out/x.pb (1234 bytes), out/x.102.pb (56 bytes)");
  CHECK(!is_folder(folder));
  CHECK(run_folders().empty());  // the mark too

  // A process that ends after the first one: its note fails, it speaks itself.
  CHECK(!worker.note_written("out/x.102.pb", 56));
  forget_run();
}

TEST_CASE("a run that records nothing makes no folder and says so once; one file is named alone") {
  forget_run();
  prof::RunClaim quiet;
  quiet.join(self());
  prof::RunClaim quiet_child;
  quiet_child.join(201);
  CHECK(quiet_child.finish().empty());
  CHECK(run_folders().empty());
  CHECK(quiet.finish() == "nothing recorded; no file written");
  CHECK(run_folders().empty());
  forget_run();

  prof::RunClaim alone;
  alone.join(self());
  CHECK(alone.claim("run.pb") == "run.pb");
  CHECK(alone.note_written("run.pb", 9));
  CHECK(alone.finish() == "wrote run.pb (9 bytes)");
  CHECK(run_folders().empty());
  forget_run();
}

TEST_CASE("the run's line says how many GPU records never came, per file") {
  forget_run();
  prof::RunClaim launcher, program, worker;
  launcher.join(self());
  program.join(501);  // started by the launcher: the environment names the run
  worker.join(502);
  CHECK(program.claim("x.pb") == "x.pb");  // the first claim makes the run's folder
  CHECK(worker.claim("x.pb") == "x.502.pb");
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
  shell.join(self());
  prof::RunClaim same_process_after_exec;
  same_process_after_exec.join(self());
  CHECK(same_process_after_exec.first_of_run());
  CHECK(same_process_after_exec.finish() == "nothing recorded; no file written");
  forget_run();
}

TEST_CASE("each image of a process that execs itself gets a file of its own") {
  forget_run();
  prof::RunClaim first_image;
  first_image.join(self());
  CHECK(first_image.claim("run.pb") == "run.pb");
  prof::RunClaim second_image, third_image;
  second_image.join(self());  // the same pid, after an exec
  third_image.join(self());
  const std::string pid = std::to_string(self());
  CHECK(second_image.claim("run.pb") == "run." + pid + ".pb");
  CHECK(third_image.claim("run.pb") == "run." + pid + ".2.pb");
  first_image.finish();
  forget_run();
}

TEST_CASE("a PROF_RUN whose first process is gone makes no folder and claims nothing") {
  forget_run();
  const uint32_t gone = dead_pid();
  const std::string stray = folder_name(gone, "12345");
  setenv("PROF_RUN", stray.c_str(), 1);
  setenv("PROF_RUN_PID", std::to_string(gone).c_str(), 1);
  prof::RunClaim left_behind;
  left_behind.join(701);
  CHECK(!left_behind.first_of_run());
  CHECK(left_behind.claim("run.pb") == "run.701.pb");
  CHECK(!is_folder(stray));
  CHECK(left_behind.say_once("a warning"));  // no folder: said by each
  forget_run();
}

TEST_CASE("the run that first makes its folder sweeps those of runs whose first process is gone") {
  forget_run();
  const uint32_t gone = dead_pid();
  const std::string stale = folder_name(gone, "777");
  // A run of this very pid from before (another start time): gone too.
  const std::string reused_pid = folder_name(self(), "1");
  // A run whose first process (this one's parent) still runs: kept.
  const uint32_t parent = static_cast<uint32_t>(getppid());
  const std::string live = folder_name(parent, prof::process_start_ticks(parent));
  // Not a name the agent makes: a start time with a '-' in it.
  const std::string malformed = folder_name(parent, prof::process_start_ticks(parent) + "-1");
  REQUIRE(mkdir(stale.c_str(), 0700) == 0);
  REQUIRE(mkdir(reused_pid.c_str(), 0700) == 0);
  REQUIRE(mkdir(live.c_str(), 0700) == 0);
  REQUIRE(mkdir(malformed.c_str(), 0700) == 0);
  REQUIRE(symlink("libprof-run-x-777", run_name(gone).c_str()) == 0);
  // Its mark, which the new run of this pid finds in place: kept, and then
  // the new run's (it only says "look" at the first process's exit).
  REQUIRE(symlink("libprof-run-x-1", run_name(self()).c_str()) == 0);
  prof::RunClaim run;
  run.join(self());
  CHECK(is_folder(stale));  // a process that records nothing sweeps nothing
  CHECK(run.claim("run.pb") == "run.pb");
  CHECK(!is_folder(stale));
  CHECK(!is_link(run_name(gone)));
  CHECK(!is_folder(reused_pid));
  CHECK(!is_folder(malformed));
  CHECK(is_folder(live));
  CHECK(is_link(run_name(self())));
  CHECK(run_folders().size() == 3);  // the live run's folder, this run's folder and mark
  REQUIRE(rmdir(live.c_str()) == 0);
  CHECK(run.note_written("run.pb", 5));
  CHECK(run.finish() == "wrote run.pb (5 bytes)");
  CHECK(run_folders().empty());
  forget_run();
}

TEST_CASE("a first process that finds a mark but no folder of its run says nothing was recorded") {
  forget_run();
  // A SIGKILLed run of this pid left its mark: the folder is looked for by
  // this run's start time, and is not there.
  REQUIRE(symlink("libprof-run-x-1", run_name(self()).c_str()) == 0);
  prof::RunClaim run;
  run.join(self());
  CHECK(run.finish() == "nothing recorded; no file written");
  CHECK(run_folders().empty());
  forget_run();
}

TEST_CASE("a run named by a first process that is gone makes no folder and claims nothing") {
  forget_run();
  const uint32_t gone = dead_pid();
  setenv("PROF_RUN", run_name(gone).c_str(), 1);
  setenv("PROF_RUN_PID", std::to_string(gone).c_str(), 1);
  prof::RunClaim left_behind;
  left_behind.join(703);
  CHECK(left_behind.claim("run.pb") == "run.703.pb");
  CHECK(run_folders().empty());
  CHECK(left_behind.say_once("a warning"));  // no folder: said by each
  forget_run();
}

namespace {

// Starts `sh -c 'sleep 30 & echo $!; wait'` with `environment` added, and
// returns the sh's pid and its child's: a child whose parent started with
// that environment, as bash's children see theirs.
struct ShellWithChild {
  pid_t shell = -1;
  uint32_t child = 0;
};

ShellWithChild start_shell(const std::vector<std::string>& environment) {
  int out[2];
  REQUIRE(pipe(out) == 0);
  ShellWithChild started;
  started.shell = fork();
  REQUIRE(started.shell >= 0);
  if (started.shell == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    std::vector<char*> env;
    for (const std::string& entry : environment) env.push_back(const_cast<char*>(entry.c_str()));
    env.push_back(nullptr);
    char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"),
                    const_cast<char*>("sleep 30 & echo $!; wait"), nullptr};
    execve("/bin/sh", argv, env.data());
    _exit(127);
  }
  close(out[1]);
  char line[32] = {};
  const ssize_t n = read(out[0], line, sizeof line - 1);
  close(out[0]);
  REQUIRE(n > 0);
  started.child = static_cast<uint32_t>(strtoul(line, nullptr, 10));
  return started;
}

void stop(const ShellWithChild& started) {
  kill(static_cast<pid_t>(started.child), SIGKILL);
  kill(started.shell, SIGKILL);
  waitpid(started.shell, nullptr, 0);
}

}  // namespace

TEST_CASE("a process whose environment lost PROF_RUN finds its run through its ancestors") {
  forget_run();
  SECTION("the parent started with a PROF_RUN: its run") {
    const ShellWithChild started = start_shell({"PROF_RUN=/somewhere/libprof-run-0-42-7", "PROF_RUN_PID=42"});
    prof::RunClaim lost;
    lost.join(started.child, "/opt/x/libprof.so");
    stop(started);
    CHECK(!lost.first_of_run());
    CHECK(std::string(getenv("PROF_RUN")) == "/somewhere/libprof-run-0-42-7");
    CHECK(std::string(getenv("PROF_RUN_PID")) == "42");
  }
  SECTION("the parent's start environment spans pages: read whole") {
    // /proc/PID/environ is read until a read comes short (run_claim.cpp).
    const std::string padding = "PADDING=" + std::string(3 * 4096 + 100, 'x');
    const ShellWithChild started =
        start_shell({padding, "PROF_RUN=/somewhere/libprof-run-0-43-8", "PROF_RUN_PID=43"});
    prof::RunClaim lost;
    lost.join(started.child, "/opt/x/libprof.so");
    stop(started);
    CHECK(std::string(getenv("PROF_RUN")) == "/somewhere/libprof-run-0-43-8");
    CHECK(std::string(getenv("PROF_RUN_PID")) == "43");
  }
  SECTION("the parent preloads the agent without a run: it is the run's first process") {
    // A path that is not there: the loader says so and sh runs on.
    const ShellWithChild started = start_shell({"LD_PRELOAD=/nonexistent/libprof.so"});
    prof::RunClaim lost;
    lost.join(started.child, "/opt/x/libprof.so");
    stop(started);
    CHECK(!lost.first_of_run());
    CHECK(std::string(getenv("PROF_RUN")) == run_name(static_cast<uint32_t>(started.shell)));
    CHECK(std::string(getenv("PROF_RUN_PID")) == std::to_string(started.shell));
  }
  SECTION("the parent has nothing of the agent: a run of its own") {
    const ShellWithChild started = start_shell({"LD_PRELOAD=/nonexistent/libother.so"});
    prof::RunClaim own;
    own.join(started.child, "/opt/x/libprof.so");
    stop(started);
    CHECK(own.first_of_run());
    CHECK(std::string(getenv("PROF_RUN")) == run_name(started.child));
  }
  forget_run();
}
