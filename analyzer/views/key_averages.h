#pragma once
// Rows of the report: events grouped by name, like torch's key_averages().
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "model/torch_ranges.h"
#include "views/frame_names.h"

namespace prof::analyzer {

struct KeyAverage {
  std::string key;
  bool is_gpu = false;  // a kernel/memcpy/memset row: CPU columns are 0
  // The first occurrence had no parent (CPU rows) or no recorded launching
  // call (GPU rows): what --top-level-only keeps, as torch's cpu_parent test
  // does on the first event added to a group.
  bool top_level = true;
  uint64_t count = 0;
  uint64_t cpu_total_ns = 0;
  uint64_t self_cpu_ns = 0;
  uint64_t cuda_total_ns = 0;
  uint64_t self_cuda_ns = 0;
  int64_t cpu_mem_bytes = 0;
  int64_t self_cpu_mem_bytes = 0;
  int64_t cuda_mem_bytes = 0;
  int64_t self_cuda_mem_bytes = 0;
  std::string input_shapes;         // with group-by-input-shape
  std::vector<std::string> stack;  // with group-by-stack-n: the N innermost frames

  // Adds `other`'s count and figures (not its text): a row made of two.
  void add_sums(const KeyAverage& other) {
    count += other.count;
    cpu_total_ns += other.cpu_total_ns;
    self_cpu_ns += other.self_cpu_ns;
    cuda_total_ns += other.cuda_total_ns;
    self_cuda_ns += other.self_cuda_ns;
    cpu_mem_bytes += other.cpu_mem_bytes;
    self_cpu_mem_bytes += other.self_cpu_mem_bytes;
    cuda_mem_bytes += other.cuda_mem_bytes;
    self_cuda_mem_bytes += other.self_cuda_mem_bytes;
  }
};

struct GroupOptions {
  bool by_input_shape = false;
  int64_t by_stack_frames = 0;  // 0: stacks play no part
  const FrameNamer* frame_namer = nullptr;  // needed when by_stack_frames > 0
  // A driver call made inside a runtime call is no row of its own: its
  // self time (and any GPU work it launched) counts to the runtime call,
  // as Kineto, which records runtime calls only, shows them. false: their
  // own rows (report --driver-calls).
  bool fold_driver_calls = true;
};

// The row name of a CPU event: the NVTX name, "domain:name" outside the
// default domain (so equal names of different libraries stay apart). A
// range torch wrote under emit_nvtx is named as torch names it, its tail
// (", seq = N, op_id = M, sizes = [...]") parsed off; "name#N" with a
// counter folds to "name*", as torch's tables fold "ProfilerStep#N" to
// "ProfilerStep*".
std::string row_key(const Run& run, const CpuEvent& event);

// With torch operator ranges in the run, the GPU work an API call launched
// is its innermost enclosing operator's (or record_function scope's) Self
// CUDA, and the call's row has none, as in torch's table, where a kernel is
// its op's and cudaLaunchKernel shows 0.
//
// One row per key (CPU and GPU keys kept apart; with grouping options, per
// key and input shape and/or innermost frames), in order of first
// occurrence (earliest start over all processes), which is the order torch
// prints when no sort key is given. The CPU events' figures are summed per
// group as their threads are linked (cpu_group_sums.h), on `jobs` threads
// (0: one per core); the rows are the same whatever the number.
// `keep_links`: where to keep the parent links the walk made (see
// cpu_group_sums): html's flame graphs read them next, rather than linking
// the run's threads a second time.
std::vector<KeyAverage> key_averages(const Run& run, const GroupOptions& options = {}, unsigned jobs = 1,
                                     std::optional<RangeParents>* keep_links = nullptr);

// Where a row's earliest event comes in torch's first-occurrence order: by
// start, then process, CPU before GPU, then its place in the Run (only
// compared within one process, so a file's own place serves when files are
// added one at a time).
struct RowOccurrence {
  uint64_t start_ns = UINT64_MAX;
  uint32_t process = 0;
  bool is_gpu = false;
  size_t index = 0;

  bool operator<(const RowOccurrence& other) const {
    return std::tie(start_ns, process, is_gpu, index) < std::tie(other.start_ns, other.process, other.is_gpu, other.index);
  }
};

// The table's rows by their text (key, input shape, frames): sums added up
// and each row placed where its earliest event comes, taking that event's
// top-level flag. key_averages fills one from a Run; report fills one from
// each file's Run in turn (add_run with the file's process number), freeing
// each before the next, which gives the rows of one Run of every file as
// long as no figure of one file depends on another (report_file_by_file.h
// says when).
class KeyAverageRows {
 public:
  void add(bool is_gpu, std::string key, std::string shape, const std::vector<std::string>& stack,
           const RowOccurrence& first, bool top_level, const KeyAverage& sums);
  // The rows of `run`, its processes numbered from `first_process`; `jobs`
  // as key_averages'.
  // `keep_links`: as cpu_group_sums'.
  void add_run(const Run& run, const GroupOptions& options, uint32_t first_process, unsigned jobs = 1,
               std::optional<RangeParents>* keep_links = nullptr);
  // In first-occurrence order.
  std::vector<KeyAverage> take() &&;

 private:
  struct Row {
    RowOccurrence first;
    bool top_level = true;
    KeyAverage average;
  };
  std::vector<Row> rows_;
  std::map<std::tuple<bool, std::string, std::string, std::vector<std::string>>, size_t> row_of_;
};

}  // namespace prof::analyzer
