// The rest of torch's table: memory columns and their attribution, input
// shapes, source locations, top-level-only, and the csv/json formats.
#include <catch2/catch.hpp>

#include "analyzer_test_support.h"
#include "json_probe.h"
#include "views/memory_format.h"
#include "views/table_formatter.h"

using namespace prof::testing;

namespace {

std::string row_of(const std::string& report, const std::string& name) {
  std::istringstream in(report);
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(' ');
    if (first != std::string::npos && line.compare(first, name.size() + 2, name + "  ") == 0) return line;
  }
  return "<no row " + name + ">";
}

prof::proto::MemoryEvent& memory(ChunkBuilder& c, uint64_t t, uint64_t bytes, uint32_t corr, bool release,
                                 prof::proto::MemoryKind kind) {
  auto& m = c.memory_event(t, bytes);
  m.set_correlation_id(corr);
  m.set_memory_kind(kind);
  if (release) m.set_operation(prof::proto::MemoryEvent::RELEASE);
  return m;
}

std::string memory_capture() {
  ChunkBuilder c(0);
  c.string(1, "outer").string(2, "cudaMalloc").string(3, "cudaFree").string(4, "cudaMallocHost").string(5, "inner");
  c.range(1, 1, 0, 100'000);
  c.range(1, 5, 1'000, 50'000);
  c.api_call(1, 2, 2'000, 3'000, 1);  // in inner
  memory(c, 2'500, 2u << 20, 1, false, prof::proto::DEVICE);
  c.api_call(1, 3, 60'000, 61'000, 2);  // in outer
  memory(c, 60'500, 1u << 20, 2, true, prof::proto::DEVICE);
  c.api_call(1, 4, 70'000, 71'000, 3);
  memory(c, 70'500, 4096, 3, false, prof::proto::PINNED);
  return CaptureFileWriter().chunk(c.finish()).bytes();
}

}  // namespace

TEST_CASE("Memory cells use torch's 1024-based units and keep the sign", "[table][memory]") {
  using prof::analyzer::format_memory;
  CHECK(format_memory(0) == "0 B");
  CHECK(format_memory(1023) == "1023 B");
  CHECK(format_memory(1024) == "1.00 KB");
  CHECK(format_memory(-1536) == "-1.50 KB");
  CHECK(format_memory(5ll << 20) == "5.00 MB");
  CHECK(format_memory(-(3ll << 30)) == "-3.00 GB");
}

TEST_CASE("Allocations count for the call they happened in, and up its nesting", "[table][memory]") {
  TempFile f;
  f.write(memory_capture());
  CliResult r = run_cli({"report", f.path()});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("       CPU Mem  Self CPU Mem      CUDA Mem  Self CUDA Mem    # of Calls  "));
  // outer: 2 MB allocated inside inner, 1 MB freed by its own child, 4 KB pinned host.
  CHECK_THAT(row_of(r.out, "outer"), Catch::EndsWith("       4.00 KB           0 B       1.00 MB           0 B             1  "));
  CHECK_THAT(row_of(r.out, "inner"), Catch::EndsWith("           0 B           0 B       2.00 MB           0 B             1  "));
  CHECK_THAT(row_of(r.out, "cudaMalloc"), Catch::EndsWith("       2.00 MB       2.00 MB             1  "));
  CHECK_THAT(row_of(r.out, "cudaFree"), Catch::EndsWith("      -1.00 MB      -1.00 MB             1  "));
  CHECK_THAT(row_of(r.out, "cudaMallocHost"), Catch::EndsWith("       4.00 KB       4.00 KB           0 B           0 B             1  "));

  CliResult sorted = run_cli({"report", f.path(), "--sort-by", "self_cuda_memory_usage", "--format", "json"});
  REQUIRE(sorted.exit_code == 0);
  CHECK(sorted.out.find("\"name\":\"cudaMalloc\"") < sorted.out.find("\"name\":\"outer\""));
  CHECK(json_u64(sorted.out, "outer", "cuda_mem_bytes") == 1u << 20);
  CHECK(json_u64(sorted.out, "cudaMallocHost", "self_cpu_mem_bytes") == 4096);
  CHECK(json_field(sorted.out, "cudaFree", "self_cuda_mem_bytes") == std::string("-1048576"));
}

TEST_CASE("Without memory events there are no memory columns", "[table][memory]") {
  ChunkBuilder c(0);
  c.string(1, "a");
  c.range(1, 1, 0, 10);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path()});
  CHECK_THAT(r.out, !Catch::Contains("Mem"));
}

TEST_CASE("--group-by-input-shape splits rows by launch configuration and transfer size", "[table][shapes]") {
  ChunkBuilder c(0);
  c.string(1, "cudaLaunchKernel").string(2, "_Z1kv").string(3, "cudaMemcpyAsync");
  for (uint32_t i = 0; i < 3; ++i) {
    auto& launch = c.api_call(1, 1, 1'000 * i, 1'000 * i + 100, 10 + i);
    launch.mutable_launch()->set_grid_x_minus_one(i == 2 ? 1 : 0);
    launch.mutable_launch()->set_block_x_minus_one(255);
    auto& k = c.kernel(2, 1'000 * i + 200, 1'000 * i + 700, 10 + i);
    k.set_grid_x_minus_one(i == 2 ? 1 : 0);
    k.set_block_x_minus_one(255);
    k.set_static_shared_bytes(16);
  }
  auto& copy = c.api_call(1, 3, 5'000, 5'100, 20);
  copy.mutable_transfer()->set_bytes(4096);
  copy.mutable_transfer()->set_kind(prof::proto::HOST_TO_DEVICE);
  c.memcpy(5'200, 5'300, 4096, 20);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());

  CliResult plain = run_cli({"report", f.path()});
  CHECK_THAT(plain.out, !Catch::Contains("Input Shapes"));
  CliResult r = run_cli({"report", f.path(), "--group-by-input-shape"});
  REQUIRE(r.exit_code == 0);
  // Input Shapes: min(longest + 4, 80) wide, right-aligned.
  CHECK_THAT(r.out, Catch::Contains("# of Calls                                           Input Shapes  \n"));
  CHECK_THAT(r.out, Catch::Contains("             2      grid=[1, 1, 1] block=[256, 1, 1] dynamic shared=0  \n"));
  CHECK_THAT(r.out, Catch::Contains("             1      grid=[2, 1, 1] block=[256, 1, 1] dynamic shared=0  \n"));
  CHECK_THAT(r.out, Catch::Contains("             2             grid=[1, 1, 1] block=[256, 1, 1] shared=16  \n"));
  CHECK_THAT(r.out, Catch::Contains("             1             grid=[2, 1, 1] block=[256, 1, 1] shared=16  \n"));
  CHECK_THAT(r.out, Catch::Contains("             1                                            HtoD 4096 B  \n"));
}

TEST_CASE("--group-by-stack-n names frames module+offset and prints torch's stack rows", "[table][stacks]") {
  ChunkBuilder c(0);
  c.string(1, "cudaMalloc").string(2, "train.py").string(3, "step");
  auto& module = *c.raw().add_modules();
  module.set_id(1);
  module.set_path("/usr/lib/libtrainer.so");
  module.set_load_address(0x7f0000000000);
  module.set_bias(0x7f0000000000);
  auto frame = [&](uint64_t id, uint64_t address, uint64_t module_id) {
    auto& f = *c.raw().add_frames();
    f.set_id(id);
    f.set_kind(prof::proto::Frame::NATIVE);
    f.set_address(address);
    f.set_module_id(module_id);
  };
  frame(1, 0x7f0000001a2b, 1);
  frame(2, 0x4242, 0);
  auto& py = *c.raw().add_frames();
  py.set_id(3);
  py.set_kind(prof::proto::Frame::PYTHON);
  py.set_function_name_id(3);
  py.set_file_name_id(2);
  py.set_line(12);
  auto stack = [&](uint64_t id, std::vector<uint64_t> frames) {
    auto& s = *c.raw().add_stacks();
    s.set_id(id);
    for (uint64_t f : frames) s.add_frame_ids(f);
  };
  stack(1, {1, 2});
  stack(2, {2});
  stack(3, {1, 3, 2});  // mixed: native leaf, a Python frame, native root
  c.api_call(1, 1, 0, 100).set_stack_id(1);
  c.api_call(1, 1, 200, 300).set_stack_id(1);
  c.api_call(1, 1, 400, 500).set_stack_id(2);
  c.api_call(1, 1, 600, 700).set_stack_id(3);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());

  CliResult r = run_cli({"report", f.path(), "--group-by-stack-n", "2"});
  REQUIRE(r.exit_code == 0);
  // Widest frame "libtrainer.so+0x1a2b" (20) + 4.
  CHECK_THAT(r.out, Catch::Contains("# of Calls  Source Location           \n"));
  // The first frame on the row, each further one on a row of its own, then a blank row.
  // Empty cells: Name (14 + 2) and six 12-wide columns (+ 2 each).
  const std::string empty(16 + 6 * 14, ' ');
  CHECK_THAT(r.out, Catch::Contains("             2  libtrainer.so+0x1a2b      \n" + empty + "0x4242                    \n" +
                                    empty + std::string(26, ' ') + "\n"));
  CHECK_THAT(r.out, Catch::Contains("             1  0x4242                    \n" + empty + std::string(26, ' ') + "\n"));
  // A stack with Python frames is grouped by its Python frames alone, as torch's.
  CHECK_THAT(r.out, Catch::Contains("             1  train.py(12): step        \n" + empty + std::string(26, ' ') + "\n"));
  CliResult one = run_cli({"report", f.path(), "--group-by-stack-n", "1", "--format", "json"});
  CHECK_THAT(one.out, Catch::Contains("\"stack\":[\"libtrainer.so+0x1a2b\"]"));
  CHECK_THAT(one.out, Catch::Contains("\"stack\":[\"0x4242\"]"));
  CHECK_THAT(one.out, Catch::Contains("\"stack\":[\"train.py(12): step\"]"));
}

TEST_CASE("torch's trim_path keeps the tail of long frames", "[table][stacks]") {
  CHECK(prof::analyzer::trim_source_path("short", 10) == "short");
  CHECK(prof::analyzer::trim_source_path("abcdefghijklmnop", 10) == "...jklmnop");
}

TEST_CASE("--top-level-only hides rows whose first event has a parent, and they do not use up the row limit",
          "[table]") {
  TempFile f;
  f.write(memory_capture());
  CliResult r = run_cli({"report", f.path(), "--top-level-only"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(" outer  "));
  CHECK_THAT(r.out, !Catch::Contains(" inner  "));
  CHECK_THAT(r.out, !Catch::Contains("cudaMalloc  "));
  CliResult limited = run_cli({"report", f.path(), "--top-level-only", "--row-limit", "1", "--format", "csv"});
  CHECK(line_count(limited.out) == 2);
  CHECK_THAT(limited.out, Catch::Contains("\nall,outer,"));
}

TEST_CASE("csv quotes per RFC 4180 and json escapes names", "[table][format]") {
  ChunkBuilder c(0);
  c.string(1, "a,\"b\"").string(2, "tab\there");
  c.range(1, 1, 0, 1'000);
  c.range(1, 2, 2'000, 2'500);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult csv = run_cli({"report", f.path(), "--format", "csv"});
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Catch::StartsWith("Window,Name,Self CPU %,Self CPU (ns),CPU total %,CPU total (ns),"));
  CHECK_THAT(csv.out, Catch::Contains("\nall,\"a,\"\"b\"\"\",66.67,1000,66.67,1000,1000.000,0,,0,"));
  CHECK(line_count(csv.out) == 3);
  CliResult json = run_cli({"report", f.path(), "--format", "json"});
  CHECK_THAT(json.out, Catch::StartsWith("{\"view\":\"table\",\"windows\":[{\"window\":null,\"title\":\"Whole run\""));
  CHECK_THAT(json.out, Catch::Contains("{\"name\":\"a,\\\"b\\\"\",\"self_cpu_pct\":66.67,\"self_cpu_ns\":1000,"));
  CHECK_THAT(json.out, Catch::Contains("\"name\":\"tab\\there\""));
  CHECK_THAT(json.out, Catch::EndsWith("\"drops\":{\"agent_buffers\":0,\"cupti\":0,\"truncated_payloads\":0},"
                                       "\"unterminated_ranges\":0}\n"));
}

TEST_CASE("Drops and unterminated ranges are owned up to in a footer", "[table]") {
  ChunkBuilder c(0);
  c.string(1, "a");
  c.range(1, 1, 0, 10).set_unterminated(true);
  c.drops(5, 7, 0);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path()});
  CHECK_THAT(r.out, Catch::Contains("\nrecords dropped: 5 (agent buffers), 7 (CUPTI)\n"));
  CHECK_THAT(r.out, Catch::Contains("\nunterminated NVTX ranges: 1 "));
  ChunkBuilder clean(0);
  TempFile g;
  g.write(CaptureFileWriter().chunk(clean.finish()).bytes());
  CHECK_THAT(run_cli({"report", g.path()}).out, !Catch::Contains("dropped"));
}
