// report's torch table built one file at a time (cli/report_file_by_file.h)
// gives the rows of one Run of every file: the same rows in the same order
// (first occurrence across files, ties by file), every column, the top-level
// flags; and a file that could change another file's figures sends report
// back to the one Run.
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "analyzer_test_support.h"
#include "cli/report_file_by_file.h"
#include "model/range_tree.h"
#include "model/run_builder.h"
#include "views/key_averages.h"

using namespace prof::analyzer;
using prof::testing::TempFile;

namespace {

enum Name : uint64_t {
  kLaunch = 1,
  kCopy,
  kDriverLaunch,
  kStep,
  kForward,
  kOperator,
  kScope,
  kKernelA,
  kKernelB,
  kKernelC,
};

struct RankOptions {
  uint32_t seed = 0;
  bool anchor = true;  // a clock anchor (the first anchored file sets the clock)
  bool operators = false;  // torch operator ranges (GPU work moves to them)
  bool scopes = true;      // record_function scopes ("ProfilerStep#N")
  bool segments = false;   // cudaMalloc's memory records, device and host
  bool tensors = false;    // tensor memory, device and host
};

// One rank's file of random nested ranges, runtime and driver calls,
// kernels and copies (some launched by no recorded call), on two threads.
// Times on a coarse grid from a shared range, so that ranks' first
// occurrences interleave and tie.
std::string random_rank(const RankOptions& o) {
  std::mt19937 random(o.seed);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
  prof::testing::CaptureFileWriter file(prof::testing::make_header(2, 0, "libprof 0.1.0"));
  prof::testing::ChunkBuilder chunk(0);
  auto& process = chunk.process(1000 + o.seed, 0);
  process.set_rank(static_cast<int32_t>(o.seed));
  if (o.anchor) {
    process.mutable_clock_anchor()->set_monotonic_ns(1'000 * pick(5));
    process.mutable_clock_anchor()->set_realtime_ns(1'700'000'000'000'000'000ull + 1'000 * pick(5));
  }
  chunk.string(kLaunch, "cudaLaunchKernel").string(kCopy, "cudaMemcpyAsync").string(kDriverLaunch, "cuLaunchKernel");
  chunk.string(kStep, "ProfilerStep#" + std::to_string(pick(3))).string(kForward, "forward");
  if (o.operators)
    chunk.string(kOperator, "aten::mm, seq = " + std::to_string(pick(9)) + ", op_id = 3, sizes = [[2, 3], [3]]");
  chunk.string(kScope, o.scopes ? "Optimizer.step#SGD.step" : "optimizer");
  chunk.string(kKernelA, "_Z7kernelAv").string(kKernelB, "_Z7kernelBv").string(kKernelC, "_Z7kernelCv");
  uint32_t correlation = 1;
  const std::vector<uint64_t> ranges = {kForward, o.scopes ? kStep : kForward, kScope,
                                        o.operators ? kOperator : kForward};
  // Calls inside [start, end) on `tid`, with their GPU work.
  auto calls = [&](uint32_t tid, uint64_t start, uint64_t end) {
    for (uint64_t t = start; t + 2'000 <= end; t += 2'000 * (1 + pick(2))) {
      const uint32_t id = correlation++;
      const bool copy = pick(4) == 0;
      chunk.api_call(tid, copy ? kCopy : kLaunch, t, t + 1'000 + 1'000 * pick(2) / 2, id);
      if (!copy && pick(3) == 0) {  // a driver call inside the runtime call
        chunk.api_call(tid, kDriverLaunch, t + 100, t + 400, 0).set_domain(prof::proto::DRIVER);
      }
      const uint64_t gpu = t + 1'000 * pick(4);
      if (copy) chunk.memcpy(gpu, gpu + 500 + 500 * pick(3), 1024u << pick(3), id);
      else chunk.kernel(kKernelA + pick(3), gpu, gpu + 1'000 * (1 + pick(3)), id);
      if (o.segments && pick(3) == 0) {
        auto& m = chunk.memory_event(t + 200, 4096u << pick(3));
        m.set_correlation_id(id);
        m.set_memory_kind(pick(2) ? prof::proto::DEVICE : prof::proto::PINNED);
      }
      if (o.tensors && pick(3) == 0)
        chunk.tensor_memory(t + 300, (pick(2) ? 512 : -256) * (1 + pick(4)), pick(3) == 0 ? -1 : 0);
    }
  };
  for (uint32_t tid : {7u, 8u}) {
    uint64_t t = 1'000 * pick(20);
    for (int step = 0; step < 6; ++step) {
      const uint64_t length = 20'000 + 1'000 * pick(20);
      const uint64_t outer = ranges[pick(static_cast<uint32_t>(ranges.size()))];
      chunk.range(tid, outer, t, t + length);
      const uint64_t inner = ranges[pick(static_cast<uint32_t>(ranges.size()))];
      const uint64_t inner_start = t + 1'000 * pick(3);
      const uint64_t inner_end = inner_start + length / 2;
      chunk.range(tid, inner, inner_start, inner_end);
      calls(tid, inner_start + 1'000, inner_end - 1'000);
      calls(tid, inner_end + 1'000, t + length - 1'000);
      t += length + 1'000 * pick(4);
    }
    calls(tid, t, t + 10'000);  // calls inside no range
  }
  for (int k = 0; k < 3; ++k) {  // GPU work no recorded call launched; tensor memory inside no event
    const uint64_t gpu = 1'000 * pick(50);
    chunk.kernel(kKernelA + pick(3), gpu, gpu + 2'000, 0);
    if (o.tensors) chunk.tensor_memory(500 + 1'000 * pick(300), 128, pick(2) ? -1 : 0);
  }
  file.chunk(chunk.finish());
  return file.bytes();
}

struct Files {
  std::vector<std::unique_ptr<TempFile>> temps;
  std::vector<std::string> paths;
  void add(const std::string& bytes) {
    temps.push_back(std::make_unique<TempFile>("file_by_file"));
    temps.back()->write(bytes);
    paths.push_back(temps.back()->path());
  }
};

// Every field of every row, one line each.
std::vector<std::string> lines(const std::vector<KeyAverage>& rows) {
  std::vector<std::string> out;
  for (const KeyAverage& r : rows) {
    std::ostringstream line;
    line << r.key << " | " << r.is_gpu << r.top_level << " | " << r.count << ' ' << r.cpu_total_ns << ' '
         << r.self_cpu_ns << ' ' << r.cuda_total_ns << ' ' << r.self_cuda_ns << ' ' << r.cpu_mem_bytes << ' '
         << r.self_cpu_mem_bytes << ' ' << r.cuda_mem_bytes << ' ' << r.self_cuda_mem_bytes << " | " << r.input_shapes;
    for (const std::string& frame : r.stack) line << " | " << frame;
    out.push_back(line.str());
  }
  return out;
}

std::vector<KeyAverage> one_run_rows(const std::vector<std::string>& paths, const GroupOptions& group) {
  Run run;
  std::ostringstream warnings;
  REQUIRE_FALSE(load_run(paths, run, warnings, LoadDepth::kGpuSums, 1));
  return key_averages(run, group);
}

FileByFileResult file_by_file_rows(const std::vector<std::string>& paths, const GroupOptions& group,
                                   std::vector<KeyAverage>& rows) {
  FileByFileTable table;
  std::ostringstream err;
  const FileByFileResult result = key_averages_file_by_file(paths, group, table, err);
  rows = std::move(table.rows);
  return result;
}

// The rows of each file's own Run, added one after the other, with no check.
std::vector<KeyAverage> unchecked_file_by_file_rows(const std::vector<std::string>& paths, const GroupOptions& group) {
  KeyAverageRows rows;
  std::ostringstream warnings;
  uint32_t process = 0;
  REQUIRE_FALSE(load_file_by_file(paths, warnings, LoadDepth::kGpuSums, 1, [&](Run& file_run) {
    rows.add_run(file_run, group, process++);
    return true;
  }));
  return std::move(rows).take();
}

}  // namespace

TEST_CASE("report's table file by file: the rows of one Run of every file, on random ranks",
          "[report][file_by_file]") {
  for (uint32_t trial = 0; trial < 40; ++trial) {
    std::mt19937 random(trial);
    Files files;
    const uint32_t ranks = 2 + static_cast<uint32_t>(random() % 5);
    // Operators in every file or in none, tensor memory in every file or
    // in none: a mix takes the one Run (below).
    const bool operators = random() % 2 == 0;
    const bool tensors = random() % 2 == 0;
    for (uint32_t r = 0; r < ranks; ++r) {
      RankOptions o;
      o.seed = trial * 100 + r;
      o.anchor = random() % 4 != 0;
      o.operators = operators;
      o.scopes = operators || random() % 2 == 0;
      o.tensors = tensors;
      o.segments = random() % 2 == 0;
      files.add(random_rank(o));
    }
    for (int grouping = 0; grouping < 3; ++grouping) {
      GroupOptions group;
      group.by_input_shape = grouping == 1;
      group.fold_driver_calls = grouping != 2;
      INFO("trial " << trial << ", " << ranks << " ranks, grouping " << grouping);
      const std::vector<std::string> expected = lines(one_run_rows(files.paths, group));
      REQUIRE(expected.size() > 5);
      for (const char* jobs : {"1", "3"}) {
        ::setenv("PROFANALYZE_JOBS", jobs, 1);
        std::vector<KeyAverage> rows;
        const FileByFileResult result = file_by_file_rows(files.paths, group, rows);
        ::unsetenv("PROFANALYZE_JOBS");
        REQUIRE(result == FileByFileResult::kDone);
        CHECK(lines(rows) == expected);
      }
    }
  }
}

TEST_CASE("report's table file by file: files one file's figures could change take the one Run",
          "[report][file_by_file]") {
  const GroupOptions group;
  std::vector<KeyAverage> rows;

  SECTION("operators in one file, record_function scopes without operators in another") {
    Files files;
    RankOptions o;
    o.operators = true;
    files.add(random_rank(o));
    o.seed = 1;
    o.operators = false;
    files.add(random_rank(o));
    CHECK(file_by_file_rows(files.paths, group, rows) == FileByFileResult::kNeedsOneRun);
    // Why: in one Run the second file's GPU work moves to its scopes, and
    // alone it does not.
    CHECK(lines(unchecked_file_by_file_rows(files.paths, group)) != lines(one_run_rows(files.paths, group)));
  }
  SECTION("memory segments in one file, tensor memory in another") {
    Files files;
    RankOptions o;
    o.tensors = true;
    files.add(random_rank(o));
    o.seed = 1;
    o.tensors = false;
    o.segments = true;
    files.add(random_rank(o));
    CHECK(file_by_file_rows(files.paths, group, rows) == FileByFileResult::kNeedsOneRun);
    // Why: in one Run the second file's segments give way to tensor memory.
    CHECK(lines(unchecked_file_by_file_rows(files.paths, group)) != lines(one_run_rows(files.paths, group)));
  }
  SECTION("a window file") {
    Files files;
    files.add(random_rank({}));
    prof::testing::CaptureFileWriter file(prof::testing::make_header(2, 0, "libprof 0.1.0"));
    prof::testing::ChunkBuilder chunk(0);
    chunk.process(78, 0).set_rank(1);
    auto* w = chunk.raw().mutable_window();
    w->set_index(0);
    w->set_first_step(-1);
    w->set_trigger("duration");
    file.chunk(chunk.finish());
    files.add(file.bytes());
    CHECK(file_by_file_rows(files.paths, group, rows) == FileByFileResult::kNeedsOneRun);
  }
  SECTION("a file that does not read: its error, the warnings before it") {
    Files files;
    files.add(random_rank({}));
    const std::string whole = random_rank({3});
    files.add(whole.substr(0, whole.size() - 3));  // a warning: a truncated last chunk
    files.add("not a capture");
    FileByFileTable table;
    std::ostringstream err;
    CHECK(key_averages_file_by_file(files.paths, group, table, err) == FileByFileResult::kBadInput);
    CHECK(err.str().find(files.paths[1]) != std::string::npos);
    CHECK(err.str().find(files.paths[2]) != std::string::npos);
  }
}

TEST_CASE("report's options that need the whole Run take it", "[report][file_by_file]") {
  ReportOptions options;
  CHECK(file_by_file_applies(options, 2));
  CHECK_FALSE(file_by_file_applies(options, 1));  // nothing to save
  ReportOptions stacks = options;
  stacks.group_by_stack_n = 2;  // frames named from the whole Run's modules
  CHECK_FALSE(file_by_file_applies(stacks, 2));
  ReportOptions steps = options;
  steps.windows.step = "auto";  // steps found over the whole Run
  CHECK_FALSE(file_by_file_applies(steps, 2));
  ReportOptions schedule = options;
  schedule.windows.schedule_given = true;
  CHECK_FALSE(file_by_file_applies(schedule, 2));
  ReportOptions view = options;
  view.view = "kernels";
  CHECK_FALSE(file_by_file_applies(view, 2));
  ReportOptions sorted = options;  // sorting, limits and formats read only the rows
  sorted.sort_by = "self_cuda_time_total";
  sorted.row_limit = 3;
  sorted.format = "json";
  sorted.group_by_input_shape = true;
  CHECK(file_by_file_applies(sorted, 2));
}
