// `profanalyze report` end to end on small files: grouping, names, nesting
// of API calls, several files, and the command line's own errors.
#include <catch2/catch.hpp>

#include "analyzer_test_support.h"

using namespace prof::testing;

namespace {

// The row of `name` in a report (the first line whose first cell is it).
std::string row_of(const std::string& report, const std::string& name) {
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    std::istringstream cells(line);
    std::string first;
    cells >> first;
    if (first == name) return line;
  }
  return "<no row " + name + ">";
}

}  // namespace

TEST_CASE("ProfilerStep#N ranges group into one ProfilerStep* row", "[report]") {
  ChunkBuilder c(0);
  c.string(1, "ProfilerStep#0").string(2, "ProfilerStep#1").string(3, "ProfilerStep#12");
  c.range(1, 1, 0, 1000);
  c.range(1, 2, 1000, 2000);
  c.range(1, 3, 2000, 4000);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path()});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(row_of(r.out, "ProfilerStep*"), Catch::EndsWith("4.000us       1.333us             3  "));
  CHECK_THAT(r.out, !Catch::Contains("ProfilerStep#"));
}

TEST_CASE("Ranges of a named domain show as domain:name, apart from the default domain's", "[report]") {
  ChunkBuilder c(0);
  c.string(1, "encode").string(2, "mylib");
  c.range(1, 1, 0, 1000);
  c.range(1, 1, 2000, 4000, prof::proto::NvtxRange::PUSH_POP, 2);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path()});
  CHECK_THAT(row_of(r.out, "encode"), Catch::EndsWith("1.000us             1  "));
  CHECK_THAT(row_of(r.out, "mylib:encode"), Catch::EndsWith("2.000us             1  "));
}

TEST_CASE("API calls are rows and count as children of the range around them", "[report]") {
  ChunkBuilder c(0);
  c.string(1, "step").string(2, "cudaMemcpy");
  c.range(1, 1, 0, 10'000);
  c.api_call(1, 2, 1'000, 4'000);
  c.api_call(1, 2, 5'000, 6'000);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path(), "--sort-by", "self_cpu_time_total"});
  REQUIRE(r.exit_code == 0);
  // step: self 6us of 10us total; cudaMemcpy: 4us self and total, 2 calls.
  CHECK(row_of(r.out, "step") == "          step        60.00%       6.000us       100.00%      10.000us      10.000us"
                                "             1  ");
  CHECK(row_of(r.out, "cudaMemcpy") == "    cudaMemcpy        40.00%       4.000us        40.00%       4.000us       "
                                      "2.000us             2  ");
  CHECK_THAT(r.out, Catch::EndsWith("Self CPU time total: 10.000us\n"));
}

TEST_CASE("Several files aggregate into one table, and their threads stay apart", "[report]") {
  auto capture = [](uint64_t length) {
    ChunkBuilder c(0);
    c.string(1, "outer").string(2, "inner");
    c.range(1, 1, 0, length);
    c.range(1, 2, 0, length / 2);
    return CaptureFileWriter().chunk(c.finish()).bytes();
  };
  TempFile a, b;
  a.write(capture(1000));
  b.write(capture(3000));
  CliResult r = run_cli({"report", a.path(), b.path()});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(row_of(r.out, "outer"), Catch::Contains("2.000us       100.00%       4.000us       2.000us             2"));
  CHECK_THAT(row_of(r.out, "inner"), Catch::Contains("2.000us        50.00%       2.000us       1.000us             2"));
}

TEST_CASE("GPU work shows as rows with CUDA columns", "[report]") {
  ChunkBuilder c(0);
  c.string(1, "cudaLaunchKernel").string(2, "_Z6kernelv");
  c.api_call(1, 1, 0, 1'000, 5);
  c.kernel(2, 500, 3'500, 5);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path()});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Self CUDA %"));
  CHECK_THAT(row_of(r.out, "kernel()"), Catch::Contains("3.000us       100.00%       3.000us       3.000us             1"));
  CHECK_THAT(r.out, Catch::EndsWith("Self CUDA time total: 3.000us\n"));
}

TEST_CASE("The command line refuses unknown sort keys, units and subcommands with exit 2", "[report][cli]") {
  TempFile f;
  f.write(CaptureFileWriter().bytes());
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", f.path(), "--sort-by", "bogus"},
        std::vector<std::string>{"report", f.path(), "--time-unit", "ns"},
        std::vector<std::string>{"report", f.path(), "--row-limit", "many"},
        std::vector<std::string>{"frobnicate", f.path()}, std::vector<std::string>{"report"},
        std::vector<std::string>{}}) {
    CliResult r = run_cli(args);
    CHECK(r.exit_code == prof::analyzer::kExitUsage);
    CHECK_FALSE(r.err.empty());
  }
  CHECK(run_cli({"--help"}).exit_code == 0);
  CHECK(run_cli({"report", f.path(), "--sort-by", "self_cuda_memory_usage"}).exit_code == 0);
}
