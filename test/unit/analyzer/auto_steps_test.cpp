// `--step auto`: the period of an unannotated training loop.
#include <catch2/catch.hpp>

#include "analyzer_test_support.h"
#include "training_capture.h"
#include "window/auto_steps.h"

using namespace prof::testing;
using namespace prof::analyzer;

TEST_CASE("--step auto takes NVTX ranges that count the iterations over any period of calls", "[auto]") {
  TempFile f;
  f.write(TrainingCapture::bytes(8, /*annotate=*/true));
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const AutoSteps found = detect_steps(run);
  REQUIRE(found.rule);
  CHECK(found.rule->spelling() == "nvtx:^ProfilerStep#[0-9]+$");
  CHECK(found.message == "NVTX ranges ProfilerStep#N count 8 iterations: --step nvtx:^ProfilerStep#[0-9]+$");
  CHECK(find_steps(run, *found.rule).count() == 8);
}

TEST_CASE("--step auto finds the period of a training loop", "[auto]") {
  TempFile f;
  f.write(TrainingCapture::bytes(8, /*annotate=*/true));
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  // The period is what auto finds without the counted ranges; measured here
  // against them.
  std::string error;
  const RunSteps by_nvtx = find_steps(run, *StepRule::parse("nvtx:ProfilerStep", error));
  TempFile bare;
  bare.write(TrainingCapture::bytes(8, /*annotate=*/false));
  Run unannotated;
  REQUIRE(load({bare.path()}, unannotated).empty());
  const AutoSteps found = detect_steps(unannotated);
  REQUIRE(found.rule);
  // Per step: a copy, five launches, a sync.
  CHECK(found.period == 7);
  CHECK(found.rule->spelling() == "api:cudaDeviceSynchronize");
  CHECK_THAT(found.message, Catch::Contains("period of 7 CUDA calls"));

  // The same steps as the NVTX annotations: every GPU activity falls in the
  // step of the same number under both rules.
  const RunSteps by_auto = find_steps(run, *found.rule);
  REQUIRE(by_auto.count() == by_nvtx.count());
  const StepMembership a = step_membership(run, by_auto);
  const StepMembership b = step_membership(run, by_nvtx);
  CHECK(a.gpu == b.gpu);

  CliResult r = run_cli({"report", bare.path(), "--step", "auto", "--wait", "2", "--active", "3", "--repeat", "1"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("--step auto: period of 7 CUDA calls"));
  CHECK_THAT(r.err, Catch::Contains("--step api:cudaDeviceSynchronize: 8 steps"));
  CHECK_THAT(r.out, Catch::StartsWith("Window 0: steps 2-4\n"));
}

TEST_CASE("--step auto starts steps at a kernel when the loop has no synchronization", "[auto]") {
  ChunkBuilder c(0);
  c.string(1, "cudaLaunchKernel").string(2, "_Z1av").string(3, "_Z1bv").string(4, "cudaMalloc");
  c.api_call(1, 4, 0, 10);
  uint32_t corr = 1;
  for (int step = 0; step < 10; ++step)
    for (uint64_t k : {2, 3, 3}) {
      const uint64_t t = 100 + corr * 100;
      c.api_call(1, 1, t, t + 10, corr);
      c.kernel(k, t + 20, t + 50, corr);
      ++corr;
    }
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const AutoSteps found = detect_steps(run);
  REQUIRE(found.rule);
  CHECK(found.period == 3);
  CHECK(found.rule->spelling() == "kernel:^a\\(\\)$");
  CHECK(find_steps(run, *found.rule).count() == 10);
}

TEST_CASE("--step auto says so clearly when there is no period", "[auto]") {
  // Calls with no repeating order.
  ChunkBuilder c(0);
  for (uint64_t i = 1; i <= 40; ++i) {
    c.string(i, "call" + std::to_string(i));
    c.api_call(1, i, i * 100, i * 100 + 10);
  }
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path(), "--step", "auto", "--active", "1"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("--step auto: no repeating launch sequence in the 40 CUDA calls of thread 1"));
  CHECK(r.out.empty());
  // Without a schedule the run is still reported, as one table.
  CliResult whole = run_cli({"report", f.path(), "--step", "auto"});
  CHECK(whole.exit_code == 0);
  CHECK_THAT(whole.out, Catch::Contains("call1  "));

  // No calls at all, and too few to repeat.
  TempFile g;
  g.write(CaptureFileWriter().bytes());  // an empty chunk has length 0, which is corrupt
  CliResult none = run_cli({"report", g.path(), "--step", "auto", "--active", "1"});
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("no CUDA API calls recorded"));
  ChunkBuilder two(0);
  two.string(1, "x");
  two.api_call(1, 1, 0, 1);
  two.api_call(1, 1, 5, 6);
  TempFile h;
  h.write(CaptureFileWriter().chunk(two.finish()).bytes());
  CHECK_THAT(run_cli({"report", h.path(), "--step", "auto", "--active", "1"}).err, Catch::Contains("too few calls"));
}

TEST_CASE("--step auto anchors on the loop, not on set-up calls that repeat a few times", "[auto]") {
  // Set-up: three host allocations, each followed by a copy (period 2, three
  // times, from the start of the run); then the loop: a launch and an error
  // check, 300 times (period 2 as well); then a final synchronization.
  ChunkBuilder c(0);
  c.string(1, "cudaHostAlloc").string(2, "cudaMemcpy").string(3, "cudaLaunchKernel").string(4, "cudaGetLastError");
  c.string(5, "_Z4stepPf").string(6, "cudaDeviceSynchronize");
  uint64_t t = 1000;
  uint32_t corr = 1;
  for (int i = 0; i < 3; ++i) {
    c.api_call(1, 1, t, t + 50, corr++);
    c.api_call(1, 2, t + 100, t + 150, corr++);
    t += 200;
  }
  for (int i = 0; i < 300; ++i) {
    c.api_call(1, 3, t, t + 10, corr);
    c.kernel(5, t + 20, t + 60, corr++);
    c.api_call(1, 4, t + 30, t + 35, corr++);
    t += 100;
  }
  c.api_call(1, 6, t, t + 100, corr++);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const AutoSteps found = detect_steps(run);
  REQUIRE(found.rule);
  CHECK(found.period == 2);
  CHECK(found.rule->spelling() == "kernel:^step\\(float\\*\\)$");
  CHECK(find_steps(run, *found.rule).count() == 300);
}

TEST_CASE("--step auto never takes a polling loop for steps", "[auto]") {
  // asyncAPI's shape: per iteration a copy, a launch, then cudaEventQuery
  // spun until the GPU is done (a varying number of times); 4,061 "steps"
  // of one query each were found before polls were left out.
  ChunkBuilder c(1000);
  c.string(1, "cudaLaunchKernel").string(2, "_Z4stepv").string(3, "cudaEventQuery").string(4, "cudaMemcpyAsync");
  uint32_t corr = 1;
  uint64_t t = 100;
  for (int step = 0; step < 6; ++step) {
    c.api_call(1, 4, t, t + 10);
    t += 20;
    c.api_call(1, 1, t, t + 10, corr);
    c.kernel(2, t + 20, t + 50, corr);
    ++corr;
    t += 20;
    for (int poll = 0; poll < 300 + 50 * step; ++poll, t += 20) c.api_call(1, 3, t, t + 5);
  }
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const AutoSteps found = detect_steps(run);
  INFO(found.message);
  REQUIRE(found.rule);
  CHECK(found.period == 2);
  CHECK(found.rule->spelling() == "api:cudaMemcpyAsync");
  CHECK(find_steps(run, *found.rule).count() == 6);
}
