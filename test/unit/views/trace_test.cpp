// trace: Chrome trace JSON of the fixed capture. The full structural checks
// (valid JSON, every "X" with ts/dur/pid/tid, flows paired) are in
// check_trace.py; these pin the CLI's files, windows, gzip and warnings.
#include <catch2/catch.hpp>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "analyzer_test_support.h"
#include "views_capture.h"
#include "cli/trace_command.h"

using prof::testing::run_cli;
using prof::testing::TempFile;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string gunzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  REQUIRE(file != nullptr);
  std::string out;
  char buf[4096];
  int n = 0;
  while ((n = gzread(file, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  gzclose(file);
  return out;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A fresh directory under the temp dir, removed at the end.
struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("profanalyze-trace-test-" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

}  // namespace

TEST_CASE("trace writes Kineto's categories, args, flows and metadata") {
  TempFile capture("trace");
  capture.write(prof::testing::views_capture());
  const auto r = run_cli({"trace", capture.path(), "-o", "-"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const std::string& json = r.out;
  CHECK(json.rfind("{\"schemaVersion\":1,", 0) == 0);
  // Spaced as Kineto writes it: HTA finds the rank with "rank":\s+(\d+).
  CHECK(json.find("\"distributedInfo\":{\"rank\": 0, \"world_size\": 2, \"hostname\": \"node1\", \"pid\": 4242}") !=
        std::string::npos);
  CHECK(json.find("\"maxThreadsPerMultiprocessor\":2048,\"regsPerBlock\":65536,\"regsPerMultiprocessor\":65536,"
                  "\"warpSize\":32,\"sharedMemPerBlock\":49152,\"sharedMemPerMultiprocessor\":233472,\"numSms\":100") !=
        std::string::npos);
  // The first event is at 1 us on the monotonic clock: the origin.
  CHECK(json.find("\"baseTimeNanoseconds\":1700000000000001000") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu \\\"fast\\\" kernel;v2\",\"pid\":0,\"tid\":7,"
                  "\"ts\":12.000,\"dur\":0.600,\"args\":{\"queued\":0,\"device\":0,\"context\":0,\"stream\":7,"
                  "\"correlation\":5,\"registers per thread\":32,\"shared memory\":1024,\"blocks per SM\":1.280,"
                  "\"warps per SM\":10.240,\"grid\":[128,1,1],\"block\":[256,1,1],"
                  // 8 blocks of 256 threads fit an SM (warps and registers both allow 8), but the grid
                  // has 1.28 per SM: 1.28 x 256 / 2048 threads.
                  "\"est. achieved occupancy %\":16,\"graph id\":0,\"graph node id\":0}}") != std::string::npos);
  CHECK(json.find("\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\"") != std::string::npos);
  CHECK(json.find("\"bytes\":4000000,\"memory bandwidth (GB/s)\":2000.000,\"kind\":\"HtoD\"") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":4242,\"tid\":7,"
                  "\"ts\":5.000,\"dur\":1.000,\"args\":{\"cbid\":0,\"correlation\":3") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\"") != std::string::npos);
  CHECK(count(json, "\"cat\":\"cuda_runtime\"") == 6);
  // Five launches with recorded calls: five arrows; none for correlation 99.
  CHECK(count(json, "{\"ph\":\"s\",\"cat\":\"ac2g\"") == 5);
  CHECK(count(json, "{\"ph\":\"f\",\"cat\":\"ac2g\"") == 5);
  CHECK(json.find("\"id\":99") == std::string::npos);
  CHECK(json.find("{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":0,\"tid\":9,\"id\":7,\"ts\":18.000,"
                  "\"bp\":\"e\"}") != std::string::npos);
  // Ranges: on the thread, and on each stream over the work they launched.
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":4242,\"tid\":7,"
                  "\"ts\":10.000,\"dur\":10.000") != std::string::npos);
  // On the GPU, padded as Kineto pads them (1 ns before, 2 ns after) and
  // with the range's External id only: device or stream args make readers
  // count the span as GPU work.
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":4242,\"tid\":7,"
                  "\"ts\":10.000,\"dur\":10.000,\"args\":{\"External id\":") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":0,\"tid\":7,"
                  "\"ts\":11.999,\"dur\":6.003,\"args\":{\"External id\":") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":0,\"tid\":9,"
                  "\"ts\":17.999,\"dur\":0.603,\"args\":{\"External id\":") != std::string::npos);
  // [memory] instant events, as TensorBoard's memory view reads them.
  CHECK(json.find("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":4242,"
                  "\"tid\":7,\"ts\":8.200,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":0,\"Bytes\":1048576,"
                  "\"Total Allocated\":1048576,\"Total Reserved\":1048576}}") != std::string::npos);
  CHECK(json.find("{\"ph\":\"b\",\"cat\":\"user_annotation\",\"name\":\"myLib:data load\"") != std::string::npos);
  CHECK(json.find("\"name\":\"prefetch;\\tbatch\"") != std::string::npos);
  // Memory in use, as a counter on the GPU.
  CHECK(json.find("{\"ph\":\"C\",\"name\":\"GPU 0 memory in use\",\"pid\":0,\"ts\":8.200,\"args\":{\"bytes\":1048576}}") !=
        std::string::npos);
  CHECK(json.find("\"args\":{\"bytes\":0}}") != std::string::npos);
  // Rows named.
  CHECK(json.find("\"name\":\"thread_name\",\"pid\":4242,\"tid\":7,\"ts\":0,\"args\":{\"name\":\"thread 7 (main)\"}") !=
        std::string::npos);
  CHECK(json.find("\"name\":\"thread_name\",\"pid\":0,\"tid\":9,\"ts\":0,\"args\":{\"name\":\"stream 9\"}") !=
        std::string::npos);
  CHECK(json.find("\"args\":{\"labels\":\"CPU, rank 0, host node1\"}") != std::string::npos);
  CHECK(json.find("\"args\":{\"labels\":\"GPU 0, Simulated GPU\"}") != std::string::npos);
  CHECK(json.find("\"profanalyze\":{\"events\":24,\"events_left_out\":0}}\n") != std::string::npos);
}

TEST_CASE("trace to .json.gz is the same JSON, gzip-compressed") {
  TempFile capture("trace-gz");
  capture.write(prof::testing::views_capture());
  TempDir dir;
  const std::string plain = (dir.path / "t.json").string(), gz = (dir.path / "t.json.gz").string();
  const auto a = run_cli({"trace", capture.path(), "-o", plain});
  const auto b = run_cli({"trace", capture.path(), "-o", gz});
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  CHECK(a.out == plain + ": 24 events\n");
  const std::string compressed = read_file(gz);
  REQUIRE(compressed.size() > 2);
  CHECK(static_cast<unsigned char>(compressed[0]) == 0x1f);  // gzip magic
  CHECK(static_cast<unsigned char>(compressed[1]) == 0x8b);
  CHECK(gunzip(gz) == read_file(plain));
}

TEST_CASE("trace with a schedule writes one file per window, named by its last step") {
  TempFile capture("trace-windows");
  capture.write(prof::testing::views_capture());
  TempDir dir;
  const std::string out = (dir.path / "trace.json").string();
  const auto r = run_cli({"trace", capture.path(), "-o", out, "--active", "1"});
  REQUIRE(r.exit_code == 0);
  CHECK(!std::filesystem::exists(out));
  const std::string step0 = read_file((dir.path / "trace.0.pt.trace.json").string());
  const std::string step1 = read_file((dir.path / "trace.1.pt.trace.json").string());
  CHECK(step0.find("\"name\":\"ProfilerStep#0\"") != std::string::npos);
  CHECK(step0.find("\"name\":\"ProfilerStep#1\"") == std::string::npos);
  CHECK(step1.find("\"name\":\"ProfilerStep#1\"") != std::string::npos);
  CHECK(step1.find("\"traceName\":\"profanalyze trace, Window 1: step 1\"") != std::string::npos);
  CHECK(r.out.find("trace.1.pt.trace.json: ") != std::string::npos);
  CHECK(run_cli({"trace", capture.path(), "-o", "-", "--active", "1"}).exit_code == 2);
}

TEST_CASE("trace warns when it is cut by --max-events or is too big for viewers") {
  TempFile capture("trace-limits");
  capture.write(prof::testing::views_capture());
  const auto cut = run_cli({"trace", capture.path(), "-o", "-", "--max-events", "5"});
  REQUIRE(cut.exit_code == 0);
  CHECK(cut.out.find("\"profanalyze\":{\"events\":5,\"events_left_out\":19}") != std::string::npos);
  CHECK(cut.err.find("warning: <stdout>: stopped at --max-events 5: 19 of 24 events left out") != std::string::npos);
  CHECK(cut.err.find("--active") != std::string::npos);
  const auto big = run_cli({"trace", capture.path(), "-o", "-", "--warn-size-mb", "0"});
  CHECK(big.err.find("MB of JSON (24 events); viewers struggle above ~0 MB") != std::string::npos);
  CHECK(big.err.find("--max-events N") != std::string::npos);
}

TEST_CASE("trace of two processes: one timeline, distinct rows and flow ids") {
  TempFile a("rank0"), b("rank1");
  a.write(prof::testing::views_capture());
  prof::testing::ViewsCaptureOptions rank1;
  rank1.pid = 4243;
  rank1.rank = 1;
  rank1.realtime_offset_ns += 5000;  // its clock reads 5 us more for the same instant
  b.write(prof::testing::views_capture(rank1));
  const auto r = run_cli({"trace", a.path(), b.path(), "-o", "-"});
  REQUIRE(r.exit_code == 0);
  const std::string& json = r.out;
  // Rank 1's step 0 starts 5 us later on rank 0's clock.
  CHECK(json.find("\"name\":\"ProfilerStep#0\",\"pid\":4243,\"tid\":7,\"ts\":5.000") != std::string::npos);
  CHECK(json.find("\"name\":\"ProfilerStep#0\",\"pid\":4242,\"tid\":7,\"ts\":0.000") != std::string::npos);
  // GPU rows per process and device; flow ids carry the process.
  CHECK(json.find("\"args\":{\"name\":\"GPU 0 (pid 4243)\"}") != std::string::npos);
  CHECK(json.find("\"id\":4294967297,") != std::string::npos);  // process 1, correlation 1
  CHECK(json.find("\"args\":{\"labels\":\"CPU, rank 1, host node1\"}") != std::string::npos);
}

TEST_CASE("window trace files are named like on_trace_ready's") {
  using prof::analyzer::window_trace_path;
  CHECK(window_trace_path("trace.json", 7) == "trace.7.pt.trace.json");
  CHECK(window_trace_path("out/run.v2/trace.json.gz", 12) == "out/run.v2/trace.12.pt.trace.json.gz");
  CHECK(window_trace_path("trace", 3) == "trace.3.pt.trace.json");
  CHECK(window_trace_path("dir/.trace.json", 3) == "dir/.trace.3.pt.trace.json");
  CHECK(window_trace_path("tb/worker0.pt.trace.json", 5) == "tb/worker0.5.pt.trace.json");
}
