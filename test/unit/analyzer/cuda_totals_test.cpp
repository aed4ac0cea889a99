// Golden CUDA numbers: captures whose kernels and copies have exact
// durations, so every CUDA cell has one right value.
#include <catch2/catch.hpp>

#include <sstream>

#include "analyzer_test_support.h"
#include "json_probe.h"
#include "training_capture.h"

using namespace prof::testing;
using TC = prof::testing::TrainingCapture;

namespace {

constexpr int kSteps = 4;

uint64_t kernel_sum(int j) {
  uint64_t sum = 0;
  for (int s = 0; s < kSteps; ++s) sum += TC::kernel_ns(s, j);
  return sum;
}

uint64_t all_kernels() {
  uint64_t sum = 0;
  for (int j = 0; j < TC::kKernels; ++j) sum += kernel_sum(j);
  return sum;
}

// The cells of one table line (split on runs of 2+ spaces).
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == ' ' && i + 1 < line.size() && line[i + 1] == ' ') {
      if (!cell.empty()) out.push_back(cell);
      cell.clear();
      while (i + 1 < line.size() && line[i + 1] == ' ') ++i;
    } else if (line[i] != ' ' || !cell.empty()) {
      cell += line[i];
    }
  }
  if (!cell.empty()) out.push_back(cell);
  return out;
}

}  // namespace

TEST_CASE("Self CUDA totals equal the sum of the GPU durations exactly", "[cuda][golden]") {
  TempFile f;
  f.write(TC::bytes(kSteps));
  CliResult r = run_cli({"report", f.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  for (int j = 0; j < TC::kKernels; ++j) {
    const std::string name = "kernel" + std::to_string(j) + "()";
    INFO(name);
    CHECK(json_u64(r.out, name, "self_cuda_ns") == kernel_sum(j));
    CHECK(json_u64(r.out, name, "cuda_total_ns") == kernel_sum(j));
    CHECK(json_u64(r.out, name, "calls") == kSteps);
    CHECK(json_u64(r.out, name, "self_cpu_ns") == 0);
  }
  const uint64_t copies = kSteps * TC::kCopyNs;
  CHECK(json_u64(r.out, "Memcpy HtoD (Pageable -> Device)", "self_cuda_ns") == copies);
  // The launching calls' self CUDA is exactly what they launched.
  CHECK(json_u64(r.out, "cudaLaunchKernel", "self_cuda_ns") == all_kernels());
  CHECK(json_u64(r.out, "cudaMemcpyAsync", "self_cuda_ns") == copies);
  CHECK(json_u64(r.out, "cudaDeviceSynchronize", "self_cuda_ns") == 0);
  CHECK_THAT(r.out, Catch::Contains("\"self_cuda_time_total_ns\":" + std::to_string(all_kernels() + copies)));
}

TEST_CASE("The CUDA total of an NVTX range is the GPU time launched inside it", "[cuda][golden]") {
  TempFile f;
  f.write(TC::bytes(kSteps));
  CliResult r = run_cli({"report", f.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_u64(r.out, "ProfilerStep*", "cuda_total_ns") == all_kernels() + kSteps * TC::kCopyNs);
  CHECK(json_u64(r.out, "ProfilerStep*", "self_cuda_ns") == 0);
  // "load" launches nothing.
  CHECK(json_u64(r.out, "load", "cuda_total_ns") == 0);
}

TEST_CASE("The Self CUDA % column sums to 100% over GPU rows and over launching rows", "[cuda][golden]") {
  TempFile f;
  f.write(TC::bytes(kSteps));
  CliResult r = run_cli({"report", f.path(), "--row-limit", "-1"});
  REQUIRE(r.exit_code == 0);
  std::istringstream in(r.out);
  std::vector<std::string> header;
  double gpu_rows = 0, cpu_rows = 0;
  int gpu_count = 0;
  for (std::string line; std::getline(in, line);) {
    const auto c = cells(line);
    if (!c.empty() && c[0] == "Name") header = c;
    if (header.empty() || c.size() != header.size() || c[0] == "Name" || c[1].back() != '%') continue;
    const double self_cuda_pct = std::stod(c[7]);  // Name, Self CPU %, Self CPU, CPU total %, CPU total, avg, Self CUDA, %
    // GPU rows have 0 self CPU.
    if (c[2] == "0.000us" && c[0] != "cudaDeviceSynchronize") {
      gpu_rows += self_cuda_pct;
      ++gpu_count;
    } else {
      cpu_rows += self_cuda_pct;
    }
  }
  REQUIRE(header.size() > 7);
  CHECK(header[7] == "Self CUDA %");
  CHECK(gpu_count == TC::kKernels + 1);
  CHECK(gpu_rows == Approx(100.0).margin(0.005 * gpu_count));
  // Every GPU activity here has its launching call recorded.
  CHECK(cpu_rows == Approx(100.0).margin(0.005 * 4));
  CHECK_THAT(r.out, Catch::Contains("Self CUDA time total: "));
}

TEST_CASE("Several processes are placed on one timeline by their clock anchors", "[cuda][model]") {
  // Two processes whose monotonic clocks differ by 1 s: anchored to the same
  // wall clock, their ranges coincide.
  auto capture = [](uint64_t monotonic_base) {
    ChunkBuilder c(monotonic_base);
    auto& p = c.process(1, monotonic_base);
    p.mutable_clock_anchor()->set_realtime_ns(1'700'000'000'000'000'000ull);
    p.mutable_clock_anchor()->set_monotonic_ns(monotonic_base);
    c.string(1, "step");
    c.range(1, 1, monotonic_base + 100, monotonic_base + 200);
    return CaptureFileWriter().chunk(c.finish()).bytes();
  };
  TempFile a, b;
  a.write(capture(5'000'000'000));
  b.write(capture(6'000'000'000));
  prof::analyzer::Run run;
  REQUIRE(load({a.path(), b.path()}, run).empty());
  REQUIRE(run.cpu_events.size() == 2);
  CHECK(run.cpu_events[0].start_ns == run.cpu_events[1].start_ns);
  CHECK(run.processes[1].timeline_shift_ns == -1'000'000'000);
}
