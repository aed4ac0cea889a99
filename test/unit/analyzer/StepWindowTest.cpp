// Step rules, step membership and schedule windows, on the synthetic
// training loop (TrainingCapture.h) whose GPU durations are known.
#include <catch2/catch.hpp>

#include "AnalyzerTestSupport.h"
#include "TrainingCapture.h"
#include "model/RangeTree.h"
#include "views/KeyAverages.h"
#include "window/Steps.h"

using namespace prof::testing;
using namespace prof::analyzer;

namespace {

StepRule rule(const std::string& text) {
  std::string error;
  auto r = parseStepRule(text, error);
  INFO(error);
  REQUIRE(r);
  return *r;
}

const KeyAverage* findRow(const std::vector<KeyAverage>& rows, const std::string& key) {
  for (const KeyAverage& r : rows)
    if (r.key == key) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("nvtx, kernel and api rules find one step per loop iteration", "[steps]") {
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  Run run;
  REQUIRE(load({f.path()}, run).empty());

  const RunSteps nvtx = findSteps(run, rule("nvtx:^ProfilerStep#\\d+$"));
  REQUIRE(nvtx.count() == 6);
  CHECK(nvtx.ofProcess(0)[2].startNs == TrainingCapture::stepStart(2));
  CHECK(nvtx.ofProcess(0)[2].endNs == TrainingCapture::stepStart(2) + TrainingCapture::kStepNs - 10'000);

  // kernel: a step starts at the launch call of each kernel0.
  const RunSteps kernel = findSteps(run, rule("kernel:kernel0"));
  REQUIRE(kernel.count() == 6);
  CHECK(kernel.ofProcess(0)[0].startNs == TrainingCapture::stepStart(0) + 30'000);
  CHECK(kernel.ofProcess(0)[0].endNs == TrainingCapture::stepStart(1) + 30'000);

  // A synchronization ends a step; the first step starts at the first event.
  const RunSteps sync = findSteps(run, rule("api:cudaDeviceSynchronize"));
  REQUIRE(sync.count() == 6);
  CHECK(sync.ofProcess(0)[0].startNs == TrainingCapture::kStart + 1'000);
  CHECK(sync.ofProcess(0)[0].endNs == TrainingCapture::stepStart(0) + 60'000);
  CHECK(sync.ofProcess(0)[1].startNs == TrainingCapture::stepStart(0) + 60'000);

  const RunSteps launch = findSteps(run, rule("api:cudaMemcpyAsync"));
  CHECK(launch.count() == 6);
  CHECK(findSteps(run, rule("api:cudaGraphLaunch")).count() == 0);
}

TEST_CASE("Bad step rules are refused with a reason", "[steps]") {
  std::string error;
  CHECK_FALSE(parseStepRule("nvtx:", error));
  CHECK_THAT(error, Catch::Contains("regex"));
  CHECK_FALSE(parseStepRule("kernel:(", error));
  CHECK_THAT(error, Catch::Contains("bad regex"));
  CHECK_FALSE(parseStepRule("step", error));
  CHECK(parseStepRule("auto", error));
}

TEST_CASE("GPU work counts for the step that launched it, even when it runs after the step ended", "[steps]") {
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const RunSteps steps = findSteps(run, rule("nvtx:ProfilerStep"));
  const StepMembership m = stepMembership(run, steps);
  const Run window = selectSteps(run, m, {1, 2});
  const RangeTree tree(window);
  const auto rows = keyAverages(window, tree);

  // kernel4 starts 5 us after each step's range ended: still counted.
  const KeyAverage* k4 = findRow(rows, "kernel4()");
  REQUIRE(k4);
  CHECK(k4->count == 2);
  CHECK(k4->selfCudaNs == TrainingCapture::kernelNs(1, 4) + TrainingCapture::kernelNs(2, 4));
  const KeyAverage* step = findRow(rows, "ProfilerStep*");
  REQUIRE(step);
  CHECK(step->count == 2);
  uint64_t gpu = 0;
  for (int s : {1, 2}) {
    gpu += TrainingCapture::kCopyNs;
    for (int j = 0; j < TrainingCapture::kKernels; ++j) gpu += TrainingCapture::kernelNs(s, j);
  }
  CHECK(step->cudaTotalNs == gpu);
  // Setup (cudaMalloc) and teardown (cudaFree) lie in no step.
  CHECK_FALSE(findRow(rows, "cudaMalloc"));
  CHECK_FALSE(findRow(rows, "cudaFree"));
}

TEST_CASE("One table per schedule window, each headed by its steps", "[steps][cli]") {
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  // Cycles of wait 1 + active 2: windows {1, 2} and {4, 5}.
  CliResult r = runCli({"report", f.path(), "--wait", "1", "--active", "2"});
  REQUIRE(r.exitCode == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Window 0: steps 1-2\n---"));
  CHECK_THAT(r.out, Catch::Contains("\nWindow 1: steps 4-5\n---"));
  CHECK_THAT(r.err, Catch::Contains("--step nvtx:^ProfilerStep#[0-9]+$: 6 steps"));
  // The footer of each table sums its own window.
  CHECK(lineCount(r.out) > 2 * 10);

  CliResult merged = runCli({"report", f.path(), "--wait", "1", "--active", "2", "--merge-windows"});
  REQUIRE(merged.exitCode == 0);
  CHECK_THAT(merged.out, Catch::StartsWith("All windows merged: steps 1-2, 4-5\n"));
  CHECK_THAT(merged.out, !Catch::Contains("Window 1"));

  // Warmup steps are dropped; a run that ends inside a window keeps it.
  CliResult partial = runCli({"report", f.path(), "--skip-first", "1", "--warmup", "1", "--active", "3"});
  REQUIRE(partial.exitCode == 0);
  CHECK_THAT(partial.out, Catch::StartsWith("Window 0: steps 2-4\n"));
  CHECK_THAT(partial.out, !Catch::Contains("Window 1"));

  CliResult json = runCli({"report", f.path(), "--wait", "1", "--active", "2", "--format", "json"});
  REQUIRE(json.exitCode == 0);
  CHECK_THAT(json.out, Catch::Contains("\"window\":1,\"title\":\"Window 1: steps 4-5\",\"whole_run\":false,"
                                       "\"partial\":false,\"steps\":[4,5]"));
}

TEST_CASE("A schedule with no steps to cut is a clear error, and bad schedules are usage errors", "[steps][cli]") {
  TempFile f;
  f.write(TrainingCapture::bytes(3, /*annotate=*/false));
  CliResult none = runCli({"report", f.path(), "--active", "1"});
  CHECK(none.exitCode == 1);
  CHECK_THAT(none.err, Catch::Contains("no steps found by --step nvtx:^ProfilerStep#[0-9]+$"));
  CHECK(runCli({"report", f.path(), "--active", "0"}).exitCode == 2);
  CHECK(runCli({"report", f.path(), "--wait", "-1", "--active", "1"}).exitCode == 2);
  CHECK(runCli({"report", f.path(), "--step", "bogus:x"}).exitCode == 2);
  // Without a schedule, steps found or not, the whole run is one table.
  CHECK(runCli({"report", f.path(), "--step", "nvtx:none"}).exitCode == 0);
  // With an explicit rule that matches, windows work without annotations.
  CliResult api = runCli({"report", f.path(), "--step", "api:cudaDeviceSynchronize", "--active", "1", "--repeat", "2"});
  REQUIRE(api.exitCode == 0);
  CHECK_THAT(api.out, Catch::Contains("Window 1: step 1\n"));
  CHECK_THAT(api.out, !Catch::Contains("Window 2"));
}
