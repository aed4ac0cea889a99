#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/clock.h"
#include "control/capture_control.h"

// CaptureControl's state machine against fakes of what it drives (as
// Kineto's CuptiActivityProfilerTest drives its profiler with
// MockCuptiActivities): the capture side's gates and CUDA mode, and the
// writer's windows. Every call is logged in order as a line of text.
namespace prof {
namespace {

constexpr uint64_t kMs = 1'000'000;

struct FakeCapture final : CaptureSwitch {
  std::vector<std::string>* log = nullptr;
  bool window_open = true;
  bool stopped = false;
  bool cuda_full = true;
  void set_window_open(bool open, uint64_t) override {
    if (open != window_open) log->push_back(open ? "gate open" : "gate closed");
    window_open = open;
  }
  void close_for_good(uint64_t) override {
    stopped = true;
    log->push_back("budget gate closed");
  }
  // Logged where it changes: every step asks again.
  void set_cuda_full(bool full) override {
    if (full != cuda_full) log->push_back(full ? "cuda full" : "cuda quiet");
    cuda_full = full;
  }
};

struct FakeWindows final : WindowSink {
  std::vector<std::string>* log = nullptr;
  std::vector<WindowStart> starts;
  int64_t step = -1;
  uint64_t completed = 0;
  void begin_window(const WindowStart& start) override {
    starts.push_back(start);
    log->push_back("begin " + start.path + " first=" + std::to_string(start.first_step) + " " + start.trigger);
  }
  void end_window(int64_t last_step, uint64_t) override {
    ++completed;
    log->push_back("end last=" + std::to_string(last_step));
  }
  void note_step(int64_t s) override { step = s; }
  uint64_t windows_completed() const override { return completed; }
  std::string last_window_path() const override { return starts.empty() ? "" : starts.back().path; }
};

// The time a test starts at: far enough ahead of the clock that a window
// cut by time starts when the test says (CaptureControl never starts one
// before the clock's now).
uint64_t test_start_ns() { return monotonic_ns() + 3600'000 * kMs; }

struct Harness {
  std::vector<std::string> log;
  FakeCapture capture;
  FakeWindows windows;
  CaptureControl control;
  uint64_t t0;

  Harness(CaptureControlOptions options, uint64_t start_ns)
      : control(std::move(options), "/tmp/run.pb", start_ns, capture), t0(start_ns) {
    capture.log = &log;
    windows.log = &log;
    control.start(windows, t0);
  }
  // One step, begun and ended at the given times (ms after t0).
  void step(uint64_t begin_ms, uint64_t end_ms) {
    control.step_begins(t0 + begin_ms * kMs);
    control.step_ends(t0 + end_ms * kMs);
  }
  std::vector<std::string> take() {
    std::vector<std::string> taken;
    taken.swap(log);
    return taken;
  }
};

StepRule nvtx_rule() {
  std::string error;
  std::optional<StepRule> rule = StepRule::parse("nvtx:^step$", error);
  REQUIRE(rule);
  return *rule;
}

using Log = std::vector<std::string>;

TEST_CASE("A schedule opens a window per cycle's active steps, CUDA full from the warmup step on") {
  CaptureControlOptions options;
  options.step_rule = nvtx_rule();
  options.schedule = Schedule{/*skip_first=*/0, /*wait=*/1, /*warmup=*/1, /*active=*/2, /*repeat=*/2};
  Harness h(options, test_start_ns());
  CHECK(h.take() == Log{"gate closed", "cuda quiet"});

  h.control.step_begins(h.t0);  // step 0: wait
  CHECK(h.take().empty());
  CHECK(!h.capture.cuda_full);
  h.control.step_ends(h.t0 + 1 * kMs);  // step 1 is warmup: CUPTI goes on before it
  CHECK(h.take() == Log{"cuda full"});
  h.step(2, 3);  // step 1: warmup, no window
  CHECK(h.take().empty());
  h.step(4, 5);  // step 2: first active
  CHECK(h.take() == Log{"begin /tmp/run.step2.pb first=2 schedule", "gate open"});
  h.step(6, 7);  // step 3: record and save
  CHECK(h.take() == Log{"gate closed", "end last=3", "cuda quiet"});
  h.step(8, 9);    // 4: wait
  h.step(10, 11);  // 5: warmup
  h.step(12, 13);  // 6
  h.step(14, 15);  // 7
  CHECK(h.take() == Log{"cuda full", "begin /tmp/run.step6.pb first=6 schedule", "gate open", "gate closed",
                        "end last=7", "cuda quiet"});
  for (int i = 0; i < 8; ++i) h.step(16 + 2 * i, 17 + 2 * i);  // repeat=2: no more windows
  CHECK(h.take().empty());
  CHECK(h.windows.step == 15);
  REQUIRE(h.windows.starts.size() == 2);
  CHECK(h.windows.starts[0].index == 0);
  CHECK(h.windows.starts[1].index == 1);
  CHECK(h.windows.starts[1].start_ns == h.t0 + 12 * kMs);
  CHECK(h.windows.starts[1].step_rule == "nvtx:^step$");
}

TEST_CASE("A schedule with no warmup turns CUDA capture on before its first active step") {
  CaptureControlOptions options;
  options.step_rule = nvtx_rule();
  options.schedule = Schedule{0, /*wait=*/2, /*warmup=*/0, /*active=*/1, /*repeat=*/1};
  Harness h(options, test_start_ns());
  h.take();
  h.step(0, 1);
  CHECK(h.take().empty());
  h.step(2, 3);
  CHECK(h.take() == Log{"cuda full"});
  h.step(4, 5);
  CHECK(h.take() == Log{"begin /tmp/run.step2.pb first=2 schedule", "gate open", "gate closed", "end last=2",
                        "cuda quiet"});
}

TEST_CASE("An on-demand capture of N steps opens where the next step begins and closes after N") {
  CaptureControlOptions options;
  options.step_rule = nvtx_rule();
  options.start_off = true;
  Harness h(options, test_start_ns());
  h.take();
  h.step(0, 1);
  CHECK(h.take().empty());

  std::string error;
  OnDemandRequest request{2, 0, "/tmp/asked.pb"};
  REQUIRE(h.control.request(request, h.t0 + 2 * kMs, error));
  // Armed: CUPTI is on for the step that opens it, no window yet.
  CHECK(h.take() == Log{"cuda full"});
  CHECK(!h.control.request(request, h.t0 + 3 * kMs, error));
  CHECK(error == "a capture window is already open");

  h.step(4, 5);
  h.step(6, 7);
  CHECK(h.take() == Log{"begin /tmp/asked.pb first=1 on_demand", "gate open", "gate closed", "end last=2",
                        "cuda quiet"});
  h.step(8, 9);
  CHECK(h.take().empty());
}

TEST_CASE("An on-demand capture of N steps needs a step rule") {
  CaptureControlOptions options;
  options.start_off = true;
  Harness h(options, test_start_ns());
  std::string error;
  CHECK(!h.control.request(OnDemandRequest{3, 0, "/tmp/x.pb"}, h.t0, error));
  CHECK(error.find("without PROF_STEP") != std::string::npos);
}

TEST_CASE("An on-demand capture for a duration opens at once and closes on the first tick after it") {
  CaptureControlOptions options;
  options.start_off = true;
  Harness h(options, test_start_ns());
  h.take();
  std::string error;
  REQUIRE(h.control.request(OnDemandRequest{0, 50 * kMs, "/tmp/d.pb"}, h.t0 + 10 * kMs, error));
  CHECK(h.take() == Log{"cuda full", "gate open", "begin /tmp/d.pb first=-1 on_demand"});
  h.control.tick(h.t0 + 59 * kMs);
  CHECK(h.take().empty());
  h.control.tick(h.t0 + 60 * kMs);
  CHECK(h.take() == Log{"gate closed", "end last=-1", "cuda quiet"});
  // A new request is accepted once the last one is done.
  CHECK(h.control.request(OnDemandRequest{0, 1 * kMs, "/tmp/e.pb"}, h.t0 + 70 * kMs, error));
}

TEST_CASE("PROF_DELAY and PROF_DURATION cut one window by time, to PROF_OUTPUT, once") {
  CaptureControlOptions options;
  options.delay_ns = 100 * kMs;
  options.duration_ns = 200 * kMs;
  Harness h(options, test_start_ns());
  CHECK(h.take() == Log{"gate closed", "cuda quiet"});
  h.control.tick(h.t0 + 99 * kMs);
  CHECK(h.take().empty());
  h.control.tick(h.t0 + 100 * kMs);
  CHECK(h.take() == Log{"cuda full", "gate open", "begin /tmp/run.pb first=-1 duration"});
  CHECK(h.windows.starts.back().start_ns == h.t0 + 100 * kMs);
  h.control.tick(h.t0 + 299 * kMs);
  CHECK(h.take().empty());
  h.control.tick(h.t0 + 300 * kMs);
  CHECK(h.take() == Log{"gate closed", "end last=-1", "cuda quiet"});
  h.control.tick(h.t0 + 1000 * kMs);
  CHECK(h.take().empty());
}

TEST_CASE("PROF_DELAY alone opens its window at the first tick after it and keeps it to the end") {
  CaptureControlOptions options;
  options.delay_ns = 100 * kMs;  // PROF_DELAY alone: from then to the end
  Harness h(options, test_start_ns());
  h.take();
  h.control.tick(h.t0 + 100 * kMs);
  CHECK(h.take() == Log{"cuda full", "gate open", "begin /tmp/run.pb first=-1 duration"});
  h.control.tick(h.t0 + 100'000 * kMs);
  CHECK(h.take().empty());
}

// Issue 27: a program shorter than the writer's first pass recorded nothing
// under PROF_DURATION, since the window waited for a tick.
TEST_CASE("PROF_DURATION without a delay opens its window as recording starts, not at the first tick") {
  {
    const uint64_t delay_ns = 0;
    CaptureControlOptions options;
    options.delay_ns = delay_ns;
    options.duration_ns = 10'000 * kMs;
    Harness h(options, test_start_ns());
    CHECK(h.take() == Log{"gate closed", "cuda quiet", "cuda full", "gate open",
                          "begin /tmp/run.pb first=-1 duration"});
    CHECK(h.windows.starts.back().start_ns == h.t0);
    h.control.tick(h.t0 + 1 * kMs);
    CHECK(h.take().empty());
    h.control.tick(h.t0 + 10'000 * kMs);
    CHECK(h.take() == Log{"gate closed", "end last=-1", "cuda quiet"});
  }
}

TEST_CASE("PROF_MAX_MB reached inside a window closes it and keeps everything off for good") {
  CaptureControlOptions options;
  options.step_rule = nvtx_rule();
  options.schedule = Schedule{0, 0, 0, /*active=*/3, /*repeat=*/0};
  Harness h(options, test_start_ns());
  h.take();
  h.control.step_begins(h.t0);
  CHECK(h.take() == Log{"cuda full", "begin /tmp/run.step0.pb first=0 schedule", "gate open"});
  h.control.stop_for_good(h.t0 + 1 * kMs);
  CHECK(h.take() == Log{"budget gate closed", "gate closed", "end last=0", "cuda quiet"});
  h.control.step_ends(h.t0 + 2 * kMs);
  for (int i = 0; i < 6; ++i) h.step(3 + 2 * i, 4 + 2 * i);
  CHECK(h.take().empty());
  std::string error;
  CHECK(!h.control.request(OnDemandRequest{0, kMs, "/tmp/x.pb"}, h.t0 + 20 * kMs, error));
  CHECK(error.find("PROF_MAX_MB") != std::string::npos);
  h.control.stop_for_good(h.t0 + 21 * kMs);  // once
  CHECK(h.take().empty());
}

TEST_CASE("Between windows CUDA capture is quiet, so that PROF_CUPTI_DETACH may let CUPTI go") {
  CaptureControlOptions options;
  options.step_rule = nvtx_rule();
  options.schedule = Schedule{0, /*wait=*/3, 0, 1, 0};
  Harness h(options, test_start_ns());
  h.take();
  CHECK(!h.control.wants_full_capture());
  h.step(0, 1);
  h.step(2, 3);
  CHECK(!h.control.wants_full_capture());
  h.step(4, 5);
  CHECK(h.control.wants_full_capture());  // from the end of the step before the window
  h.step(6, 7);
  CHECK(h.take() == Log{"cuda full", "begin /tmp/run.step3.pb first=3 schedule", "gate open", "gate closed",
                        "end last=3", "cuda quiet"});
  CHECK(!h.control.wants_full_capture());
}

TEST_CASE("A step rule without windows leaves the gate open and CUDA capture full") {
  CaptureControlOptions options;
  options.step_rule = nvtx_rule();
  Harness h(options, test_start_ns());
  for (int i = 0; i < 4; ++i) h.step(2 * i, 2 * i + 1);
  CHECK(h.take().empty());
  CHECK(h.capture.window_open);
  CHECK(h.capture.cuda_full);
  CHECK(h.windows.step == 3);
}

TEST_CASE("A step that begins twice or ends twice counts once") {
  CaptureControlOptions options;
  options.step_rule = nvtx_rule();
  options.schedule = Schedule{0, 0, 0, /*active=*/2, /*repeat=*/1};
  Harness h(options, test_start_ns());
  h.take();
  h.control.step_begins(h.t0);
  h.control.step_begins(h.t0 + kMs);
  h.control.step_ends(h.t0 + 2 * kMs);
  h.control.step_ends(h.t0 + 3 * kMs);
  CHECK(h.windows.step == 0);
  h.control.step_boundary(h.t0 + 4 * kMs);  // step 1 begins
  h.control.step_boundary(h.t0 + 5 * kMs);  // step 1 ends: the window's last
  CHECK(h.take() == Log{"cuda full", "begin /tmp/run.step0.pb first=0 schedule", "gate open", "gate closed",
                        "end last=1", "cuda quiet"});
}

}  // namespace
}  // namespace prof
