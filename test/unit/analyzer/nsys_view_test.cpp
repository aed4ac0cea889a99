// `--view kernels|api|memcpy|nvtx`: nsys stats' summaries.
#include <catch2/catch.hpp>

#include "analyzer_test_support.h"
#include "training_capture.h"
#include "views/nsys_summary.h"

using namespace prof::testing;
using namespace prof::analyzer;

TEST_CASE("Kernel summary: total, instances, average, median, min, max and sample stddev in ns", "[nsys]") {
  ChunkBuilder c(0);
  c.string(1, "_Z1av").string(2, "_Z1bv");
  c.kernel(1, 0, 100);
  c.kernel(1, 1'000, 1'300);
  c.kernel(1, 2'000, 2'200);
  c.kernel(1, 3'000, 3'400);
  c.kernel(2, 5'000, 5'050);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const auto rows = nsys_summary(run, NsysView::kKernels);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "a()");
  CHECK(rows[0].total_ns == 1'000);
  CHECK(rows[0].count == 4);
  CHECK(rows[0].avg_ns == 250.0);
  CHECK(rows[0].median_ns == 250.0);
  CHECK(rows[0].min_ns == 100);
  CHECK(rows[0].max_ns == 400);
  CHECK(rows[0].stddev_ns == Approx(129.0994).epsilon(1e-6));
  CHECK(rows[0].percent == Approx(1000.0 * 100 / 1050));
  CHECK(rows[1].stddev_ns == 0.0);

  CliResult r = run_cli({"report", f.path(), "--view", "kernels"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out ==
        " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  Max (ns)  StdDev (ns)  Name\n"
        " --------  ---------------  ---------  --------  --------  --------  --------  -----------  ----\n"
        "     95.2            1,000          4     250.0     250.0       100       400        129.1  a()\n"
        "      4.8               50          1      50.0      50.0        50        50          0.0  b()\n");
  CliResult csv = run_cli({"report", f.path(), "--view", "kernels", "--format", "csv"});
  CHECK(csv.out ==
        "Window,Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "all,95.2381,1000,4,250.0,250.0,100,400,129.1,a()\n"
        "all,4.7619,50,1,50.0,50.0,50,50,0.0,b()\n");
}

TEST_CASE("api, memcpy and nvtx summaries use nsys's headers and names", "[nsys]") {
  TempFile f;
  f.write(TrainingCapture::bytes(3));
  CliResult api = run_cli({"report", f.path(), "--view", "api"});
  REQUIRE(api.exit_code == 0);
  CHECK_THAT(api.out, Catch::StartsWith(" Time (%)  Total Time (ns)  Num Calls  "));
  CHECK_THAT(api.out, Catch::Contains("         15   1,000.0   1,000.0     1,000     1,000          0.0  cudaLaunchKernel\n"));
  CliResult mem = run_cli({"report", f.path(), "--view", "memcpy"});
  CHECK_THAT(mem.out, Catch::Contains("  Count  "));
  CHECK_THAT(mem.out, Catch::Contains("  [CUDA memcpy Host-to-Device]"));
  CliResult nvtx = run_cli({"report", f.path(), "--view", "nvtx", "--format", "json"});
  CHECK_THAT(nvtx.out, Catch::Contains("\"style\":\"PushPop\",\"name\":\"ProfilerStep#0\""));
  CHECK_THAT(nvtx.out, Catch::Contains("{\"time_pct\":"));
  // Windows apply to the nsys views too.
  CliResult windowed = run_cli({"report", f.path(), "--view", "kernels", "--active", "1", "--repeat", "1"});
  CHECK_THAT(windowed.out, Catch::StartsWith("Window 0: step 0\n Time (%)"));
  CHECK_THAT(windowed.out, Catch::Contains("          1  "));
}
