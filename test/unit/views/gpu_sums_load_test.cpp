// A load that sums the GPU records as it reads them (LoadDepth::kGpuSums,
// what report's table and stacks' self CPU time load) gives key_averages
// the rows (and folded_stacks the stacks) of a load that
// keeps every GpuActivity: no record counted twice or lost, the same first
// occurrence, top-level flag and per-call GPU time, one file at a time or
// several files read side by side.
#include <catch2/catch.hpp>

#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "advise_capture.h"
#include "analyzer_test_support.h"
#include "golden_capture.h"
#include "model/range_tree.h"
#include "model/run_builder.h"
#include "training_capture.h"
#include "views/folded_stacks.h"
#include "views/key_averages.h"
#include "views_capture.h"

using namespace prof::analyzer;
using prof::testing::TempFile;

namespace {

// Ranks with clocks of their own (so the sums' first starts are shifted),
// and programs with torch operators (GPU time moved to them), memory and
// driver calls.
std::vector<std::unique_ptr<TempFile>> captures() {
  std::vector<std::string> bytes;
  for (uint32_t rank = 0; rank < 3; ++rank) {
    prof::testing::ViewsCaptureOptions options;
    options.pid = 6000 + rank;
    options.rank = static_cast<int32_t>(rank);
    options.realtime_offset_ns += rank * 2'000'003ull;
    bytes.push_back(prof::testing::views_capture(options));
  }
  bytes.push_back(prof::testing::golden_capture_bytes());
  bytes.push_back(prof::testing::TrainingCapture::bytes(4));
  bytes.push_back(prof::testing::advise_capture_bytes());
  std::vector<std::unique_ptr<TempFile>> files;
  for (const std::string& b : bytes) {
    files.push_back(std::make_unique<TempFile>("gpu_sums"));
    files.back()->write(b);
  }
  return files;
}

Run load(const std::vector<std::string>& paths, LoadDepth depth, unsigned jobs) {
  Run run;
  std::ostringstream warnings;
  REQUIRE_FALSE(load_run(paths, run, warnings, depth, jobs).has_value());
  return run;
}

void check_same_rows(const std::vector<KeyAverage>& expected, const std::vector<KeyAverage>& got) {
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("row " << i << ": " << expected[i].key);
    CHECK(got[i].key == expected[i].key);
    CHECK(got[i].is_gpu == expected[i].is_gpu);
    CHECK(got[i].top_level == expected[i].top_level);
    CHECK(got[i].count == expected[i].count);
    CHECK(got[i].cpu_total_ns == expected[i].cpu_total_ns);
    CHECK(got[i].self_cpu_ns == expected[i].self_cpu_ns);
    CHECK(got[i].cuda_total_ns == expected[i].cuda_total_ns);
    CHECK(got[i].self_cuda_ns == expected[i].self_cuda_ns);
    CHECK(got[i].cpu_mem_bytes == expected[i].cpu_mem_bytes);
    CHECK(got[i].self_cuda_mem_bytes == expected[i].self_cuda_mem_bytes);
    CHECK(got[i].input_shapes == expected[i].input_shapes);
  }
}

}  // namespace

TEST_CASE("GPU records summed as they are read give the rows of every record kept", "[model][gpu_sums]") {
  const auto files = captures();
  std::vector<std::string> paths;
  for (const auto& f : files) paths.push_back(f->path());
  const Run events = load(paths, LoadDepth::kEvents, 1);
  REQUIRE(events.gpu_activities.size() > 20);
  REQUIRE(events.gpu_work_sums.empty());

  for (unsigned jobs : {1u, 4u}) {
    INFO("jobs " << jobs);
    const Run sums = load(paths, LoadDepth::kGpuSums, jobs);
    CHECK(sums.gpu_activities.empty());
    CHECK(sums.gpu_times_to_link.empty());  // linked and freed by finish
    CHECK(sums.gpu_times_to_link_ends.empty());
    CHECK(sums.cpu_events.size() == events.cpu_events.size());

    // Every record once: the counts and times add up to the table's.
    uint64_t count = 0, total_ns = 0;
    for (const GpuWorkSum& s : sums.gpu_work_sums) {
      count += s.count;
      total_ns += s.total_ns;
    }
    uint64_t expected_ns = 0;
    for (const GpuActivity& a : events.gpu_activities) expected_ns += a.duration_ns();
    CHECK(count == events.gpu_activities.size());
    CHECK(total_ns == expected_ns);

    // Each call's launched GPU time, as RangeTree sums it from the records.
    const RangeTree full(events), summed(sums);
    for (size_t i = 0; i < events.cpu_events.size(); ++i) {
      INFO("CPU event " << i);
      REQUIRE(summed.self_gpu_ns(i) == full.self_gpu_ns(i));
      REQUIRE(summed.gpu_total_ns(i) == full.gpu_total_ns(i));
    }

    // stacks' self CPU time: the kernels' names (their launch stubs) from the sums.
    FoldedStacksOptions fold;
    fold.metric = StackMetric::kSelfCpu;
    const std::vector<FoldedStack> expected_stacks = folded_stacks(events, full, fold);
    const std::vector<FoldedStack> got_stacks = folded_stacks(sums, summed, fold);
    REQUIRE(got_stacks.size() == expected_stacks.size());
    for (size_t i = 0; i < got_stacks.size(); ++i) {
      CHECK(got_stacks[i].frames == expected_stacks[i].frames);
      CHECK(got_stacks[i].ns == expected_stacks[i].ns);
    }

    for (const bool by_shape : {false, true}) {
      for (const bool fold : {true, false}) {
        INFO("by shape " << by_shape << ", fold driver calls " << fold);
        GroupOptions options;
        options.by_input_shape = by_shape;
        options.fold_driver_calls = fold;
        check_same_rows(key_averages(events, options), key_averages(sums, options));
      }
    }
  }
}

namespace {

// A window file: one kernel, launched by one call, in window `index`.
std::string window_file(uint32_t index, const std::string& kernel) {
  prof::testing::CaptureFileWriter file(prof::testing::make_header(2, 0, "libprof 0.1.0"));
  const uint64_t base = 1'000'000 + index * 1'000'000ull;
  prof::testing::ChunkBuilder chunk(base);
  chunk.process(100 + index, base).set_rank(0);
  chunk.string(1, "cudaLaunchKernel").string(2, kernel);
  chunk.api_call(1, 1, base + 1'000, base + 2'000, 1);
  chunk.kernel(2, base + 3'000, base + 7'000, 1);
  auto* w = chunk.raw().mutable_window();
  w->set_index(index);
  w->set_first_step(-1);
  w->set_trigger("duration");
  file.chunk(chunk.finish());
  return file.bytes();
}

}  // namespace

TEST_CASE("report's table over window files of several windows: each window its own file's GPU work",
          "[model][gpu_sums]") {
  // The table loads GPU sums, which cannot be cut per window: it reads
  // such files again with every event.
  TempFile first("gpu_sums_window"), second("gpu_sums_window");
  first.write(window_file(0, "_Z5firstv"));
  second.write(window_file(1, "_Z6secondv"));
  const prof::testing::CliResult r =
      prof::testing::run_cli({"report", first.path(), second.path(), "--format", "csv"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  std::istringstream lines(r.out);
  std::string line;
  int rows_of_first = 0, rows_of_second = 0;
  while (std::getline(lines, line)) {
    if (line.find("first()") != std::string::npos) {
      ++rows_of_first;
      CHECK(line.rfind("0,", 0) == 0);  // window 0 only
    }
    if (line.find("second()") != std::string::npos) {
      ++rows_of_second;
      CHECK(line.rfind("1,", 0) == 0);
    }
  }
  CHECK(rows_of_first == 1);
  CHECK(rows_of_second == 1);
}

TEST_CASE("stacks' self CPU time from GPU sums: a range around one launch sits above the kernel's stub frame",
          "[model][gpu_sums]") {
  // The launching frame is named as the kernel (a native frame in no module
  // reads as its address; so does this kernel), so only the kernels' names,
  // which the sums keep, tell it is the launch's stub.
  prof::testing::CaptureFileWriter file(prof::testing::make_header(2, 0, "libprof 0.1.0"));
  prof::testing::ChunkBuilder chunk(1'000);
  chunk.process(300, 1'000).set_rank(0);
  chunk.string(1, "launch").string(2, "cudaLaunchKernel").string(3, "0x401000");
  auto native = [&](uint64_t id, uint64_t address) {
    auto* f = chunk.raw().add_frames();
    f->set_id(id);
    f->set_kind(prof::proto::Frame::NATIVE);
    f->set_address(address);
  };
  native(1, 0x401000);  // the stub
  native(2, 0x500000);  // its caller
  auto* stack = chunk.raw().add_stacks();
  stack->set_id(1);
  stack->add_frame_ids(1);
  stack->add_frame_ids(2);
  chunk.range(1, 1, 1'000, 10'000);
  chunk.api_call(1, 2, 2'000, 3'000, 1).set_stack_id(1);
  chunk.kernel(3, 4'000, 6'000, 1);
  file.chunk(chunk.finish());
  TempFile capture("gpu_sums_stub");
  capture.write(file.bytes());

  const Run events = load({capture.path()}, LoadDepth::kEvents, 1);
  const Run sums = load({capture.path()}, LoadDepth::kGpuSums, 1);
  FoldedStacksOptions fold;
  fold.metric = StackMetric::kSelfCpu;
  const std::vector<FoldedStack> expected = folded_stacks(events, RangeTree(events), fold);
  const std::vector<FoldedStack> got = folded_stacks(sums, RangeTree(sums), fold);
  bool range_above_stub = false;
  for (const FoldedStack& s : expected) range_above_stub = range_above_stub || s.frames == "0x500000;launch";
  CHECK(range_above_stub);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].frames == expected[i].frames);
    CHECK(got[i].ns == expected[i].ns);
  }
}

namespace {

// Two processes, each with a call that launches two kernels; one kernel
// runs past 32 bits of nanoseconds (GpuTimeToLink holds 32).
std::string long_kernel_file(uint32_t pid, uint64_t long_ns) {
  prof::testing::CaptureFileWriter file(prof::testing::make_header(2, 0, "libprof 0.1.0"));
  const uint64_t base = 1'000'000;
  prof::testing::ChunkBuilder chunk(base);
  chunk.process(pid, base).set_rank(0);
  chunk.string(1, "cudaLaunchKernel").string(2, "_Z4longv").string(3, "cudaMemcpy");
  chunk.api_call(1, 1, base + 1'000, base + 2'000, 1);
  chunk.api_call(1, 3, base + 3'000, base + 4'000, 2);
  chunk.kernel(2, base + 5'000, base + 5'000 + long_ns, 1);
  chunk.kernel(2, base + 6'000, base + 6'700, 1);
  chunk.kernel(2, base + 7'000, base + 7'300, 2);
  file.chunk(chunk.finish());
  return file.bytes();
}

}  // namespace

TEST_CASE("GPU time past 32 bits of nanoseconds reaches its launching call whole, in each process",
          "[model][gpu_sums]") {
  // 2^32 ns is 4.3 s; one kernel of 3 x 2^32 + 5 ns and one of exactly 2^32 - 1.
  const uint64_t long_ns[] = {3 * (uint64_t{1} << 32) + 5, uint64_t{UINT32_MAX}};
  TempFile first("gpu_sums_long"), second("gpu_sums_long");
  first.write(long_kernel_file(700, long_ns[0]));
  second.write(long_kernel_file(701, long_ns[1]));
  for (unsigned jobs : {1u, 2u}) {
    INFO("jobs " << jobs);
    const Run run = load({first.path(), second.path()}, LoadDepth::kGpuSums, jobs);
    REQUIRE(run.cpu_events.size() == 4);
    REQUIRE(run.launched_gpu_ns.size() == 4);
    for (size_t i = 0; i < run.cpu_events.size(); ++i) {
      const CpuEvent& e = run.cpu_events[i];
      INFO("event " << i << ", process " << e.process);
      const bool launch = e.correlation_id() == 1;
      CHECK(run.launched_gpu_ns[i] == (launch ? long_ns[e.process] + 700 : 300));
    }
  }
}
