// advise on the fixed capture of advise_capture.h: every number below follows
// from its times by hand.
#include <catch2/catch.hpp>

#include "advise_capture.h"
#include "analyzer_test_support.h"
#include "advise/advise.h"
#include "advise/intervals.h"

using namespace prof::testing;
using namespace prof::analyzer;

namespace {

size_t cause(IdleCause c) { return static_cast<size_t>(c); }

}  // namespace

TEST_CASE("advise splits idle time by cause and ranks the findings by their cost", "[advise]") {
  TempFile f;
  f.write(advise_capture_bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  std::string error;
  const RunSteps steps = find_steps(run, *parse_step_rule("nvtx:^ProfilerStep#[0-9]+$", error));
  REQUIRE(steps.count() == 4);
  const ModuleOffsetFrameNamer namer;
  AdviseInput in;
  in.events = &run;
  in.run = &run;
  in.steps = &steps;
  in.namer = &namer;
  const AdviseWindow w = advise_window(in);

  REQUIRE(w.devices.size() == 1);
  const DeviceUsage& d = w.devices[0];
  // From the first upload (1.005 ms) to the last read's end (4.732 ms).
  CHECK(d.usage.span_ns == 3'727'000);
  CHECK(d.usage.kernel_ns == 4 * 500'000);
  CHECK(d.usage.copy_ns == 4 * 202'000);
  // After each of the first three reads the GPU waits from the read's copy
  // (ends at +732 us) to the next step's upload (+1005 us), the host still
  // in the read when the GPU ran dry.
  CHECK(d.idle_by_cause[cause(IdleCause::kSync)] == 3 * 273'000);
  CHECK(d.idle_by_cause[cause(IdleCause::kCopyWait)] == 4 * 202'000);
  // Between the upload's copy (+205) and the forward kernel (+230): the host
  // finishes the upload call (+210), is outside CUDA (to +212, or +220 in the
  // steps without an allocation), allocates (+212..+215 in steps 1 and 2),
  // launches (+220..+225), then the kernel waits to start (+230).
  CHECK(d.idle_by_cause[cause(IdleCause::kOtherCalls)] == 4 * 5'000);
  CHECK(d.idle_by_cause[cause(IdleCause::kAllocation)] == 2 * 3'000);
  CHECK(d.idle_by_cause[cause(IdleCause::kHostWork)] == 2 * 10'000 + 2 * (2'000 + 5'000));
  CHECK(d.idle_by_cause[cause(IdleCause::kLaunchOverhead)] == 4 * 5'000);
  CHECK(d.idle_by_cause[cause(IdleCause::kQueued)] == 4 * 5'000);

  REQUIRE(w.steps.size() == 4);
  CHECK(w.step_time_ns == 4'000'000);
  CHECK(w.gpu_span_ns == 3'727'000);
  CHECK(w.steps[0].usage.kernel_ns == 500'000);
  CHECK(w.steps[0].usage.copy_ns == 202'000);
  CHECK(w.steps[0].usage.idle_ns == 298'000);
  CHECK(w.steps[1].allocations == 1);
  CHECK(w.steps[1].frees == 1);
  CHECK(w.steps[1].allocated_bytes == 1 << 20);
  CHECK(w.steps[1].peak_memory_bytes == 1 << 20);
  CHECK(w.steps[3].peak_memory_bytes == 0);

  // The read costs the most, then the pageable uploads; nothing else
  // reaches 3% of the 4 ms.
  REQUIRE(w.findings.size() == 2);
  CHECK(w.findings[0].kind == "sync");
  CHECK(w.findings[0].cost_ns == 819'000);
  REQUIRE(!w.findings[0].where.empty());
  CHECK(w.findings[0].where[0].api == "cudaMemcpy");
  CHECK(w.findings[0].where[0].frames == std::vector<std::string>{"model.py(57): read_loss", "model.py(42): train_step"});
  CHECK(w.findings[0].where[0].calls == 4);
  CHECK(w.findings[1].kind == "pageable_copy");
  CHECK(w.findings[1].cost_ns == 800'000);
  CHECK(w.findings[1].where[0].frames[0] == "model.py(30): load_batch");

  REQUIRE(w.top_kernels.size() == 2);
  CHECK(w.top_kernels[0].name == "forward(float*)");
  CHECK(w.top_kernels[0].total_ns == 4 * 300'000);
}

TEST_CASE("advise's interval arithmetic", "[advise]") {
  const auto u = interval_union({{5, 10}, {0, 3}, {2, 4}, {10, 12}, {20, 20}});
  REQUIRE(u.size() == 2);
  CHECK(u[0].start == 0);
  CHECK(u[0].end == 4);
  CHECK(u[1].start == 5);
  CHECK(u[1].end == 12);
  const auto d = interval_difference({{0, 10}, {20, 30}}, {{2, 3}, {5, 25}});
  REQUIRE(d.size() == 3);
  CHECK(measure(d) == 2 + 2 + 5);
  CHECK(measure_within(u, 3, 6) == 2);
}
