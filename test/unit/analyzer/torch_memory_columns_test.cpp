// report's CUDA Mem / Self CUDA Mem (and CPU Mem) columns from tensor
// memory, by torch.profiler's rule (_parse_kineto_results, MemRecordsAcc):
// an event's memory is the allocations minus the frees of its process whose
// time lies in [start, end] (ends included, any thread); Self takes out the
// direct children's; what no event holds is torch's "[memory]" row.
#include <catch2/catch.hpp>

#include <sstream>

#include "analyzer_test_support.h"
#include "json_probe.h"
#include "key_averages_oracle.h"
#include "model/range_tree.h"
#include "views/key_averages.h"

using namespace prof::testing;
using namespace prof::analyzer;

namespace {

int64_t json_i64(const std::string& json, const std::string& name, const std::string& field) {
  const auto v = json_field(json, name, field);
  return v ? std::stoll(*v) : INT64_MIN;
}

// Thread 1: aten::linear [100, 500] > aten::addmm [200, 300] > cudaLaunchKernel [250, 260],
//           cudaMalloc [410, 440] inside aten::linear (a 2 MiB segment, corr 9),
//           aten::add [600, 700].
// Thread 2: AddmmBackward0 [150, 450].
// Tensor blocks (+ handed out, - taken back), all on device 0:
//   100 +1024   200 +2048   255 +4096   300 -1024   400 +512
//   500 -2048   550 +8      650 +1536   800 -4096
std::string capture_bytes(int32_t device = 0) {
  ChunkBuilder c(0);
  c.string(1, "aten::linear, op_id = 1, sizes = [[64, 128], [256, 128], [256]]")
      .string(2, "aten::addmm, seq = 7, op_id = 2")
      .string(3, "cudaLaunchKernel")
      .string(4, "aten::add, op_id = 3")
      .string(5, "AddmmBackward0, seq = 7, op_id = 4")
      .string(6, "cudaMalloc");
  c.range(1, 1, 100, 500);
  c.range(1, 2, 200, 300);
  c.api_call(1, 3, 250, 260, 1);
  c.api_call(1, 6, 410, 440, 9);
  c.range(1, 4, 600, 700);
  c.range(2, 5, 150, 450);
  c.memory_event(420, 2 << 20).set_correlation_id(9);
  for (auto [time, bytes] : std::initializer_list<std::pair<uint64_t, int64_t>>{
           {100, 1024}, {200, 2048}, {255, 4096}, {300, -1024}, {400, 512},
           {500, -2048}, {550, 8}, {650, 1536}, {800, -4096}})
    c.tensor_memory(time, bytes, device);
  return CaptureFileWriter().chunk(c.finish()).bytes();
}

// The cells of the table row named `name`, split on runs of two or more
// spaces (the table's column gap).
std::vector<std::string> row_cells(const std::string& table, const std::string& name) {
  std::istringstream lines(table);
  std::string line;
  while (std::getline(lines, line)) {
    line.erase(0, line.find_first_not_of(' '));  // names are right-aligned, as torch's
    if (line.rfind(name + "  ", 0) != 0) continue;
    std::vector<std::string> cells;
    size_t at = 0;
    while (at < line.size()) {
      const size_t gap = line.find("  ", at);
      const std::string cell = line.substr(at, gap == std::string::npos ? std::string::npos : gap - at);
      if (!cell.empty()) cells.push_back(cell.substr(cell.find_first_not_of(' ')));
      if (gap == std::string::npos) break;
      at = line.find_first_not_of(' ', gap);
      if (at == std::string::npos) break;
    }
    return cells;
  }
  return {};
}

}  // namespace

TEST_CASE("CUDA Mem holds the tensor blocks of an operator's interval, Self CUDA Mem less its children's") {
  TempFile f;
  f.write(capture_bytes());
  const CliResult r = run_cli({"report", f.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  // 255: inside the launch.
  CHECK(json_i64(r.out, "cudaLaunchKernel", "cuda_mem_bytes") == 4096);
  CHECK(json_i64(r.out, "cudaLaunchKernel", "self_cuda_mem_bytes") == 4096);
  // 200 and 300 are its ends, both counted.
  CHECK(json_i64(r.out, "aten::addmm", "cuda_mem_bytes") == 2048 + 4096 - 1024);
  CHECK(json_i64(r.out, "aten::addmm", "self_cuda_mem_bytes") == 2048 - 1024);
  CHECK(json_i64(r.out, "aten::linear", "cuda_mem_bytes") == 1024 + 2048 + 4096 - 1024 + 512 - 2048);
  CHECK(json_i64(r.out, "aten::linear", "self_cuda_mem_bytes") == 1024 + 512 - 2048);
  // Another thread's blocks count too: torch matches by time alone.
  CHECK(json_i64(r.out, "AddmmBackward0", "cuda_mem_bytes") == 2048 + 4096 - 1024 + 512);
  CHECK(json_i64(r.out, "AddmmBackward0", "self_cuda_mem_bytes") == 2048 + 4096 - 1024 + 512);
  CHECK(json_i64(r.out, "aten::add", "self_cuda_mem_bytes") == 1536);
  // The 2 MiB segment cudaMalloc reserved is no tensor's: not counted.
  CHECK(json_i64(r.out, "cudaMalloc", "cuda_mem_bytes") == 0);
  // 550 and 800: inside no event.
  CHECK(json_u64(r.out, "[memory]", "calls") == 2);
  CHECK(json_i64(r.out, "[memory]", "cuda_mem_bytes") == 8 - 4096);
  CHECK(json_i64(r.out, "[memory]", "self_cuda_mem_bytes") == 8 - 4096);
  CHECK(json_u64(r.out, "[memory]", "cpu_total_ns") == 0);
}

TEST_CASE("the table shows CUDA Mem and Self CUDA Mem as torch prints them, before # of Calls") {
  TempFile f;
  f.write(capture_bytes());
  const CliResult r = run_cli({"report", f.path()});
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> header = row_cells(r.out, "Name");
  REQUIRE(header.size() >= 3);
  CHECK(header[header.size() - 3] == "CUDA Mem");
  CHECK(header[header.size() - 2] == "Self CUDA Mem");
  CHECK(header.back() == "# of Calls");
  CHECK(std::find(header.begin(), header.end(), "CPU Mem") == header.end());
  const std::vector<std::string> linear = row_cells(r.out, "aten::linear");
  REQUIRE(linear.size() == header.size());
  CHECK(linear[linear.size() - 3] == "4.50 KB");
  CHECK(linear[linear.size() - 2] == "-512 B");
  const std::vector<std::string> memory = row_cells(r.out, "[memory]");
  REQUIRE(memory.size() == header.size());
  CHECK(memory[memory.size() - 3] == "-3.99 KB");
  CHECK(memory.back() == "2");
  const std::vector<std::string> launch = row_cells(r.out, "cudaMalloc");
  REQUIRE(launch.size() == header.size());
  CHECK(launch[launch.size() - 3] == "0 B");
}

TEST_CASE("host tensor memory fills CPU Mem, and the segments keep CUDA Mem") {
  TempFile f;
  f.write(capture_bytes(-1));
  const CliResult r = run_cli({"report", f.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_i64(r.out, "aten::linear", "cpu_mem_bytes") == 1024 + 2048 + 4096 - 1024 + 512 - 2048);
  CHECK(json_i64(r.out, "aten::linear", "self_cpu_mem_bytes") == 1024 + 512 - 2048);
  CHECK(json_i64(r.out, "aten::linear", "cuda_mem_bytes") == 2 << 20);
  CHECK(json_i64(r.out, "cudaMalloc", "self_cuda_mem_bytes") == 2 << 20);
  CHECK(json_i64(r.out, "[memory]", "cpu_mem_bytes") == 8 - 4096);
  const CliResult table = run_cli({"report", f.path()});
  const std::vector<std::string> header = row_cells(table.out, "Name");
  REQUIRE(header.size() >= 5);
  CHECK(header[header.size() - 5] == "CPU Mem");
  CHECK(header[header.size() - 3] == "CUDA Mem");
}

TEST_CASE("a capture without tensor memory keeps the segments' columns and has no [memory] row") {
  ChunkBuilder c(0);
  c.string(1, "aten::empty, op_id = 1").string(2, "cudaMalloc");
  c.range(1, 1, 100, 500);
  c.api_call(1, 2, 200, 300, 9);
  c.memory_event(250, 4096).set_correlation_id(9);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  const CliResult r = run_cli({"report", f.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json_i64(r.out, "aten::empty", "cuda_mem_bytes") == 4096);
  CHECK(json_i64(r.out, "aten::empty", "self_cuda_mem_bytes") == 0);
  CHECK(json_i64(r.out, "cudaMalloc", "self_cuda_mem_bytes") == 4096);
  CHECK(r.out.find("[memory]") == std::string::npos);
}

TEST_CASE("the table's memory columns from the walk equal the tree's per-event figures") {
  TempFile f;
  f.write(capture_bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  for (const bool fold : {true, false}) {
    GroupOptions group;
    group.fold_driver_calls = fold;
    const std::vector<KeyAverage> walked = key_averages(run, group);
    const std::vector<KeyAverage> per_event = key_averages_oracle(run, group);
    REQUIRE(walked.size() >= 6);  // four operators, two calls and [memory]
    prof::testing::check_same_rows(walked, per_event);
  }
}
