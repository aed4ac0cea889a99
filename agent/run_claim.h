#pragma once
// One run: every profiled process a command starts, however it starts them
// (`timeout 60 ./app`, `bash -c`, torchrun, mpirun with the environment
// passed on). The first agent of the tree names the run in PROF_RUN by its
// pid ($TMPDIR/libprof-run-<uid>-<pid>, so that a process whose environment
// lost PROF_RUN can name it from its ancestor); the agents of the processes
// it starts find it there. The run's small folder is that name and
// "-<start ticks>", the first process's start time, so that a run whose
// first process got the pid of a SIGKILLed run's never takes that run's
// folder; it is read from /proc only by a process that needs the folder.
// The run's mark, a symbolic link by the run's name alone made before the
// folder, tells the first process at its exit whether to look for one
// (/proc/self/stat was the dearest system call of a process that never
// records, issue #30). The folder is made by the first process of the run
// that needs it (one that records, or has a
// warning to say once): a run that records nothing makes none, since a
// mkdir and rmdir on the disk were most of the start-up cost of every
// process of a shell pipeline under LD_PRELOAD (issue #30). Through it:
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

  // Joins the run named in the environment, or the run of its nearest
  // ancestor whose start environment names one (bash hands its children the
  // environment it started with), or starts one (this process, or the
  // topmost of its ancestors that preload `agent_library` without a run,
  // is then the run's first). Sets PROF_RUN for the processes this one
  // starts. Makes no folder: claim() and say_once() do, when first needed.
  void join(uint32_t pid, const std::string& agent_library = {});
  bool first_of_run() const { return first_; }
  // A child forked without exec never claims the run's name, even when it
  // records before its parent: the parent's file is PROF_OUTPUT, each
  // child's <name>.<pid>.pb beside it (issue 16), whatever the order.
  void mark_forked_child() { forked_ = true; }
  bool has_folder() const { return !folder_.empty() || !mark_.empty(); }

  // The file this process writes instead of `wanted`: `wanted` itself when
  // no other process of the run has claimed it, else <name>.<pid>.<ext>, or
  // for a later image of the same pid (exec) <name>.<pid>.<n>.<ext>.
  // Called once, when the process has something to write.
  std::string claim(const std::string& wanted);

  // Whether this process should say `line` (a configuration warning): once
  // per run, by whichever process says it first. True without a folder.
  bool say_once(const char* line);

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
  // The folder, made if it is not there yet (and then the folders of runs
  // whose first process is gone swept). False when there is none: no
  // usable $TMPDIR, or PROF_RUN names no run in progress (said).
  bool ensure_folder();
  // Whether the run's first process, as the folder's name gives it, runs.
  bool first_process_runs() const;
  // The run as PROF_RUN names it: its folder ("-": none), or its name by
  // its first process's pid alone (the mark's).
  void name_run(const std::string& run);
  // At the first process's end: its mark (if any) removed, the run forgotten.
  void remove_mark();

  uint32_t pid_ = 0;
  uint32_t first_pid_ = 0;
  bool first_ = false;
  bool forked_ = false;
  bool folder_made_ = false;  // seen or made by ensure_folder()
  std::string folder_;  // empty: none, or not known yet (mark_)
  // The run's name by its first process's pid alone, the folder's without
  // "-<start ticks>", where a symbolic link to the folder is made before it
  // is; empty for a run PROF_RUN names by its folder.
  std::string mark_;
};

}  // namespace prof
