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
#include "model/run.h"
#include "views/chrome_trace.h"
#include "views/start_order.h"
#include "views/trace_file.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <sstream>
#include <tuple>

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
  // The first event is at 1 us on the monotonic clock, written as ts 100:
  // the run spans 20 us, and ts start at the power of ten above (readers'
  // differences of ts are then exact).
  CHECK(json.find("\"baseTimeNanoseconds\":1699999999999901000") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu \\\"fast\\\" kernel;v2\",\"pid\":0,\"tid\":7,"
                  "\"ts\":112.000,\"dur\":0.5999999999999943,\"args\":{\"queued\":0,\"device\":0,\"context\":0,\"stream\":7,"
                  "\"correlation\":5,\"registers per thread\":32,\"shared memory\":1024,\"blocks per SM\":1.280,"
                  "\"warps per SM\":10.240,\"grid\":[128,1,1],\"block\":[256,1,1],"
                  // 8 blocks of 256 threads fit an SM (warps and registers both allow 8), but the grid
                  // has 1.28 per SM: 1.28 x 256 / 2048 threads.
                  // The innermost range around its launch is its operator: its External id.
                  "\"est. achieved occupancy %\":16,\"graph id\":0,\"graph node id\":0,\"External id\":3}}") !=
        std::string::npos);
  CHECK(json.find("\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\"") != std::string::npos);
  CHECK(json.find("\"bytes\":4000000,\"memory bandwidth (GB/s)\":2000.000,\"kind\":\"HtoD\"") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":4242,\"tid\":7,"
                  "\"ts\":105.000,\"dur\":1.000,\"args\":{\"cbid\":0,\"correlation\":3") != std::string::npos);
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\"") != std::string::npos);
  CHECK(count(json, "\"cat\":\"cuda_runtime\"") == 6);
  // Five launches with recorded calls: five arrows; none for correlation 99.
  CHECK(count(json, "{\"ph\":\"s\",\"cat\":\"ac2g\"") == 5);
  CHECK(count(json, "{\"ph\":\"f\",\"cat\":\"ac2g\"") == 5);
  CHECK(json.find("\"id\":99") == std::string::npos);
  CHECK(json.find("{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":0,\"tid\":9,\"id\":7,\"ts\":118.000,"
                  "\"bp\":\"e\"}") != std::string::npos);
  // Ranges: on the thread, and on each stream over the work they launched.
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":4242,\"tid\":7,"
                  "\"ts\":110.000,\"dur\":10.000,\"args\":{\"External id\":") != std::string::npos);
  // On the GPU, one per operation for its innermost range, padded as Kineto
  // pads them (1 ns before, 2 ns after) and with the range's External id
  // only: device or stream args make readers count the span as GPU work.
  // None named ProfilerStep#: readers take every such event for a step.
  CHECK(json.find("{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"forward\",\"pid\":0,\"tid\":7,"
                  "\"ts\":103.999,\"dur\":2.003,\"args\":{\"External id\":") != std::string::npos);
  CHECK(json.find("\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#") == std::string::npos);
  // [memory] instant events, as TensorBoard's memory view reads them.
  CHECK(json.find("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":4242,"
                  "\"tid\":7,\"ts\":108.200,\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":0,\"Bytes\":1048576,"
                  "\"Total Allocated\":1048576,\"Total Reserved\":1048576}}") != std::string::npos);
  CHECK(json.find("{\"ph\":\"b\",\"cat\":\"user_annotation\",\"name\":\"myLib:data load\"") != std::string::npos);
  CHECK(json.find("\"name\":\"prefetch;\\tbatch\"") != std::string::npos);
  // Memory in use, as a counter on the GPU.
  CHECK(json.find("{\"ph\":\"C\",\"cat\":\"memory\",\"name\":\"GPU 0 memory in use\",\"pid\":0,\"ts\":108.200,\"args\":{\"bytes\":1048576}}") !=
        std::string::npos);
  CHECK(json.find("\"args\":{\"bytes\":0}}") != std::string::npos);
  // Rows named.
  CHECK(json.find("\"name\":\"thread_name\",\"pid\":4242,\"tid\":7,\"ts\":0,\"args\":{\"name\":\"thread 7 (main)\"}") !=
        std::string::npos);
  CHECK(json.find("\"name\":\"thread_name\",\"pid\":0,\"tid\":9,\"ts\":0,\"args\":{\"name\":\"stream 9\"}") !=
        std::string::npos);
  CHECK(json.find("\"args\":{\"labels\":\"CPU, rank 0, host node1\"}") != std::string::npos);
  CHECK(json.find("\"args\":{\"labels\":\"GPU 0, Simulated GPU\"}") != std::string::npos);
  CHECK(json.find("\"profanalyze\":{\"events\":22,\"events_left_out\":0}}\n") != std::string::npos);
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
  // Every entry of traceEvents is counted, metadata and flows too: each has a "ph".
  const std::string json = read_file(plain);
  size_t entries = 0;
  for (size_t at = json.find("\"ph\":"); at != std::string::npos; at = json.find("\"ph\":", at + 1)) ++entries;
  CHECK(entries == 49);
  CHECK(a.out == plain + ": " + std::to_string(entries) + " events\n");
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
  CHECK(cut.out.find("\"profanalyze\":{\"events\":5,\"events_left_out\":17}") != std::string::npos);
  CHECK(cut.err.find("warning: <stdout>: stopped at --max-events 5: 17 of 22 events left out") != std::string::npos);
  CHECK(cut.err.find("--active") != std::string::npos);
  const auto big = run_cli({"trace", capture.path(), "-o", "-", "--warn-size-mb", "0"});
  CHECK(big.err.find("MB of JSON (49 events); viewers struggle above ~0 MB") != std::string::npos);
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
  CHECK(json.find("\"name\":\"ProfilerStep#0\",\"pid\":4243,\"tid\":7,\"ts\":105.000") != std::string::npos);
  CHECK(json.find("\"name\":\"ProfilerStep#0\",\"pid\":4242,\"tid\":7,\"ts\":100.000") != std::string::npos);
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
  // Zero-padded to the widest window's step: listings, and TensorBoard's
  // span list (sorted as strings), are then in step order.
  CHECK(window_trace_path("trace.json", 7, 2) == "trace.07.pt.trace.json");
  CHECK(window_trace_path("trace.json", 12, 2) == "trace.12.pt.trace.json");
  CHECK(window_trace_path("trace.json", 123, 2) == "trace.123.pt.trace.json");
}

namespace {

using prof::analyzer::CpuEvent;
using prof::analyzer::CpuEventKind;
using prof::analyzer::GpuActivity;
using prof::analyzer::Run;

// A run of one process: `ranges` push/pop ranges and calls on thread 1 (in
// that order, so a call sits inside the ranges before it when its times do),
// and GPU work each launched by call `launched_by` on stream `stream`.
struct Work {
  uint64_t start_ns, end_ns;
  int64_t launched_by;
  uint32_t stream = 7;
};
Run make_run(const std::vector<std::tuple<const char*, uint64_t, uint64_t>>& cpu, const std::vector<Work>& gpu) {
  Run run;
  run.processes.emplace_back();
  uint32_t correlation = 0;
  for (const auto& [name, start, end] : cpu) {
    CpuEvent e;
    e.start_ns = start;
    e.end_ns = end;
    e.tid = 1;
    e.name = run.intern(name);
    const bool call = std::string_view(name).rfind("cuda", 0) == 0;
    e.kind = call ? CpuEventKind::kApiCall : CpuEventKind::kPushPopRange;
    e.set_correlation_id(call ? ++correlation : 0);
    run.cpu_events.push_back(e);
  }
  for (const Work& w : gpu) {
    GpuActivity g;
    g.start_ns = w.start_ns;
    g.end_ns = w.end_ns;
    g.launched_by = w.launched_by;
    g.correlation_id = run.cpu_events[static_cast<size_t>(w.launched_by)].correlation_id();
    g.place = run.gpu_places.intern({.stream_id = w.stream});
    g.name = run.intern("k");
    run.gpu_activities.push_back(g);
  }
  return run;
}

std::string trace_of(const Run& run, prof::analyzer::ChromeTraceOptions options = {}) {
  std::ostringstream out;
  prof::analyzer::StreamTraceSink sink(out);
  prof::analyzer::write_chrome_trace(run, options, sink);
  return out.str();
}

// The "X" events of a category: name, start and duration in ns from the
// trace's first ts (read as a reader reads them), and ts and dur as doubles.
struct XEvent {
  std::string name;
  int64_t start_ns;
  int64_t duration_ns;
  double ts, dur;
};
// The number after `"key":` in the event that starts at `event` (up to its
// first '}'), or nullopt.
std::optional<double> number_in_event(const std::string& json, size_t event, const std::string& key) {
  const size_t end = json.find('}', event);
  const size_t at = json.find("\"" + key + "\":", event);
  if (at == std::string::npos || at > end) return std::nullopt;
  return std::stod(json.substr(at + key.size() + 3, end - at));
}
std::vector<XEvent> x_events(const std::string& json, const std::string& cat) {
  // The first timed event's ts is what a reader counts from. (Scanned by
  // hand: std::regex sets off GCC 12's -Wmaybe-uninitialized under ASan.)
  double base = 0;
  for (size_t at = json.find("{\"ph\":\""); at != std::string::npos; at = json.find("{\"ph\":\"", at + 1)) {
    if (std::string("XisfbeC").find(json[at + 7]) == std::string::npos) continue;
    if (const auto ts = number_in_event(json, at, "ts")) {
      base = *ts;
      break;
    }
  }
  std::vector<XEvent> found;
  const std::string head = "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"";
  for (size_t at = json.find(head); at != std::string::npos; at = json.find(head, at + 1)) {
    const size_t name = at + head.size();
    const auto ts = number_in_event(json, at, "ts");
    const auto dur = number_in_event(json, at, "dur");
    REQUIRE(ts);
    REQUIRE(dur);
    found.push_back({json.substr(name, json.find('"', name) - name), std::llround((*ts - base) * 1000),
                     std::llround(*dur * 1000), *ts, *dur});
  }
  return found;
}
std::tuple<std::string, int64_t, int64_t> span_of(const XEvent& e) { return {e.name, e.start_ns, e.duration_ns}; }
using Span = std::tuple<std::string, int64_t, int64_t>;

}  // namespace

TEST_CASE("gpu_user_annotation: one per operation, its innermost range, padded only where the stream leaves room") {
  // ProfilerStep#0 > forward > two launches, then a launch in the step only.
  // The first two kernels run back to back; the third starts 1 ns after.
  const Run run = make_run({{"ProfilerStep#0", 0, 1000}, {"forward", 10, 500}, {"cudaLaunchKernel", 20, 30},
                            {"cudaLaunchKernel", 40, 50}, {"cudaLaunchKernel", 600, 610}},
                           {{2000, 3000, 2}, {3000, 4000, 3}, {4001, 5000, 4}});
  const std::string json = trace_of(run);
  const auto annotations = x_events(json, "gpu_user_annotation");
  // None for the kernel whose innermost range is the step: readers count
  // every event named ProfilerStep# as a step.
  REQUIRE(annotations.size() == 2);
  // 1 ns before the first kernel; after it, none: the next one starts there.
  CHECK(span_of(annotations[0]) == Span{"forward", 1999, 1001});
  // Before the second kernel none (the first ends there), after it 1 ns of
  // the 2 (the third starts 1 ns later).
  CHECK(span_of(annotations[1]) == Span{"forward", 3000, 1001});
  CHECK(json.find("\"displayTimeUnit\":\"ns\"") != std::string::npos);
}

TEST_CASE("ts + dur read as doubles is exactly the event's end") {
  // graph_replay's copy: 5029.716 + 1.328 is 5031.044000000001 in doubles,
  // after the next copy's start.
  const Run run = make_run({{"cudaGraphLaunch", 0, 10}}, {{5029716, 5031044, 0}, {5031044, 5032000, 0}});
  const std::string json = trace_of(run);
  const auto copies = x_events(json, "kernel");
  REQUIRE(copies.size() == 2);
  // As readers add them: ts + dur, and speedscope's (ts - first ts) + dur.
  CHECK(copies[0].ts + copies[0].dur == copies[1].ts);
  CHECK((copies[0].ts - copies[0].ts) + copies[0].dur == copies[1].ts - copies[0].ts);
  CHECK(span_of(copies[0]) == Span{"k", 5029716, 1328});
  CHECK(span_of(copies[1]) == Span{"k", 5031044, 956});
}

TEST_CASE("trace without steps gets one ProfilerStep#0 over its CPU events; --step's steps become ProfilerStep#N") {
  const Run run = make_run({{"cudaLaunchKernel", 100, 200}, {"cudaLaunchKernel", 300, 450}}, {{500, 600, 0}});
  const auto whole = x_events(trace_of(run), "user_annotation");
  REQUIRE(whole.size() == 1);
  CHECK(span_of(whole[0]) == Span{"ProfilerStep#0", 0, 350});

  prof::analyzer::ChromeTraceOptions options;
  options.steps = {{0, 0, 100, 300}, {0, 1, 300, 450}};
  options.step_rule = "api:cudaLaunchKernel";
  const std::string json = trace_of(run, options);
  const auto steps = x_events(json, "user_annotation");
  REQUIRE(steps.size() == 2);
  CHECK(span_of(steps[0]) == Span{"ProfilerStep#0", 0, 200});
  CHECK(span_of(steps[1]) == Span{"ProfilerStep#1", 200, 150});
  CHECK(json.find("\"args\":{\"step rule\":\"api:cudaLaunchKernel\"}") != std::string::npos);

  // A program's own ProfilerStep# ranges are its steps: nothing is added.
  const Run marked = make_run({{"ProfilerStep#4", 50, 500}, {"cudaLaunchKernel", 100, 200}}, {{500, 600, 1}});
  CHECK(x_events(trace_of(marked, options), "user_annotation").size() == 1);
}

TEST_CASE("trace ends on a copy inside a range that starts just below 0") {
  // Found by replaying such runs through the old writer (issue 27): it
  // lengthened the outer range's GPU span a nanosecond at a time until the
  // inner one's end, read as doubles, fitted, which wrapped-around times
  // never allow. A call and a copy that end before they start, a range from
  // 2^64 - 6, as a corrupt file can hold them.
  const uint64_t top = UINT64_MAX;
  Run run = make_run({{"outer", 5, 1607}, {"cudaLaunchKernel", 5, 948}, {"inner", top - 5, top},
                      {"cudaMemcpyAsync", top - 2, top - 5}},
                     {{751, 1, 1}, {10, 1281, 3}});
  const std::string json = trace_of(run);
  CHECK(json.find("\"profanalyze\":{\"events\":") != std::string::npos);
}

TEST_CASE("trace ends on corrupt times: work inside ranges that start just below 0 or end near 2^64") {
  // Issue 27: a copy inside an NVTX range with a start just below 0 made
  // trace lengthen a GPU span by a nanosecond at a time, forever. Here, the
  // times a corrupt file can hold, around 0 and 2^64 (ctest's timeout is the
  // hang's verdict), and a seeded spread of them.
  const uint64_t top = UINT64_MAX;
  const std::vector<uint64_t> edges = {0, 1, 2, 3, top - 3, top - 2, top - 1, top, uint64_t{1} << 53,
                                       (uint64_t{1} << 53) + 1, uint64_t{1} << 63};
  std::mt19937_64 random(27);
  for (int round = 0; round < 400; ++round) {
    auto pick = [&] { return random() % 3 == 0 ? random() : edges[random() % edges.size()]; };
    const uint64_t a = pick(), b = pick(), c = pick(), d = pick();
    const Run run = make_run({{"outer", a, b}, {"inner", a + 1, b}, {"cudaMemcpyAsync", c, d}, {"cudaLaunchKernel", c, d}},
                             {{c, d, 2}, {pick(), pick(), 3}, {d, d + 2, 3}});
    const std::string json = trace_of(run);
    CHECK(json.find("\"profanalyze\":{\"events\":") != std::string::npos);
  }
}

// trace writes each table in StartOrder and merges the tables as it goes: an
// order must be what a sort by (start, index) of the kept events gives, on
// both of its ways to sort (start and index packed into 64 bits, or pairs
// when the starts span too much for that) and when nothing needs sorting.
using prof::analyzer::StartOrder;

TEST_CASE("StartOrder orders kept events by start, then index") {
  std::mt19937_64 random(30);
  for (int round = 0; round < 600; ++round) {
    std::vector<uint64_t> starts(random() % 40);
    const int shape = round % 4;
    uint64_t t = random() % 1000;
    for (uint64_t& s : starts) {
      if (shape == 0) s = t += random() % 3;                                // in order, with ties
      if (shape == 1) s = 1000 + random() % 10;                             // many ties, any order
      if (shape == 2) s = random() % 3 == 0 ? UINT64_MAX - random() % 5 : random() % 7;  // too wide to pack
      if (shape == 3) s = random();
    }
    const bool keep_all = random() % 2 == 0;
    std::vector<bool> kept(starts.size());
    for (size_t i = 0; i < kept.size(); ++i) kept[i] = keep_all || random() % 3 != 0;

    std::vector<uint32_t> expected;
    for (uint32_t i = 0; i < starts.size(); ++i)
      if (kept[i]) expected.push_back(i);
    std::sort(expected.begin(), expected.end(),
              [&](uint32_t a, uint32_t b) { return std::tie(starts[a], a) < std::tie(starts[b], b); });

    const StartOrder order(
        starts.size(), [&](size_t i) { return bool(kept[i]); }, [&](size_t i) { return starts[i]; });
    std::vector<uint32_t> got;
    for (size_t k = 0; k < order.size(); ++k) got.push_back(order[k]);
    CHECK(got == expected);
  }
}

// Large tables, whose packed sort buffer glibc takes from mmap (its
// threshold starts at 128 KiB), so that realloc hands its second half back
// by mremap; and an odd count, whose indices written over the keys end
// mid-key.
TEST_CASE("StartOrder orders a large table, its keys sorted in place", "[trace]") {
  std::mt19937_64 random(31);
  for (const size_t count : {size_t{1} << 16, (size_t{1} << 20) + 3}) {
    std::vector<uint64_t> starts(count);
    for (uint64_t& s : starts) s = 5'000'000'000 + random() % (count / 2);  // ties
    std::vector<bool> kept(count);
    for (size_t i = 0; i < count; ++i) kept[i] = random() % 8 != 0;

    std::vector<uint32_t> expected;
    for (uint32_t i = 0; i < count; ++i)
      if (kept[i]) expected.push_back(i);
    std::sort(expected.begin(), expected.end(),
              [&](uint32_t a, uint32_t b) { return std::tie(starts[a], a) < std::tie(starts[b], b); });

    StartOrder order(count, [&](size_t i) { return bool(kept[i]); }, [&](size_t i) { return starts[i]; });
    const StartOrder moved = std::move(order);  // trace keeps its orders in an array
    REQUIRE(moved.size() == expected.size());
    size_t differ = 0;
    for (size_t k = 0; k < moved.size(); ++k) differ += moved[k] != expected[k];
    CHECK(differ == 0);
  }
}

// The GPU work's and the annotations' orders are merged from their streams'
// runs: the (start, index) order of the sort, also with ties inside a run
// out of index order, runs of one event or none, and a run out of start
// order (which makes it the sort). arrange() then puts a table in it.
TEST_CASE("StartOrder merges sorted runs as the sort orders them, and arranges a table", "[trace]") {
  std::mt19937_64 random(32);
  for (int round = 0; round < 800; ++round) {
    const size_t count = random() % 60;
    std::vector<uint64_t> starts(count);
    for (uint64_t& s : starts) s = 100 + random() % (round % 2 == 0 ? 8 : 1000);  // many ties, or few
    // Each index to a random run; a run's indices in start order, ties in
    // either index order.
    const size_t run_count = 1 + random() % 5;
    std::vector<std::vector<uint32_t>> runs(run_count);
    for (uint32_t i = 0; i < count; ++i) runs[random() % run_count].push_back(i);
    const bool disorder = round % 7 == 0;
    for (std::vector<uint32_t>& run : runs) {
      std::shuffle(run.begin(), run.end(), random);
      if (!disorder)
        std::stable_sort(run.begin(), run.end(), [&](uint32_t a, uint32_t b) { return starts[a] < starts[b]; });
    }
    std::vector<prof::analyzer::SortedRun> given;
    for (const std::vector<uint32_t>& run : runs) given.push_back({run.data(), 0, run.size()});
    if (round % 3 == 0 && count > 0) {  // and one run given as a range of the table (no indices)
      given.clear();
      std::sort(starts.begin(), starts.begin() + static_cast<long>(count / 2));
      std::sort(starts.begin() + static_cast<long>(count / 2), starts.end());
      given.push_back({nullptr, 0, count / 2});
      given.push_back({nullptr, static_cast<uint32_t>(count / 2), count - count / 2});
    }
    std::vector<uint32_t> expected(count);
    for (uint32_t i = 0; i < count; ++i) expected[i] = i;
    std::sort(expected.begin(), expected.end(),
              [&](uint32_t a, uint32_t b) { return std::tie(starts[a], a) < std::tie(starts[b], b); });

    StartOrder order = StartOrder::merged(given, [&](size_t i) { return starts[i]; });
    std::vector<uint32_t> got;
    for (size_t k = 0; k < order.size(); ++k) got.push_back(order[k]);
    CHECK(got == expected);

    std::vector<uint64_t> table = starts;
    order.arrange(table);
    std::vector<uint64_t> arranged;
    for (uint32_t i : expected) arranged.push_back(starts[i]);
    CHECK(table == arranged);
    for (size_t k = 0; k < order.size(); ++k) CHECK(order[k] == k);  // the identity now
  }
}
