// report on torch's emit_nvtx ranges: rows named as torch names them, the
// kernels' time an operator's Self CUDA, shapes grouped as torch's Input
// Shapes column, driver calls folded into their runtime call, counter
// suffixes merged, and the modules tree.
#include <catch2/catch.hpp>

#include "analyzer_test_support.h"
#include "json_probe.h"

using namespace prof::testing;

namespace {

// One thread: ProfilerStep#0 [0, 1000] holding
//   nn.Module: Net [10, 900]
//     aten::linear [20, 400] > aten::addmm (sizes A) [30, 300] > cudaLaunchKernel [40, 100] > cuLaunchKernel [50, 90]
//     aten::addmm (sizes B) [450, 800] > cudaLaunchKernel [460, 520] > cuLaunchKernel [470, 510]
//   and step#1 [1000, 1100] holding cudaMemcpy [1010, 1090] > cuMemcpyDtoH_v2 [1020, 1080].
// The kernels run 2000-2500 (corr 1) and 3000-3700 (corr 2).
std::string capture_bytes() {
  ChunkBuilder c(0);
  c.string(1, "ProfilerStep#0, op_id = 1")
      .string(2, "nn.Module: Net")
      .string(3, "aten::linear, op_id = 2, sizes = [[64, 128], [256, 128], [256]]")
      .string(4, "aten::addmm, seq = 7, op_id = 3, sizes = [[256], [64, 128], [128, 256], [], []]")
      .string(5, "aten::addmm, seq = 8, op_id = 4, sizes = [[10], [64, 256], [256, 10], [], []]")
      .string(6, "cudaLaunchKernel")
      .string(7, "cuLaunchKernel")
      .string(8, "gemm")
      .string(9, "step#1")
      .string(10, "cudaMemcpy")
      .string(11, "cuMemcpyDtoH_v2")
      .string(12, "step#2");
  c.range(1, 1, 0, 1000);
  c.range(1, 2, 10, 900);
  c.range(1, 3, 20, 400);
  c.range(1, 4, 30, 300);
  c.api_call(1, 6, 40, 100, 1);
  c.api_call(1, 7, 50, 90, 1).set_domain(prof::proto::DRIVER);
  c.range(1, 5, 450, 800);
  c.api_call(1, 6, 460, 520, 2);
  c.api_call(1, 7, 470, 510, 2).set_domain(prof::proto::DRIVER);
  c.kernel(8, 2000, 2500, 1);
  c.kernel(8, 3000, 3700, 2);
  c.range(1, 9, 1000, 1100);
  c.api_call(1, 10, 1010, 1090, 3);
  c.api_call(1, 11, 1020, 1080, 3).set_domain(prof::proto::DRIVER);
  c.range(1, 12, 1100, 1150);
  return CaptureFileWriter().chunk(c.finish()).bytes();
}

}  // namespace

TEST_CASE("torch ranges are rows named as torch names them, with their kernels as Self CUDA") {
  TempFile f;
  f.write(capture_bytes());
  const CliResult r = run_cli({"report", f.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_u64(r.out, "aten::addmm", "calls") == 2);
  CHECK(json_u64(r.out, "aten::addmm", "self_cuda_ns") == 500 + 700);
  CHECK(json_u64(r.out, "aten::addmm", "cuda_total_ns") == 1200);
  CHECK(json_u64(r.out, "aten::linear", "self_cuda_ns") == 0);
  CHECK(json_u64(r.out, "aten::linear", "cuda_total_ns") == 500);
  CHECK(json_u64(r.out, "nn.Module: Net", "cuda_total_ns") == 1200);
  // As in torch's table: the launch is no kernel's owner.
  CHECK(json_u64(r.out, "cudaLaunchKernel", "self_cuda_ns") == 0);
  CHECK(json_u64(r.out, "cudaLaunchKernel", "cuda_total_ns") == 0);
  CHECK(json_u64(r.out, "ProfilerStep*", "calls") == 1);
  // step#1 and step#2: one row.
  CHECK(json_u64(r.out, "step*", "calls") == 2);
  CHECK(r.out.find("seq =") == std::string::npos);
  CHECK(r.out.find("op_id") == std::string::npos);
}

TEST_CASE("driver calls fold into their runtime call unless --driver-calls") {
  TempFile f;
  f.write(capture_bytes());
  const CliResult folded = run_cli({"report", f.path(), "--format", "json"});
  REQUIRE(folded.exit_code == 0);
  CHECK(folded.out.find("cuMemcpyDtoH_v2") == std::string::npos);
  CHECK(folded.out.find("cuLaunchKernel") == std::string::npos);
  CHECK(json_u64(folded.out, "cudaMemcpy", "self_cpu_ns") == 80);
  CHECK(json_u64(folded.out, "cudaLaunchKernel", "self_cpu_ns") == 60 + 60);
  const CliResult own = run_cli({"report", f.path(), "--format", "json", "--driver-calls"});
  REQUIRE(own.exit_code == 0);
  CHECK(json_u64(own.out, "cuMemcpyDtoH_v2", "self_cpu_ns") == 60);
  CHECK(json_u64(own.out, "cudaMemcpy", "self_cpu_ns") == 20);
  CHECK(json_u64(own.out, "cudaLaunchKernel", "self_cpu_ns") == 20 + 20);
  CHECK(json_u64(own.out, "cuLaunchKernel", "self_cpu_ns") == 40 + 40);
}

TEST_CASE("--group-by-input-shape groups operators by torch's Input Shapes") {
  TempFile f;
  f.write(capture_bytes());
  const CliResult r = run_cli({"report", f.path(), "--group-by-input-shape", "--row-limit", "-1"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("[[256], [64, 128], [128, 256], [], []]"));
  CHECK_THAT(r.out, Catch::Contains("[[10], [64, 256], [256, 10], [], []]"));
  CHECK_THAT(r.out, Catch::Contains("[[64, 128], [256, 128], [256]]"));
  CHECK_THAT(r.out, Catch::Contains("Input Shapes"));
}

TEST_CASE("--view modules shows calls, CPU and CUDA totals per module path") {
  TempFile f;
  f.write(capture_bytes());
  const CliResult r = run_cli({"report", f.path(), "--view", "modules", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_u64(r.out, "Net", "calls") == 1);
  CHECK(json_u64(r.out, "Net", "cpu_total_ns") == 890);
  CHECK(json_u64(r.out, "Net", "cuda_total_ns") == 1200);
  const CliResult text = run_cli({"report", f.path(), "--view", "modules"});
  REQUIRE(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("Module"));
  CHECK_THAT(text.out, Catch::Contains("CUDA total"));
}
