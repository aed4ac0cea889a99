// advise on the fixed capture of advise_capture.h: every number below follows
// from its times by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <tuple>

#include "advise_capture.h"
#include "analyzer_test_support.h"
#include "advise/advise.h"
#include "advise/advise_format.h"
#include "advise/idle_causes.h"
#include "advise/intervals.h"
#include "model/side_by_side.h"
#include "capture_file_writer.h"

using namespace prof::testing;
using namespace prof::analyzer;

namespace {

size_t cause(IdleCause c) { return static_cast<size_t>(c); }

// advise_capture_bytes() written to `file` and loaded into `run`.
void load_advise_capture(TempFile& file, Run& run) {
  file.write(advise_capture_bytes());
  REQUIRE(load({file.path()}, run).empty());
}

// The run's steps: its ProfilerStep#N ranges.
RunSteps profiler_steps(const Run& run) {
  std::string error;
  return find_steps(run, *StepRule::parse("nvtx:^ProfilerStep#[0-9]+$", error));
}

}  // namespace

TEST_CASE("advise splits idle time by cause and ranks the findings by their cost", "[advise]") {
  TempFile f;
  Run run;
  load_advise_capture(f, run);
  const RunSteps steps = profiler_steps(run);
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
  // Queue depth at the step's four launches: only the read finds work
  // queued and not started (the backward kernel).
  CHECK(w.steps[0].mean_queue_depth == 0.25);
  CHECK(w.steps[0].max_queue_depth == 1);
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

// advise_window measures devices, steps, launches and kernels on two cores
// before the idle pieces: its report must be the one a single core makes.
TEST_CASE("advise reports the same window on one core and on two", "[advise]") {
  TempFile f;
  Run run;
  load_advise_capture(f, run);
  const RunSteps steps = profiler_steps(run);
  const ModuleOffsetFrameNamer namer;
  auto report_on = [&](unsigned jobs) {
    AdviseInput in;
    in.events = &run;
    in.run = &run;
    in.steps = &steps;
    in.namer = &namer;
    in.min_cost_share = 0;
    in.jobs = jobs;
    AdviseReport report;
    report.step_count = steps.count();
    report.processes.resize(run.processes.size());
    report.windows.push_back(AdviseReportWindow{-1, "All steps", {}, false, advise_window(in)});
    return advise_json(report);
  };
  const std::string one = report_on(1);
  CHECK(one.find("\"kind\":\"sync\"") != std::string::npos);
  CHECK(report_on(2) == one);
}

TEST_CASE("side_by_side runs its second job on a thread of its own only where two cores are allowed", "[advise]") {
  const std::thread::id here = std::this_thread::get_id();
  for (unsigned jobs : {1u, 2u}) {
    std::thread::id first_on, second_on;
    side_by_side(
        jobs, [&] { first_on = std::this_thread::get_id(); }, [&] { second_on = std::this_thread::get_id(); });
    CHECK(first_on == here);
    if (jobs == 1)
      CHECK(second_on == here);
    else
      CHECK(second_on != here);
    CHECK(second_on != std::thread::id());
  }
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

// advise keeps kernel, copy-only and memset-only time as three disjoint
// sets (kernels; copies less kernels; memsets less both) and takes busy time
// as their sum within a window: that must be the measure of the union of
// all three within it, and the memsets taken less each set in turn must
// measure as memsets less the union of both.
TEST_CASE("advise's usage sets add up to the busy time", "[advise]") {
  std::mt19937_64 random(30);
  auto some = [&] {
    std::vector<Interval> set(random() % 12);
    for (Interval& i : set) {
      i.start = 3 + random() % 100;
      i.end = i.start + random() % 20 - 3;  // some empty, some inverted
    }
    return set;
  };
  auto joined = [](std::vector<Interval> a, const std::vector<Interval>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const std::vector<Interval> k = some(), c = some(), m = some();
    const std::vector<Interval> kernels = interval_union(k);
    const std::vector<Interval> copies = interval_difference(interval_union(c), kernels);
    const std::vector<Interval> memsets = interval_difference(interval_difference(interval_union(m), kernels), copies);
    const std::vector<Interval> busy = interval_union(joined(joined(k, c), m));
    const std::vector<Interval> memsets_less_both = interval_difference(interval_union(m), interval_union(joined(k, c)));
    const uint64_t start = random() % 110, end = start + random() % 60;
    CHECK(measure_within(kernels, start, end) + measure_within(copies, start, end) +
              measure_within(memsets, start, end) ==
          measure_within(busy, start, end));
    CHECK(measure_within(memsets, start, end) == measure_within(memsets_less_both, start, end));
  }
}

// The copy waits read the kernels' union as it is merged (UnionReader): for
// parts in start order and questions that each start where the last ended
// or later, its pieces must be interval_difference's against the whole
// union, parts empty, inverted, touching and nested among them.
TEST_CASE("advise's union read as it is merged gives the difference with the whole union", "[advise]") {
  std::mt19937_64 random(31);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<Interval> parts(random() % 16);
    for (Interval& i : parts) {
      i.start = random() % 100;
      i.end = i.start + random() % 25 - 4;
    }
    std::sort(parts.begin(), parts.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    const std::vector<Interval> whole = interval_union(parts);
    size_t next = 0;
    UnionReader reader([&](Interval& part) {
      if (next == parts.size()) return false;
      part = parts[next++];
      return true;
    });
    uint64_t from = random() % 20;
    while (from < 130) {
      const uint64_t to = from + random() % 30;
      std::vector<Interval> read;
      reader.difference(from, to, [&](uint64_t start, uint64_t end) { read.push_back({start, end}); });
      const std::vector<Interval> expected = to > from ? interval_difference({{from, to}}, whole) : std::vector<Interval>{};
      REQUIRE(read.size() == expected.size());
      for (size_t k = 0; k < read.size(); ++k) {
        CHECK(read[k].start == expected[k].start);
        CHECK(read[k].end == expected[k].end);
      }
      from = to + random() % 8;
    }
  }
}

namespace {

// One process: ProfilerStep#N steps of `step_ns`, each running one kernel of
// `kernel_ns` launched at its start; device 0 with `memory` bytes, of which
// `allocated` are allocated before the first step.
std::string ranked_capture(uint32_t pid, int32_t rank, uint64_t step_ns, std::vector<uint64_t> kernel_ns,
                           uint64_t memory = 0, uint64_t allocated = 0) {
  CaptureFileWriter file(make_header(2, 0, "libprof 0.1.0"));
  ChunkBuilder c(1'000'000);
  c.process(pid, 1'000'000).set_rank(rank);
  auto* device = c.raw().add_devices();
  device->set_id(0);
  device->set_global_memory_bytes(memory);
  c.string(1, "ProfilerStep#0").string(2, "cudaLaunchKernel").string(3, "_Z4workPf").string(4, "cudaMalloc");
  uint32_t corr = 1;
  if (allocated) {
    c.api_call(1, 4, 1'000'000, 1'010'000, corr);
    auto& m = c.memory_event(1'005'000, allocated);
    m.set_memory_kind(prof::proto::DEVICE);
    m.set_correlation_id(corr++);
  }
  for (size_t k = 0; k < kernel_ns.size(); ++k) {
    const uint64_t s = 2'000'000 + k * step_ns;
    c.range(1, 1, s, s + step_ns);
    c.api_call(1, 2, s, s + 5'000, corr);
    c.kernel(3, s + 10'000, s + 10'000 + kernel_ns[k], corr++).set_grid_x_minus_one(63);
  }
  file.chunk(c.finish());
  return file.bytes();
}

}  // namespace

TEST_CASE("advise finds a kernel whose runs differ for one launch configuration, and memory near the limit",
          "[advise]") {
  TempFile f;
  std::vector<uint64_t> kernels(10, 100'000);
  kernels[6] = 1'000'000;
  f.write(ranked_capture(1, -1, 1'100'000, kernels, 1ull << 30, 1000ull << 20));
  CliResult r = run_cli({"advise", f.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  // The slow run is 900 us over the 100 us median.
  CHECK_THAT(r.out, Catch::Contains("\"kind\":\"kernel_variance\",\"title\":\"work(float*) takes from 100.0 us to 1.000 ms "
                                    "with the same launch configuration\",\"cost_ns\":900000"));
  CHECK_THAT(r.out, Catch::Contains("\"kind\":\"memory_near_limit\""));
  CHECK_THAT(r.out, Catch::Contains("\"peak_bytes\":1048576000,\"capacity_bytes\":1073741824"));
  // The risk with no time cost comes after the time finding.
  CHECK(r.out.find("kernel_variance") < r.out.find("memory_near_limit"));
}

TEST_CASE("advise names the slowest rank and the phase that differs", "[advise]") {
  TempFile fast, slow;
  fast.write(ranked_capture(10, 0, 1'000'000, std::vector<uint64_t>(4, 500'000)));
  slow.write(ranked_capture(11, 1, 2'000'000, std::vector<uint64_t>(4, 1'500'000)));
  CliResult r = run_cli({"advise", fast.path(), slow.path(), "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const size_t straggler = r.out.find("\"kind\":\"straggler\"");
  REQUIRE(straggler != std::string::npos);
  // 1 ms more per step over 4 steps; all of it kernel time.
  CHECK_THAT(r.out, Catch::Contains("\"kind\":\"straggler\",\"title\":\"rank 1 is the slowest: 2.000 ms per step "
                                    "against 1.000 ms on rank 0 (+100.0%)\",\"cost_ns\":4000000"));
  CHECK_THAT(r.out, Catch::Contains("\"slowest_rank\":1,\"fastest_rank\":0"));
  CHECK_THAT(r.out, Catch::Contains("\"phase\":\"kernels\",\"phase_difference_ns\":1000000"));
  CHECK_THAT(r.out, Catch::Contains("\"ranks\":[{\"pid\":10,\"rank\":0,\"steps\":4,\"median_step_ns\":1000000"));
}

// An idle piece names where it idled by an index into IdlePieces::places:
// each (process, device) with GPU work once, in (process, device) order,
// and each piece's place that of the work that ended its gap.
TEST_CASE("idle pieces name their process and device through the places", "[advise]") {
  TempFile rank0, rank1, single;
  rank0.write(ranked_capture(10, 0, 1'000'000, std::vector<uint64_t>(4, 500'000)));
  rank1.write(ranked_capture(11, 1, 2'000'000, std::vector<uint64_t>(4, 1'500'000)));
  single.write(advise_capture_bytes());
  Run run;
  REQUIRE(load({rank0.path(), rank1.path(), single.path()}, run).empty());
  REQUIRE(run.processes.size() == 3);

  const IdlePieces idle = idle_pieces(run, outermost_calls(run));
  std::vector<std::pair<uint32_t, uint32_t>> expected_places;
  for (const GpuActivity& g : run.gpu_activities) expected_places.push_back({g.process, run.place(g).device_id});
  std::sort(expected_places.begin(), expected_places.end());
  expected_places.erase(std::unique(expected_places.begin(), expected_places.end()), expected_places.end());
  std::vector<std::pair<uint32_t, uint32_t>> places;
  for (const IdlePlace& p : idle.places) places.push_back({p.process, p.device});
  CHECK(places == expected_places);

  REQUIRE(!idle.pieces.empty());
  std::vector<bool> place_idles(idle.places.size(), false);
  for (size_t i = 0; i < idle.pieces.size(); ++i) {
    const IdlePiece& p = idle.pieces[i];
    REQUIRE(p.place < idle.places.size());
    place_idles[p.place] = true;
    if (i > 0) {
      const IdlePiece& before = idle.pieces[i - 1];
      CHECK(std::tie(before.place, before.start_ns) <= std::tie(p.place, p.start_ns));
    }
    if (p.next_work >= 0) {
      const GpuActivity& work = run.gpu_activities[static_cast<size_t>(p.next_work)];
      CHECK(idle.process(p) == work.process);
      CHECK(idle.device(p) == run.place(work).device_id);
    }
  }
  // Every process's device idled at some time (between its steps).
  CHECK(std::count(place_idles.begin(), place_idles.end(), true) == 3);
}

namespace {

// A launch-bound loop: four 1 ms steps on one thread, each of 60 launches
// (5 us calls every 12 us) of 2 us kernels that start 1-20 us after their
// call ended, in order on one stream, so that some wait behind others and
// the queue is 0-2 deep.
std::string launch_bound_capture() {
  constexpr uint32_t kMain = 7;
  CaptureFileWriter file(make_header(2, 0, "libprof 0.1.0"));
  ChunkBuilder c(1'000'000);
  c.process(100, 1'000'000).set_executable("/usr/bin/python3");
  c.thread(kMain, "python3");
  auto* device = c.raw().add_devices();
  device->set_id(0);
  device->set_name("Simulated GPU");
  c.string(1, "ProfilerStep#0").string(2, "ProfilerStep#1").string(3, "ProfilerStep#2").string(4, "ProfilerStep#3");
  c.string(5, "cudaLaunchKernel").string(6, "_Z4tinyPf");
  uint32_t corr = 1;
  uint64_t gpu_free = 0;
  for (uint64_t k = 0; k < 4; ++k) {
    const uint64_t s = 1'000'000 + k * 1'000'000;
    c.range(kMain, 1 + k, s, s + 1'000'000);
    for (uint64_t j = 0; j < 60; ++j) {
      const uint64_t call = s + 10'000 + j * 12'000;
      c.api_call(kMain, 5, call, call + 5'000, corr);
      const uint64_t start = std::max(gpu_free, call + 5'000 + 1'000 + (j * 7'000) % 20'000);
      c.kernel(6, start, start + 2'000, corr).set_stream_id(7);
      gpu_free = start + 2'000;
      ++corr;
    }
  }
  c.process_end(5'500'000);
  file.chunk(c.finish());
  return file.bytes();
}

// The queue depth at every launch as the finding defines it, counted
// directly: launches started before it, less work started by then.
std::pair<double, uint64_t> counted_queue_depth(const Run& run) {
  std::vector<uint64_t> launches, work;
  for (const GpuActivity& g : run.gpu_activities)
    if (g.launched_by >= 0) {
      launches.push_back(run.cpu_events[static_cast<size_t>(g.launched_by)].start_ns);
      work.push_back(g.start_ns);
    }
  uint64_t sum = 0, most = 0;
  for (uint64_t t : launches) {
    const auto before = std::count_if(launches.begin(), launches.end(), [&](uint64_t l) { return l < t; });
    const auto started = std::count_if(work.begin(), work.end(), [&](uint64_t w) { return w <= t; });
    const uint64_t depth = before > started ? static_cast<uint64_t>(before - started) : 0;
    sum += depth;
    most = std::max(most, depth);
  }
  return {static_cast<double>(sum) / static_cast<double>(launches.size()), most};
}

double finding_metric(const Finding& f, const std::string& key) {
  for (const Metric& m : f.metrics)
    if (m.key == key) return m.number;
  FAIL("no metric " << key);
  return 0;
}

}  // namespace

// The launch-bound finding's queue depth is summed by the steps' pass where
// there are steps, by a pass of its own where there are none: the same
// figures either way, on one core or two.
TEST_CASE("advise measures the launch-bound finding's queue depth with steps and without", "[advise]") {
  TempFile f;
  f.write(launch_bound_capture());
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const RunSteps steps = profiler_steps(run);
  REQUIRE(steps.count() == 4);
  const RunSteps no_steps;
  const auto [mean, most] = counted_queue_depth(run);
  REQUIRE(most >= 2);  // the capture queues work: a depth of 0 everywhere would prove nothing
  const ModuleOffsetFrameNamer namer;
  for (const RunSteps* window_steps : {&steps, &no_steps})
    for (unsigned jobs : {1u, 2u}) {
      INFO("steps " << window_steps->count() << ", jobs " << jobs);
      AdviseInput in;
      in.events = &run;
      in.run = &run;
      in.steps = window_steps;
      in.namer = &namer;
      in.min_cost_share = 0;
      in.jobs = jobs;
      const AdviseWindow w = advise_window(in);
      auto launch_bound = std::find_if(w.findings.begin(), w.findings.end(),
                                       [](const Finding& x) { return x.kind == "launch_bound"; });
      REQUIRE(launch_bound != w.findings.end());
      CHECK(finding_metric(*launch_bound, "mean_queue_depth") == std::round(mean * 100) / 100);
      CHECK(finding_metric(*launch_bound, "max_queue_depth") == static_cast<double>(most));
    }
}
