#pragma once
// Loads capture files into a Run: reads chunk by chunk, applies each
// chunk's definitions before its records (FORMAT.md, Interning), decodes
// delta-encoded times, resolves interned names, then links GPU activity to
// the API calls that launched it.
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "io/read_error.h"
#include "model/run.h"

namespace prof::analyzer {

// What a load keeps: everything; every event but the GPU records, summed
// instead as they are read (Run::gpu_work_sums, Run::launched_gpu_ns: what
// report's table needs; 16 bytes per record until finish() rather than
// GpuActivity's 48, then 8 per CPU event); or
// (for `info`) only each file's ProcessInfo, whose counts and times still
// cover every record. All check the whole file for corruption alike.
enum class LoadDepth { kEvents, kGpuSums, kSummary };

// One file read on its own, into a Run of its own (one process; names,
// stacks, frames, modules and kernel configs of that file only), with the
// warnings it gave or the error that stopped it. It touches nothing shared,
// so files load on several threads at once; RunBuilder::append then adds
// them to one Run in the order of the command line.
struct LoadedFile {
  Run run;
  std::string warnings;  // lines, each ending in '\n'
  std::optional<ReadError> error;
  // By the file Run's NameId: the names API calls carry, whose
  // Run::callback_ids entries the file sets.
  std::vector<bool> api_call_names;
};
// `decode_threads` threads decode its chunks ahead of the loading
// (ParallelRecordDecoder); 0: all on this thread.
[[nodiscard]] LoadedFile load_file(const std::string& path, LoadDepth depth, unsigned decode_threads = 0);

class RunBuilder {
 public:
  explicit RunBuilder(Run& run, LoadDepth depth = LoadDepth::kEvents) : run_(run), depth_(depth) {}

  // Adds one file as one more process. Non-fatal problems (a truncated last
  // chunk) go to `warnings` as one line each; a fatal one is returned, and
  // the Run must then not be used.
  // `decode_threads` as load_file's.
  [[nodiscard]] std::optional<ReadError> add_file(const std::string& path, std::ostream& warnings,
                                                  unsigned decode_threads = 0);
  // The same for a file load_file read (on any thread): the Run it gives
  // is the one add_file gives, index for index (at the price of copying
  // the file's events into the Run).
  [[nodiscard]] std::optional<ReadError> append(LoadedFile&& file, std::ostream& warnings);

  // Places every file on the first file's clock (Process.clock_anchor),
  // then links GPU activities and memory events to their API calls. Call
  // once, after the last add_file.
  void finish();
  // The same for a Run of one file among several loaded apart
  // (load_file_by_file): its times move onto `clock`, the (realtime -
  // monotonic) offset of the first file with a clock anchor, which this
  // sets when unset and the file has one.
  void finish(std::optional<uint64_t>& clock);

 private:
  void align_clocks(std::optional<uint64_t>& clock);
  void link_to_launching_calls();

  Run& run_;
  LoadDepth depth_;
};

// What add_file and append return for a file past Run::kMaxProcesses (the
// run is not changed): a clear error, never a process index that wraps.
[[nodiscard]] ReadError too_many_files(const std::string& path);

// One RunBuilder over `paths`, then finish(), on `jobs` cores (0: all):
// several files are read side by side, one file's chunks decoded on other
// threads; the Run, the warnings and the error are those of reading them
// one by one on this thread, which jobs = 1 does (load_run.cpp).
[[nodiscard]] std::optional<ReadError> load_run(const std::vector<std::string>& paths, Run& run,
                                               std::ostream& warnings, LoadDepth depth = LoadDepth::kEvents,
                                               unsigned jobs = 0);

// The same files, each in a Run of its own (process 0) handed to `each` in
// command-line order as soon as it and all before it are read, then freed:
// memory for `jobs` files at a time, not for all. Each is placed on the
// first anchored file's clock and linked, so its events are those load_run
// gives that file, but for their process and their index. `each` returns
// false to stop reading (nullopt returned); the warnings of the files
// handed over go to `warnings`.
using EachLoadedRun = std::function<bool(Run& file_run)>;
[[nodiscard]] std::optional<ReadError> load_file_by_file(const std::vector<std::string>& paths,
                                                        std::ostream& warnings, LoadDepth depth, unsigned jobs,
                                                        const EachLoadedRun& each);

}  // namespace prof::analyzer
