// Step rules, step membership and schedule windows, on the synthetic
// training loop (training_capture.h) whose GPU durations are known.
#include <catch2/catch.hpp>

#include <optional>
#include <sstream>

#include "analyzer_test_support.h"
#include "cli/window_options.h"
#include "training_capture.h"
#include "model/range_tree.h"
#include "views/key_averages.h"
#include "window/steps.h"

using namespace prof::testing;
using namespace prof::analyzer;

namespace {

StepRule rule(const std::string& text) {
  std::string error;
  auto r = StepRule::parse(text, error);
  INFO(error);
  REQUIRE(r);
  return *r;
}

const KeyAverage* find_row(const std::vector<KeyAverage>& rows, const std::string& key) {
  for (const KeyAverage& r : rows)
    if (r.key == key) return &r;
  return nullptr;
}

}  // namespace

TEST_CASE("nvtx, kernel and api rules find one step per loop iteration", "[steps]") {
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  Run run;
  REQUIRE(load({f.path()}, run).empty());

  const RunSteps nvtx = find_steps(run, rule("nvtx:^ProfilerStep#\\d+$"));
  REQUIRE(nvtx.count() == 6);
  CHECK(nvtx.of_process(0)[2].start_ns == TrainingCapture::step_start(2));
  CHECK(nvtx.of_process(0)[2].end_ns == TrainingCapture::step_start(2) + TrainingCapture::kStepNs - 10'000);

  // kernel: a step starts at the launch call of each kernel0.
  const RunSteps kernel = find_steps(run, rule("kernel:kernel0"));
  REQUIRE(kernel.count() == 6);
  CHECK(kernel.of_process(0)[0].start_ns == TrainingCapture::step_start(0) + 30'000);
  CHECK(kernel.of_process(0)[0].end_ns == TrainingCapture::step_start(1) + 30'000);

  // A synchronization ends a step; the first step starts at the first event.
  const RunSteps sync = find_steps(run, rule("api:cudaDeviceSynchronize"));
  REQUIRE(sync.count() == 6);
  CHECK(sync.of_process(0)[0].start_ns == TrainingCapture::kStart + 1'000);
  CHECK(sync.of_process(0)[0].end_ns == TrainingCapture::step_start(0) + 60'000);
  CHECK(sync.of_process(0)[1].start_ns == TrainingCapture::step_start(0) + 60'000);

  const RunSteps launch = find_steps(run, rule("api:cudaMemcpyAsync"));
  CHECK(launch.count() == 6);
  CHECK(find_steps(run, rule("api:cudaGraphLaunch")).count() == 0);
}

TEST_CASE("--step takes auto or a step rule, and says what is wrong with a bad one", "[steps]") {
  std::string error;
  CHECK_FALSE(parse_step_option("nvtx:", error));
  CHECK(error == "--step: 'nvtx:' has nothing after 'nvtx:' (a regular expression)");
  CHECK_FALSE(parse_step_option("kernel:(", error));
  CHECK(error == "--step: 'kernel:(' has a bad regular expression: missing ): (");
  CHECK_FALSE(parse_step_option("step", error));
  CHECK(error == "--step: 'step' is not nvtx:REGEX, kernel:REGEX or api:NAME (or auto)");
  const auto automatic = parse_step_option("auto", error);
  REQUIRE(automatic);
  CHECK((automatic->automatic && !automatic->rule));
  const auto kernel = parse_step_option("kernel:^scale\\(", error);
  REQUIRE(kernel);
  CHECK((!kernel->automatic && kernel->rule->spelling() == "kernel:^scale\\("));
}

TEST_CASE("GPU work counts for the step that launched it, even when it runs after the step ended", "[steps]") {
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const RunSteps steps = find_steps(run, rule("nvtx:ProfilerStep"));
  const StepMembership m = step_membership(run, steps);
  const Run window = select_steps(run, m, {1, 2});
  const auto rows = key_averages(window);

  // kernel4 starts 5 us after each step's range ended: still counted.
  const KeyAverage* k4 = find_row(rows, "kernel4()");
  REQUIRE(k4);
  CHECK(k4->count == 2);
  CHECK(k4->self_cuda_ns == TrainingCapture::kernel_ns(1, 4) + TrainingCapture::kernel_ns(2, 4));
  const KeyAverage* step = find_row(rows, "ProfilerStep*");
  REQUIRE(step);
  CHECK(step->count == 2);
  uint64_t gpu = 0;
  for (int s : {1, 2}) {
    gpu += TrainingCapture::kCopyNs;
    for (int j = 0; j < TrainingCapture::kKernels; ++j) gpu += TrainingCapture::kernel_ns(s, j);
  }
  CHECK(step->cuda_total_ns == gpu);
  // Setup (cudaMalloc) and teardown (cudaFree) lie in no step.
  CHECK_FALSE(find_row(rows, "cudaMalloc"));
  CHECK_FALSE(find_row(rows, "cudaFree"));
}

TEST_CASE("A selection of steps that holds every event is the run itself; one that leaves any out is not",
          "[steps]") {
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const StepRule profiler_steps = rule("nvtx:ProfilerStep");
  const RunSteps steps = find_steps(run, profiler_steps);
  const StepMembership m = step_membership(run, steps);
  // Setup (cudaMalloc) and teardown (cudaFree) lie in no step.
  CHECK_FALSE(selects_every_event(run, m, {0, 1, 2, 3, 4, 5}));
  CHECK_FALSE(every_event_in_a_step(run, steps));

  // Steps 1 and 2 alone: each of their events lies in one of their two
  // steps, the kernels that ran after a step's range ended too.
  const Run window = select_steps(run, m, {1, 2});
  const RunSteps window_steps = find_steps(window, profiler_steps);
  REQUIRE(window_steps.count() == 2);
  const StepMembership wm = step_membership(window, window_steps);
  CHECK(selects_every_event(window, wm, {0, 1}));
  CHECK(every_event_in_a_step(window, window_steps));
  CHECK_FALSE(selects_every_event(window, wm, {0}));
  CHECK_FALSE(selects_every_event(window, wm, {1}));
  const Run again = select_steps(window, wm, {0, 1});
  CHECK(again.cpu_events.size() == window.cpu_events.size());
  CHECK(again.gpu_activities.size() == window.gpu_activities.size());
}

TEST_CASE("A schedule's windows of every step are the run itself exactly when every event lies in a step",
          "[steps][cli]") {
  // events_of answers a window of every step without each event's step
  // where every event lies in one (the membership is then never made), and
  // with it otherwise: the same events either way.
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  Run run;
  REQUIRE(load({f.path()}, run).empty());
  const StepMembership m = step_membership(run, find_steps(run, rule("nvtx:ProfilerStep")));
  const Run steps_only = select_steps(run, m, {0, 1, 2, 3, 4, 5});
  REQUIRE(steps_only.cpu_events.size() < run.cpu_events.size());  // setup and teardown left out
  WindowOptions options;
  options.step = "nvtx:ProfilerStep";
  options.schedule_given = true;  // active 1: one window per step
  for (const Run* events : {static_cast<const Run*>(&run), &steps_only}) {
    INFO((events == &run ? "the capture, with setup and teardown" : "its steps alone"));
    std::ostringstream err;
    std::optional<RunWindows> windows = RunWindows::from_options(options, err);
    REQUIRE(windows);
    REQUIRE(windows->resolve(*events, err));
    REQUIRE(windows->windows().size() == 6);
    windows->merge_windows();
    REQUIRE(windows->windows().size() == 1);
    Run storage;
    const Run& merged = windows->events_of(*events, windows->windows().front(), storage);
    CHECK((&merged == events) == (events == &steps_only));
    CHECK(merged.cpu_events.size() == steps_only.cpu_events.size());
    CHECK(merged.gpu_activities.size() == steps_only.gpu_activities.size());
    // One step's window is cut from the run, through the membership.
    REQUIRE(windows->resolve(*events, err));
    const Run& first = windows->events_of(*events, windows->windows().front(), storage);
    CHECK(&first == &storage);
    CHECK(first.cpu_events.size() < steps_only.cpu_events.size());
  }
}

TEST_CASE("A RunWindows takes the steps another found under the same --step, and finds its own otherwise",
          "[steps][cli]") {
  // html's advise resolves with the steps html's step windows found: the
  // same steps, windows and lines as its own finding would give. To show
  // they are taken, not found again, the taker resolves on a shorter run.
  TempFile six_file, four_file;
  six_file.write(TrainingCapture::bytes(6));
  four_file.write(TrainingCapture::bytes(4));
  Run six, four;
  REQUIRE(load({six_file.path()}, six).empty());
  REQUIRE(load({four_file.path()}, four).empty());
  auto resolved = [](const Run& run, const std::string& step, bool schedule, RunWindows* found_in,
                     std::string& said) {
    WindowOptions options;
    options.step = step;
    options.schedule_given = schedule;
    std::ostringstream err;
    std::optional<RunWindows> windows = RunWindows::from_options(options, err);
    REQUIRE(windows);
    REQUIRE(windows->resolve(run, err, found_in));
    said = err.str();
    return std::move(*windows);
  };
  auto steps_of = [](const RunWindows& w) {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (const Step& s : w.steps().of_process(0)) out.emplace_back(s.start_ns, s.end_ns);
    return out;
  };
  for (const std::string step : {"nvtx:ProfilerStep", "auto"}) {
    INFO(step);
    std::string finder_said, own_said, taker_said, other_said;
    RunWindows finder = resolved(six, step, true, nullptr, finder_said);  // html's: a window per step
    REQUIRE(finder.windows().size() == 6);
    const RunWindows own = resolved(six, step, false, nullptr, own_said);  // advise's, found itself
    // Another --step text finds its own steps, and takes nothing.
    const RunWindows other = resolved(four, step == "auto" ? "nvtx:ProfilerStep" : "auto", false, &finder, other_said);
    CHECK(other.steps().count() == 4);
    CHECK(finder.windows().size() == 6);
    const RunWindows taker = resolved(four, step, false, &finder, taker_said);
    REQUIRE(own.steps().count() == 6);
    CHECK(taker.steps().count() == 6);
    CHECK(steps_of(taker) == steps_of(own));
    CHECK(taker.resolved_rule()->spelling() == own.resolved_rule()->spelling());
    CHECK(taker_said == own_said);
    CHECK(taker.windows().size() == 1);
    CHECK(taker.windows().front().whole_run());
    CHECK(finder.windows().empty());  // taken over: resolved again before use
  }
}

TEST_CASE("One table per schedule window, each headed by its steps", "[steps][cli]") {
  TempFile f;
  f.write(TrainingCapture::bytes(6));
  // Cycles of wait 1 + active 2: windows {1, 2} and {4, 5}.
  CliResult r = run_cli({"report", f.path(), "--wait", "1", "--active", "2"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Window 0: steps 1-2\n---"));
  CHECK_THAT(r.out, Catch::Contains("\nWindow 1: steps 4-5\n---"));
  CHECK_THAT(r.err, Catch::Contains("--step nvtx:^ProfilerStep#[0-9]+(,|$): 6 steps"));
  // The footer of each table sums its own window.
  CHECK(line_count(r.out) > 2 * 10);

  CliResult merged = run_cli({"report", f.path(), "--wait", "1", "--active", "2", "--merge-windows"});
  REQUIRE(merged.exit_code == 0);
  CHECK_THAT(merged.out, Catch::StartsWith("All windows merged: steps 1-2, 4-5\n"));
  CHECK_THAT(merged.out, !Catch::Contains("Window 1"));

  // Warmup steps are dropped; a run that ends inside a window keeps it.
  CliResult partial = run_cli({"report", f.path(), "--skip-first", "1", "--warmup", "1", "--active", "3"});
  REQUIRE(partial.exit_code == 0);
  CHECK_THAT(partial.out, Catch::StartsWith("Window 0: steps 2-4\n"));
  CHECK_THAT(partial.out, !Catch::Contains("Window 1"));

  CliResult json = run_cli({"report", f.path(), "--wait", "1", "--active", "2", "--format", "json"});
  REQUIRE(json.exit_code == 0);
  CHECK_THAT(json.out, Catch::Contains("\"window\":1,\"title\":\"Window 1: steps 4-5\",\"whole_run\":false,"
                                       "\"partial\":false,\"steps\":[4,5]"));
}

TEST_CASE("A schedule with no steps to cut is a clear error, and bad schedules are usage errors", "[steps][cli]") {
  TempFile f;
  f.write(TrainingCapture::bytes(3, /*annotate=*/false));
  CliResult none = run_cli({"report", f.path(), "--active", "1"});
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("no steps found by --step nvtx:^ProfilerStep#[0-9]+(,|$)"));
  CHECK(run_cli({"report", f.path(), "--active", "0"}).exit_code == 2);
  CHECK(run_cli({"report", f.path(), "--wait", "-1", "--active", "1"}).exit_code == 2);
  CHECK(run_cli({"report", f.path(), "--step", "bogus:x"}).exit_code == 2);
  // Without a schedule, steps found or not, the whole run is one table.
  CHECK(run_cli({"report", f.path(), "--step", "nvtx:none"}).exit_code == 0);
  // With an explicit rule that matches, windows work without annotations.
  CliResult api = run_cli({"report", f.path(), "--step", "api:cudaDeviceSynchronize", "--active", "1", "--repeat", "2"});
  REQUIRE(api.exit_code == 0);
  CHECK_THAT(api.out, Catch::Contains("Window 1: step 1\n"));
  CHECK_THAT(api.out, !Catch::Contains("Window 2"));
}

TEST_CASE("A schedule that finds no ProfilerStep# ranges lists the ranges that repeat and the rules to try",
          "[steps][cli]") {
  ChunkBuilder c(1000);
  c.string(1, "forward").string(2, "setup");
  for (uint64_t i = 0; i < 6; ++i) {
    const uint64_t name = 10 + i;
    c.string(name, "step#" + std::to_string(i));
    c.range(1, name, 1000 + i * 100, 1090 + i * 100);
    c.range(1, 1, 1010 + i * 100, 1050 + i * 100);
  }
  c.range(1, 2, 10, 20);
  TempFile f;
  f.write(CaptureFileWriter().chunk(c.finish()).bytes());
  CliResult r = run_cli({"report", f.path(), "--wait", "1", "--warmup", "1", "--active", "3"});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("no steps found by --step nvtx:^ProfilerStep#[0-9]+(,|$)\n"
                                    "profanalyze: NVTX ranges that repeat: step#N (6 times), forward (6 times)\n"
                                    "profanalyze: try --step 'nvtx:^step#[0-9]+$' or --step auto\n"));
  // The rule suggested cuts the windows.
  CliResult suggested =
      run_cli({"report", f.path(), "--step", "nvtx:^step#[0-9]+$", "--wait", "1", "--warmup", "1", "--active", "3"});
  CHECK(suggested.exit_code == 0);
  CHECK_THAT(suggested.out, Catch::StartsWith("Window 0: steps 2-4\n"));
}
