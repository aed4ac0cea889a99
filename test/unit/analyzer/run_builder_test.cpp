// Loading into a Run: delta decoding, interning across chunks, undefined
// ids, drops, threads, durations, correlation, several files.
#include <catch2/catch.hpp>

#include "analyzer_test_support.h"
#include "io/capture_reader.h"
#include "io/end_of.h"

using namespace prof::testing;
using prof::analyzer::CpuEventKind;
using prof::analyzer::Run;

TEST_CASE("A record's end saturates instead of wrapping around", "[model][delta]") {
  CHECK(prof::analyzer::end_of(10, 5) == 15);
  CHECK(prof::analyzer::end_of(UINT64_MAX - 1, 5) == UINT64_MAX);
}

TEST_CASE("Start times decode to absolute times per list and per chunk", "[model][delta]") {
  ChunkBuilder c0(10'000);
  c0.string(1, "a").string(2, "k");
  c0.range(1, 1, 10'500, 11'000);
  c0.range(2, 1, 10'100, 10'200);  // negative delta: thread 2 is behind thread 1
  c0.range(1, 1, 12'000, 13'000);
  c0.kernel(2, 10'050, 10'060);  // its own list: relative to the base again
  ChunkBuilder c1(50'000);
  c1.range(1, 1, 49'000, 49'500);  // before its chunk's base
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).bytes());

  // The file really holds deltas, not absolute times.
  const auto encoded = c0.finish();
  CHECK(encoded.nvtx_ranges(0).start_delta_ns() == 500);
  CHECK(encoded.nvtx_ranges(1).start_delta_ns() == -400);

  Run run;
  REQUIRE(load({f.path()}, run).empty());
  REQUIRE(run.cpu_events.size() == 4);
  CHECK(run.cpu_events[0].start_ns == 10'500);
  CHECK(run.cpu_events[0].end_ns == 11'000);
  CHECK(run.cpu_events[1].start_ns == 10'100);
  CHECK(run.cpu_events[2].start_ns == 12'000);
  CHECK(run.cpu_events[3].start_ns == 49'000);
  REQUIRE(run.gpu_activities.size() == 1);
  CHECK(run.gpu_activities[0].start_ns == 10'050);
  CHECK(run.gpu_activities[0].end_ns == 10'060);
}

TEST_CASE("Interned strings defined in one chunk resolve in later chunks", "[model][interning]") {
  ChunkBuilder c0(0), c1(100), c2(200);
  c0.string(1, "defined-early").string(2, "cudaMalloc");
  c1.string(3, "defined-in-use-chunk").range(1, 3, 100, 150);
  c2.range(1, 1, 200, 250);
  c2.api_call(1, 2, 210, 220);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).chunk(c2.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  REQUIRE(run.cpu_events.size() == 3);
  CHECK(run.name(run.cpu_events[0].name) == "defined-in-use-chunk");
  CHECK(run.name(run.cpu_events[1].name) == "defined-early");
  CHECK(run.name(run.cpu_events[2].name) == "cudaMalloc");
  CHECK(run.cpu_events[2].kind == CpuEventKind::kApiCall);
  CHECK(run.processes[0].counts.strings == 3);
}

TEST_CASE("A record that uses an undefined string id is a corrupt file at its chunk", "[model][interning][bad-input]") {
  ChunkBuilder c0(0), c1(0);
  c0.string(1, "a").range(1, 1, 0, 10);
  c1.range(1, 99, 20, 30);
  const std::string first = framed(c0.finish());
  TempFile f;
  f.write(CaptureFileWriter().raw(first).chunk(c1.finish()).bytes());
  const uint64_t offset = CaptureFileWriter().size() + first.size();
  CliResult r = run_cli({"report", f.path()});
  CHECK(r.exit_code == prof::analyzer::kExitBadInput);
  CHECK(r.err == "profanalyze: " + f.path() + ": byte " + std::to_string(offset) +
                     ": chunk 1: NVTX range references undefined string id 99\n");
}

TEST_CASE("An id used before the chunk that defines it is an error", "[model][interning][bad-input]") {
  ChunkBuilder c0(0), c1(0);
  c0.api_call(1, 5, 0, 10);
  c1.string(5, "cudaFree");
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).bytes());
  Run run;
  CHECK_THAT(load({f.path()}, run), Catch::Contains("chunk 0: API call references undefined string id 5"));
}

TEST_CASE("A string redefined with another value is an error", "[model][interning][bad-input]") {
  ChunkBuilder c0(0), c1(0);
  c0.string(5, "one");
  c1.string(5, "two");
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).bytes());
  Run run;
  CHECK_THAT(load({f.path()}, run), Catch::Contains("string id 5 redefined"));
}

TEST_CASE("A stack id with no definition is an error", "[model][interning][bad-input]") {
  ChunkBuilder c0(0);
  c0.string(1, "cudaFree").api_call(1, 1, 0, 10).set_stack_id(3);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).bytes());
  Run run;
  CHECK_THAT(load({f.path()}, run), Catch::Contains("undefined stack id 3"));
}

TEST_CASE("Definitions of frames, stacks and modules are counted", "[model][interning]") {
  ChunkBuilder c0(0);
  c0.string(1, "main");
  auto* m = c0.raw().add_modules();
  m->set_id(1);
  m->set_path("/bin/app");
  auto* fr = c0.raw().add_frames();
  fr->set_id(1);
  fr->set_module_id(1);
  fr->set_function_name_id(1);
  auto* s = c0.raw().add_stacks();
  s->set_id(1);
  s->add_frame_ids(1);
  c0.api_call(1, 1, 0, 10).set_stack_id(1);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const auto& counts = run.processes[0].counts;
  CHECK(counts.modules == 1);
  CHECK(counts.frames == 1);
  CHECK(counts.stacks == 1);
  CHECK(counts.api_calls == 1);
}

TEST_CASE("Drop counts are the last chunk's totals, never summed", "[model]") {
  ChunkBuilder c0(0), c1(0), c2(0);
  c0.drops(5, 1, 0);
  c1.drops(7, 2, 1);
  c2.string(1, "no drops here");
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).chunk(c2.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  REQUIRE(run.processes[0].drops);
  CHECK(run.processes[0].drops->ring_full == 7);
  CHECK(run.processes[0].drops->cupti_records == 2);
  CHECK(run.processes[0].drops->truncated_payloads == 1);
}

TEST_CASE("A renamed thread keeps its last name", "[model]") {
  ChunkBuilder c0(0), c1(0);
  c0.thread(7, "python3").thread(8, "worker");
  c1.thread(7, "pt_main_thread");
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  CHECK(run.processes[0].threads.at(7) == "pt_main_thread");
  CHECK(run.processes[0].threads.at(8) == "worker");
}

TEST_CASE("Duration runs from Process.start_ns to ProcessEnd.end_ns, else to the last event", "[model]") {
  ChunkBuilder c0(1000);
  c0.process(1, 1000);
  c0.string(1, "r").range(1, 1, 2000, 9000);
  TempFile f;
  SECTION("ended normally") {
    ChunkBuilder c1(0);
    c1.process_end(20'000);
    f.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).bytes());
    Run run;
    REQUIRE(load({f.path()}, run).empty());
    CHECK_FALSE(run.processes[0].cut_short());
    CHECK(run.processes[0].end_ns() - run.processes[0].start_ns() == 19'000);
  }
  SECTION("cut short") {
    f.write(CaptureFileWriter().chunk(c0.finish()).bytes());
    Run run;
    REQUIRE(load({f.path()}, run).empty());
    CHECK(run.processes[0].cut_short());
    CHECK(run.processes[0].end_ns() - run.processes[0].start_ns() == 8'000);
    CHECK_THAT(run_cli({"info", f.path()}).out, Catch::Contains("cut short: no ProcessEnd"));
  }
}

TEST_CASE("GPU work links to the API call with its correlation id, in its own process only", "[model]") {
  auto capture = [](uint32_t correlation) {
    ChunkBuilder c(0);
    c.string(1, "cudaLaunchKernel").string(2, "_Z4axpyfPfS_");
    c.api_call(1, 1, 100, 110, correlation);
    c.kernel(2, 120, 220, 1);  // always correlation 1
    return CaptureFileWriter().chunk(c.finish()).bytes();
  };
  TempFile a, b;
  a.write(capture(1));
  b.write(capture(2));  // its kernel's correlation 1 has no API call here
  Run run;
  REQUIRE(load({a.path(), b.path()}, run).empty());
  REQUIRE(run.gpu_activities.size() == 2);
  CHECK(run.gpu_activities[0].launched_by == 0);
  CHECK(run.gpu_activities[1].launched_by == -1);
  CHECK(run.name(run.gpu_activities[0].name) == "axpy(float, float*, float*)");
}

TEST_CASE("Sparse correlation ids link like CUPTI's dense ones, to the call that starts first", "[model]") {
  // Ids far beyond the number of calls take LaunchingCalls' hash map instead
  // of its table indexed by id; the rule must not change with the path.
  for (const uint32_t base : {1u, 4'000'000'000u}) {
    ChunkBuilder c(0);
    c.string(1, "cudaLaunchKernel").string(2, "cuLaunchKernel").string(3, "_Z4axpyfPfS_");
    c.api_call(1, 2, 105, 108, base);  // the nested driver call, recorded first
    c.api_call(1, 1, 100, 110, base);  // the runtime call around it launched the kernel
    c.api_call(1, 1, 200, 210, base + 7);
    c.kernel(3, 120, 220, base);
    c.kernel(3, 230, 240, base + 7);
    c.kernel(3, 250, 260, base + 3);  // no call of that id
    TempFile f;
    f.write(CaptureFileWriter().chunk(c.finish()).bytes());
    Run run;
    REQUIRE(load({f.path()}, run).empty());
    REQUIRE(run.gpu_activities.size() == 3);
    CHECK(run.gpu_activities[0].launched_by == 1);
    CHECK(run.gpu_activities[1].launched_by == 2);
    CHECK(run.gpu_activities[2].launched_by == -1);
  }
}

TEST_CASE("Copies and memsets get torch's row names", "[model]") {
  ChunkBuilder c(0);
  c.memcpy(0, 10, 64);
  c.memset(20, 30, 64);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  CHECK(run.name(run.gpu_activities[0].name) == "Memcpy HtoD (Pageable -> Device)");
  CHECK(run.name(run.gpu_activities[1].name) == "Memset (Device)");
}

TEST_CASE("A file of a newer minor version is read, with one warning; info names both versions", "[model][version]") {
  ChunkBuilder c0(10'000);
  c0.string(1, "a").range(1, 1, 10'500, 11'000);
  TempFile f;
  f.write(CaptureFileWriter(make_header(2, prof::analyzer::CaptureReader::kKnownFormatMinor + 1)).chunk(c0.finish()).bytes());
  Run run;
  std::string warnings;
  REQUIRE(load({f.path()}, run, &warnings).empty());
  CHECK(run.cpu_events.size() == 1);
  const std::string newer = "2." + std::to_string(prof::analyzer::CaptureReader::kKnownFormatMinor + 1);
  CHECK(warnings.find("is format " + newer + ", newer than this profanalyze") != std::string::npos);
  const auto info = run_cli({"info", f.path()});
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("format        " + newer) != std::string::npos);
  CHECK(info.out.find("newer than this profanalyze, which reads 2." +
                      std::to_string(prof::analyzer::CaptureReader::kKnownFormatMinor)) != std::string::npos);
}

TEST_CASE("info and dump show the GPU records that never came at exit (ProcessEnd, format 2.4)", "[model][version]") {
  ChunkBuilder c0(10'000);
  c0.string(1, "a").range(1, 1, 10'500, 11'000);
  c0.process_end(12'000);
  c0.raw().mutable_process_end()->set_gpu_records_missing(3);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c0.finish()).bytes());
  const auto info = run_cli({"info", f.path()});
  CHECK(info.exit_code == 0);
  CHECK(info.out.find("  GPU missing   3 launches have no GPU record") != std::string::npos);
  const auto dump = run_cli({"dump", f.path()});
  CHECK(dump.exit_code == 0);
  CHECK(dump.out.find(R"({"type":"process_end","end":12000,"reason":"EXIT","signal":0,"gpu_records_missing":3})") !=
        std::string::npos);

  ChunkBuilder c1(10'000);
  c1.process_end(12'000);  // none missing: no line
  TempFile g;
  g.write(CaptureFileWriter().chunk(c1.finish()).bytes());
  CHECK(run_cli({"info", g.path()}).out.find("GPU missing") == std::string::npos);
}

TEST_CASE("Interned values: equal ones share an index, distinct ones get the next", "[model][interning]") {
  prof::analyzer::InternedValues<prof::analyzer::Transfer, prof::analyzer::TransferHash> transfers;
  using prof::analyzer::CopyKind;
  CHECK(transfers.intern({64, CopyKind::kHostToDevice}) == 0);
  CHECK(transfers.intern({64, CopyKind::kDeviceToHost}) == 1);
  CHECK(transfers.intern({1ull << 40, CopyKind::kHostToDevice}) == 2);  // differs only above 32 bits
  CHECK(transfers.intern({64, CopyKind::kHostToDevice}) == 0);
  REQUIRE(transfers.size() == 3);
  CHECK(transfers[2].bytes == 1ull << 40);
  CHECK(transfers[1].copy_kind == CopyKind::kDeviceToHost);
}

TEST_CASE("GPU records' places and transfers are interned across processes", "[model][interning]") {
  using prof::analyzer::CopyKind;
  using prof::analyzer::GpuActivity;
  auto capture = [](uint32_t kernel_stream, bool extra_copy) {
    ChunkBuilder c(0);
    c.string(1, "_Z4axpyfPfS_");
    c.kernel(1, 100, 200).set_stream_id(kernel_stream);
    c.memcpy(300, 400, 64).set_stream_id(3);
    c.memcpy(500, 600, 64).set_stream_id(3);
    c.memcpy(700, 800, 128).set_device_id(1);
    // Numbers the memset's transfer in the file differently from the Run.
    if (extra_copy) c.memcpy(850, 860, 32).set_stream_id(11);
    c.memset(900, 1000, 64).set_context_id(5);
    return CaptureFileWriter().chunk(c.finish()).bytes();
  };
  TempFile a, b, c;
  a.write(capture(7, false));
  b.write(capture(9, true));
  c.write(capture(7, false));
  Run run;
  REQUIRE(load({a.path(), b.path(), c.path()}, run).empty());
  REQUIRE(run.gpu_activities.size() == 16);
  // Each file's records in order: kernel, three copies, (b's extra copy,) memset.
  auto record = [&](size_t process, size_t k) -> const GpuActivity& {
    const size_t first[] = {0, 5, 11};
    return run.gpu_activities[first[process] + (process == 1 && k == 4 ? 5 : k)];
  };
  CHECK(run.transfer(run.gpu_activities[9]).bytes == 32);
  CHECK(run.place(run.gpu_activities[9]).stream_id == 11);
  for (size_t p = 0; p < 3; ++p) {
    CHECK(record(p, 0).process == p);
    CHECK(run.place(record(p, 0)).stream_id == (p == 1 ? 9 : 7));
    CHECK(run.place(record(p, 1)).stream_id == 3);
    CHECK(run.place(record(p, 3)).device_id == 1);
    CHECK(run.place(record(p, 4)).context_id == 5);
    CHECK(run.transfer(record(p, 0)).bytes == 0);  // a kernel moves nothing
    CHECK(run.transfer(record(p, 1)).bytes == 64);
    CHECK(run.transfer(record(p, 1)).copy_kind == CopyKind::kHostToDevice);
    CHECK(run.transfer(record(p, 3)).bytes == 128);
    CHECK(run.transfer(record(p, 4)).bytes == 64);
    CHECK(run.transfer(record(p, 4)).copy_kind == CopyKind::kUnknown);
    CHECK(run.kernel_config(record(p, 1)).block[0] == 0);  // a copy has no launch configuration
  }
  // Equal places and transfers share an index, in a file and across files.
  CHECK(record(0, 1).place == record(0, 2).place);
  CHECK(record(0, 1).details == record(0, 2).details);
  CHECK(record(1, 1).place == record(0, 1).place);
  CHECK(record(2, 3).details == record(0, 3).details);
  CHECK(record(2, 0).place == record(0, 0).place);
  // Distinct ones do not.
  CHECK(record(1, 0).place != record(0, 0).place);
  CHECK(record(0, 1).place != record(0, 3).place);
  CHECK(record(0, 3).details != record(0, 1).details);
  CHECK(record(0, 4).details != record(0, 1).details);  // a memset of 64 B is no copy of 64 B
  // Zeros (index 0), the two kernel streams, stream 3, device 1, context 5, stream 11.
  CHECK(run.gpu_places.size() == 7);
  CHECK(run.transfers.size() == 5);  // zeros, HtoD 64 B, HtoD 128 B, memset 64 B, HtoD 32 B
}

TEST_CASE("A CPU event's NVTX domain and correlation id share one slot, each read on its own kind", "[model]") {
  using prof::analyzer::ApiDomain;
  using prof::analyzer::CpuEvent;
  CpuEvent range;
  range.set_nvtx_domain(5);
  range.set_correlation_id(9);  // a range has none: ignored
  range.unterminated = true;
  CHECK(range.nvtx_domain() == 5);
  CHECK(range.correlation_id() == 0);
  CHECK(range.unterminated);

  CpuEvent call;
  call.kind = CpuEventKind::kApiCall;
  call.set_correlation_id(4'000'000'000u);
  call.set_nvtx_domain(3);  // a call has none: ignored
  call.set_api_domain(ApiDomain::kDriver);
  CHECK(call.correlation_id() == 4'000'000'000u);
  CHECK(call.nvtx_domain() == Run::kNoName);
  CHECK(call.api_domain() == ApiDomain::kDriver);
  CHECK_FALSE(call.unterminated);
  call.set_api_domain(static_cast<ApiDomain>(7));  // unknown to this reader
  CHECK(call.api_domain() == ApiDomain::kUnspecified);
  CHECK(call.correlation_id() == 4'000'000'000u);

  // Loaded one by one and appended (names renumbered after the first file's).
  auto capture = [](const char* domain) {
    ChunkBuilder c(0);
    c.string(1, "cudaLaunchKernel").string(2, "_Z4axpyfPfS_").string(3, domain).string(4, "step");
    c.range(1, 4, 50, 300, prof::proto::NvtxRange::PUSH_POP, 3);
    c.api_call(1, 1, 100, 110, 77).set_domain(prof::proto::DRIVER);
    c.kernel(2, 120, 220, 77);
    return CaptureFileWriter().chunk(c.finish()).bytes();
  };
  TempFile a, b;
  a.write(capture("first"));
  b.write(capture("second"));
  for (const unsigned jobs : {1u, 2u}) {
    Run run;
    std::ostringstream warnings;
    REQUIRE_FALSE(prof::analyzer::load_run({a.path(), b.path()}, run, warnings,
                                           prof::analyzer::LoadDepth::kEvents, jobs));
    REQUIRE(run.cpu_events.size() == 4);
    for (size_t p = 0; p < 2; ++p) {
      const CpuEvent& r = run.cpu_events[2 * p];
      const CpuEvent& c = run.cpu_events[2 * p + 1];
      CHECK(r.process == p);
      CHECK(run.name(r.nvtx_domain()) == (p == 0 ? "first" : "second"));
      CHECK(r.correlation_id() == 0);
      CHECK(c.correlation_id() == 77);
      CHECK(c.nvtx_domain() == Run::kNoName);
      CHECK(c.api_domain() == ApiDomain::kDriver);
      CHECK(run.gpu_activities[p].launched_by == static_cast<int32_t>(2 * p + 1));
    }
  }
}

TEST_CASE("A run of more files than CpuEvent::process can number is refused, never wrapped", "[model][bad-input]") {
  using prof::analyzer::LoadDepth;
  using prof::analyzer::RunBuilder;
  ChunkBuilder c(0);
  c.string(1, "step").range(1, 1, 0, 10);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  std::ostringstream warnings;

  for (const bool appended : {false, true}) {
    Run run;
    run.processes.resize(Run::kMaxProcesses - 1);  // as if that many files were read
    RunBuilder builder(run);
    auto add = [&] {
      return appended ? builder.append(prof::analyzer::load_file(f.path(), LoadDepth::kEvents), warnings)
                      : builder.add_file(f.path(), warnings);
    };
    REQUIRE_FALSE(add());  // the last one that fits
    REQUIRE(run.cpu_events.size() == 1);
    CHECK(run.cpu_events[0].process == Run::kMaxProcesses - 1);
    const auto error = add();
    REQUIRE(error);
    CHECK(error->describe() == f.path() + ": too many capture files: profanalyze reads at most 65535 into one run");
    CHECK(run.processes.size() == Run::kMaxProcesses);
    CHECK(run.cpu_events.size() == 1);
  }

  // load_run and the commands refuse before reading any file.
  std::vector<std::string> paths(Run::kMaxProcesses + 1, f.path());
  paths.back() = "/nonexistent/one-too-many.pb";
  Run run;
  const auto error = prof::analyzer::load_run(paths, run, warnings);
  REQUIRE(error);
  CHECK(error->path == paths.back());
  CHECK(run.processes.empty());
  paths.insert(paths.begin(), "advise");
  const CliResult r = run_cli(paths);
  CHECK(r.exit_code == prof::analyzer::kExitBadInput);
  CHECK(r.err == "profanalyze: " + paths.back() + ": too many capture files: profanalyze reads at most 65535 into one run\n");
}
