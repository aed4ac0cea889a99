#pragma once
// One run: every profiled process a command starts, however it starts them
// (`timeout 60 ./app`, `bash -c`, torchrun, mpirun with the environment
// passed on). The first agent of the tree makes a small folder for the run
// in $TMPDIR and names it in PROF_RUN; the agents of the processes it
// starts find it there. Through it:
//
// - the output file goes where the user asked: the first process that
//   records something claims PROF_OUTPUT (an O_EXCL file in the folder, per
//   output path); the others write <name>.<pid>.pb beside it. A launcher
//   that records nothing claims nothing;
// - stderr gets one line per run: each process that wrote a file notes it
//   in the folder, and the first process says at its exit what the run
//   wrote (or that nothing was recorded), then removes the folder. A
//   process that ends after the first one is gone says it itself.
//
// Without a usable folder (no writable $TMPDIR) every process is on its
// own: the first of the tree writes PROF_OUTPUT, the others their
// <name>.<pid>.pb, and each says what it wrote.
#include <cstdint>
#include <string>

namespace prof {

class RunClaim {
 public:
  static constexpr char kNothingWritten[] = "nothing recorded; no file written";

  // Joins the run named in the environment, or starts one (this process is
  // then the run's first). Sets PROF_RUN for the processes this one starts.
  void join(uint32_t pid);
  bool first_of_run() const { return first_; }
  // A child forked without exec never claims the run's name, even when it
  // records before its parent: the parent's file is PROF_OUTPUT, each
  // child's <name>.<pid>.pb beside it (issue 16), whatever the order.
  void mark_forked_child() { forked_ = true; }
  bool has_folder() const { return !folder_.empty(); }

  // The file this process writes instead of `wanted`: `wanted` itself when
  // no other process of the run has claimed it, else <name>.<pid>.<ext>, or
  // for a later image of the same pid (exec) <name>.<pid>.<n>.<ext>.
  // Called once, when the process has something to write.
  std::string claim(const std::string& wanted);

  // Whether this process should say `line` (a configuration warning): once
  // per run, by whichever process says it first. True without a folder.
  bool say_once(const char* line) const;

  // Notes a file this process wrote, and how many of its GPU records never
  // came (ProcessEnd.gpu_records_missing). False when the run's first
  // process is gone (or there is no folder): the caller says it itself.
  bool note_written(const std::string& path, uint64_t bytes, uint32_t gpu_records_missing = 0);

  // A written file as the run's line names it: "run.pb (12345 bytes)", and
  // "; 2 GPU records never came (still running at exit)" when some did not.
  static std::string describe_file(const std::string& path, uint64_t bytes, uint32_t gpu_records_missing);
  // That "; N GPU records never came (...)", or nothing when none is missing.
  static std::string missing_gpu_records(uint32_t gpu_records_missing);

  // For the run's first process, at its exit: the run's one line ("wrote
  // run.pb (12345 bytes)", "wrote 3 files: ...", "nothing recorded; no file
  // written"), the folder removed. Empty for the other processes.
  std::string finish();

 private:
  // Claims `path` for this process (an O_EXCL file in the folder).
  bool take(const std::string& path) const;

  uint32_t pid_ = 0;
  bool first_ = false;
  bool forked_ = false;
  std::string folder_;  // empty: none
};

}  // namespace prof
