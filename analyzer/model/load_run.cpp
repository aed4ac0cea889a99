// load_run: several capture files read on every core, appended in order;
// one file's chunks decoded ahead on other cores (ParallelRecordDecoder).
//
// Each file is read into a Run of its own by load_file (decoding, interning
// and resolving are per file: ids are per file), on a pool of `jobs`
// threads that take the files in command-line order; this thread appends
// each one with RunBuilder::append as soon as it and all before it are
// read. Appending renumbers the file's names, stacks and kernel configs
// after the Run's in the file's own order of first use, which is what a
// one-by-one load gives (RunBuilder::add_file, straight into the Run, as
// PROFANALYZE_JOBS=1 reads), so every view's output is the same whatever
// the thread count (views_unit_tests [parallel] compares the two).
//
// load_file_by_file reads the same way but hands each file's Run over
// alone (report's table, cli/report_file_by_file.h), so that memory is
// `jobs` files' at most, not the sum of all of them.
//
// Memory: the Run holds every file's events, as before; the pool adds at
// most `jobs` files read ahead of the one being appended (a file is not
// started until fewer than `jobs` files wait), so a thousand small files
// and a few large ones both cost the Run plus `jobs` files' tables.
#include <malloc.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "model/cores.h"
#include "model/run_builder.h"

namespace prof::analyzer {
namespace {

class FilePool {
 public:
  FilePool(const std::vector<std::string>& paths, LoadDepth depth, unsigned jobs)
      : paths_(paths), depth_(depth), jobs_(jobs), files_(paths.size()) {
    for (unsigned i = 0; i < jobs; ++i) threads_.emplace_back([this] { work(); });
  }
  ~FilePool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  FilePool(const FilePool&) = delete;
  FilePool& operator=(const FilePool&) = delete;

  // File `index` once read; call with 0, 1, 2, ... in turn.
  LoadedFile take(size_t index) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return files_[index].has_value(); });
    LoadedFile file = std::move(*files_[index]);
    files_[index].reset();
    taken_ = index + 1;
    lock.unlock();
    changed_.notify_all();  // room for one more file ahead
    return file;
  }

 private:
  void work() {
    for (;;) {
      size_t index = 0;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || next_ == paths_.size() || next_ < taken_ + jobs_; });
        if (stop_ || next_ == paths_.size()) return;
        index = next_++;
      }
      LoadedFile file = load_file(paths_[index], depth_);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        files_[index] = std::move(file);
      }
      changed_.notify_all();
    }
  }

  const std::vector<std::string>& paths_;
  const LoadDepth depth_;
  const size_t jobs_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::optional<LoadedFile>> files_;  // read, not yet taken
  size_t next_ = 0;   // the next file a thread starts
  size_t taken_ = 0;  // files taken so far
  bool stop_ = false;
  std::vector<std::thread> threads_;  // last: started once the rest is set
};

}  // namespace

std::optional<ReadError> load_run(const std::vector<std::string>& paths, Run& run, std::ostream& warnings,
                                 LoadDepth depth, unsigned jobs) {
  // The builder would refuse it too, but only once the files before it are read.
  if (paths.size() > Run::kMaxProcesses) return too_many_files(paths[Run::kMaxProcesses]);
  const unsigned cores = cores_for(jobs);
  jobs = static_cast<unsigned>(std::min<size_t>(cores, paths.size()));
  RunBuilder builder(run, depth);
  if (jobs <= 1) {
    // One file at a time: its chunks are decoded ahead on another core.
    // A second decoding thread would shorten the loader's waits (decoding
    // is the larger half now), but held 67 MB more at 10M events (the
    // threads' heap arenas), against report's memory target.
    const unsigned decode_threads = std::min(cores - 1, 1u);
    for (const std::string& path : paths)
      if (auto error = builder.add_file(path, warnings, decode_threads)) return error;
  } else {
    FilePool pool(paths, depth, jobs);
    for (size_t i = 0; i < paths.size(); ++i)
      if (auto error = builder.append(pool.take(i), warnings)) return error;
  }
  // The decoded chunks, freed, stay resident in their threads' heap arenas
  // (50 MB at 10M events, more with a decoding thread per core) under
  // finish()'s tables and the views' to come: handed back before either.
  malloc_trim(0);
  builder.finish();
  malloc_trim(0);  // and what finish() freed (its GPU times to link)
  return std::nullopt;
}

std::optional<ReadError> load_file_by_file(const std::vector<std::string>& paths, std::ostream& warnings,
                                           LoadDepth depth, unsigned jobs, const EachLoadedRun& each) {
  const unsigned cores = cores_for(jobs);
  jobs = static_cast<unsigned>(std::min<size_t>(cores, paths.size()));
  std::optional<uint64_t> clock;
  // One file's Run, finished and handed over, then freed before the next.
  auto hand_over = [&](Run& file_run, RunBuilder& builder) {
    builder.finish(clock);
    const bool more = each(file_run);
    // Freed, a file's tables stay resident in the heap arenas of the
    // threads that read it, where the next file may not fit them: 64 files
    // held 350 MB on one core, 860 MB on two, against 110 and 240 handed back.
    file_run = Run();
    malloc_trim(0);
    return more;
  };
  if (jobs <= 1) {
    const unsigned decode_threads = std::min(cores - 1, 1u);  // as load_run's
    for (const std::string& path : paths) {
      Run file_run;
      RunBuilder builder(file_run, depth);
      if (auto error = builder.add_file(path, warnings, decode_threads)) return error;
      if (!hand_over(file_run, builder)) return std::nullopt;
    }
  } else {
    FilePool pool(paths, depth, jobs);
    for (size_t i = 0; i < paths.size(); ++i) {
      Run file_run;
      RunBuilder builder(file_run, depth);
      if (auto error = builder.append(pool.take(i), warnings)) return error;
      if (!hand_over(file_run, builder)) return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace prof::analyzer
