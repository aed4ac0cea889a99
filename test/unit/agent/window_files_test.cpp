#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "record/window_files.h"

// WindowFiles against a fake writer (WindowFiles::Output) and a fake GPU
// activity source: which file each window goes to, what its Window record
// says, PROF_KEEP, PROF_MAX_MB and the wait for a window's GPU records.
namespace prof {
namespace {

constexpr uint64_t kMs = 1'000'000;

// GPU activity whose records arrive after `deliveries_until_arrival` asks
// (never, with 0).
struct FakeActivity final : ActivitySource {
  std::vector<uint32_t> pending;  // correlation ids of work still running
  int deliveries_until_arrival = 0;
  int deliveries = 0;
  uint64_t request_delivery(bool) override {
    ++deliveries;
    return 0;  // delivered at once
  }
  void drain(ChunkSink& sink) override {
    if (deliveries_until_arrival == 0 || deliveries < deliveries_until_arrival) return;
    for (uint32_t id : pending) {
      if (sink.launches != nullptr) sink.launches->arrived(id);
    }
    pending.clear();
  }
  uint64_t dropped() const override { return 0; }
  uint64_t unfinished() const override { return 0; }
  bool reports_launches() const override { return true; }
};

// The writer's side: logs what it is asked; "writes" a file of
// `bytes_per_file` bytes when a window recorded anything.
struct FakeOutput final : WindowFiles::Output {
  std::vector<std::string> log;
  std::vector<file::Window> windows;
  std::vector<bool> ended_process;
  ActivitySource* source = nullptr;
  std::string open_path;
  uint64_t bytes_per_file = 100;
  ChunkEncoder chunk;
  StringTable strings;

  void drain(const Recorder::Positions* until, uint64_t later_after_ns) override {
    log.push_back(std::string("drain") + (until != nullptr ? " until" : "") +
                  (later_after_ns != UINT64_MAX ? " later_after" : ""));
    drain_activity(later_after_ns);
  }
  void drain_activity(uint64_t later_after_ns) override {
    if (source == nullptr) return;
    WindowLaunches* launches = launches_of_window;
    ChunkSink sink{chunk, strings, launches, later_after_ns};
    source->drain(sink);
  }
  void open_file(const std::string& path) override {
    open_path = path;
    log.push_back("open " + path);
  }
  uint64_t close_file(const file::Window& window, const file::ProcessEnd* end) override {
    windows.push_back(window);
    ended_process.push_back(end != nullptr);
    log.push_back("close " + open_path);
    if (bytes_per_file == 0) return 0;
    FILE* f = fopen(open_path.c_str(), "w");
    if (f != nullptr) fclose(f);
    return bytes_per_file;
  }
  ActivitySource* activity_source() override { return source; }
  // A signal handler waiting for the writer, when set.
  std::atomic<uint32_t> handlers_waiting{0};
  HandlerWaits handler_waits() const override { return HandlerWaits(handlers_waiting); }
  WindowLaunches* launches_of_window = nullptr;
};

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

std::string temp_dir() {
  char pattern[] = "/tmp/window_files_test.XXXXXX";
  REQUIRE(mkdtemp(pattern) != nullptr);
  return pattern;
}

WindowStart start_of(uint32_t index, int64_t first_step, uint64_t start_ns, std::string path) {
  WindowStart start;
  start.index = index;
  start.first_step = first_step;
  start.start_ns = start_ns;
  start.path = std::move(path);
  start.trigger = "schedule";
  start.step_rule = "nvtx:step";
  return start;
}

ApiCallRecord launch(uint32_t correlation_id) {
  ApiCallRecord call{};
  call.correlation_id = correlation_id;
  call.args = ApiCallArgs::launch;
  call.backend = static_cast<uint8_t>(file::CaptureBackend::cupti);
  return call;
}

using Log = std::vector<std::string>;

TEST_CASE("Each window's records go to its file, completed with a Window record when it ends") {
  Recorder recorder(1 << 16);
  WindowFiles files(recorder, {});
  FakeOutput output;
  files.begin_window(start_of(0, 2, 10 * kMs, "/tmp/a.step2.pb"));
  CHECK(files.events_pending());
  files.handle_events(output);
  CHECK(files.window_active());
  CHECK(output.log == Log{"open /tmp/a.step2.pb"});
  files.note_step(3);
  files.end_window(3, 20 * kMs);
  files.handle_events(output);
  CHECK(!files.window_active());
  CHECK(output.log == Log{"open /tmp/a.step2.pb", "drain until later_after", "close /tmp/a.step2.pb"});
  REQUIRE(output.windows.size() == 1);
  const file::Window& window = output.windows[0];
  CHECK(window.index == 0);
  CHECK(window.first_step == 2);
  CHECK(window.last_step == 3);
  CHECK(window.start_ns == 10 * kMs);
  CHECK(window.end_ns == 20 * kMs);
  CHECK(window.trigger == "schedule");
  CHECK(window.step_rule == "nvtx:step");
  CHECK(!window.partial);
  CHECK(window.gpu_records_missing == 0);
  CHECK(files.windows_completed() == 1);
  CHECK(files.last_window_path() == "/tmp/a.step2.pb");
  CHECK(files.closed_bytes() == 100);
  CHECK(files.files_written() == 1);
  ::unlink("/tmp/a.step2.pb");
}

TEST_CASE("A window that recorded nothing is completed but leaves no file to name") {
  Recorder recorder(1 << 16);
  WindowFiles files(recorder, {});
  FakeOutput output;
  output.bytes_per_file = 0;
  files.begin_window(start_of(0, -1, 0, "/tmp/empty.pb"));
  files.end_window(-1, kMs);
  files.handle_events(output);
  CHECK(files.windows_completed() == 1);
  CHECK(files.files_written() == 0);
  CHECK(files.last_window_path().empty());
}

TEST_CASE("A window that begins while one is open cuts the open one short, at its start") {
  Recorder recorder(1 << 16);
  WindowFiles files(recorder, {});
  FakeOutput output;
  output.bytes_per_file = 0;
  files.begin_window(start_of(0, 0, 1 * kMs, "/tmp/w0.pb"));
  files.begin_window(start_of(1, 4, 5 * kMs, "/tmp/w1.pb"));
  files.end_window(5, 9 * kMs);
  files.end_window(6, 10 * kMs);  // no window open: nothing to end
  files.handle_events(output);
  CHECK(output.log == Log{"open /tmp/w0.pb", "drain later_after", "close /tmp/w0.pb", "open /tmp/w1.pb",
                          "drain until later_after", "close /tmp/w1.pb"});
  REQUIRE(output.windows.size() == 2);
  CHECK(output.windows[0].partial);
  CHECK(output.windows[0].end_ns == 5 * kMs);
  CHECK(output.windows[0].last_step == -1);
  CHECK(!output.windows[1].partial);
  CHECK(files.windows_completed() == 2);
}

TEST_CASE("PROF_KEEP keeps the newest window files on disk and removes older ones") {
  const std::string dir = temp_dir();
  Recorder recorder(1 << 16);
  WindowFiles::Options options;
  options.keep = 2;
  WindowFiles files(recorder, options);
  FakeOutput output;
  for (uint32_t i = 0; i < 4; ++i) {
    files.begin_window(start_of(i, i, i * kMs, dir + "/w" + std::to_string(i) + ".pb"));
    files.end_window(i, i * kMs + 1);
    files.handle_events(output);
  }
  CHECK(!exists(dir + "/w0.pb"));
  CHECK(!exists(dir + "/w1.pb"));
  CHECK(exists(dir + "/w2.pb"));
  CHECK(exists(dir + "/w3.pb"));
  CHECK(files.files_written() == 4);
  CHECK(files.last_window_path() == dir + "/w3.pb");
  ::unlink((dir + "/w2.pb").c_str());
  ::unlink((dir + "/w3.pb").c_str());
  ::rmdir(dir.c_str());
}

int g_budget_calls = 0;

TEST_CASE("PROF_MAX_MB counts the bytes of every file, says so once and stays spent") {
  Recorder recorder(1 << 16);
  WindowFiles::Options options;
  options.max_bytes = 250;
  options.on_budget_spent = [](uint64_t) { ++g_budget_calls; };
  WindowFiles files(recorder, options);
  FakeOutput output;
  output.bytes_per_file = 0;  // no file on disk; the bytes below are what counts
  CHECK(!files.over_budget(0, 250));
  CHECK(!files.over_budget(200, 50));
  CHECK(g_budget_calls == 0);
  CHECK(files.over_budget(200, 51));
  CHECK(g_budget_calls == 1);
  CHECK(files.over_budget(0, 1));
  CHECK(g_budget_calls == 1);
}

TEST_CASE("A window's end waits for the GPU records of the work launched inside it") {
  Recorder recorder(1 << 16);
  FakeActivity activity;
  activity.deliveries_until_arrival = 3;
  WindowFiles files(recorder, {});
  FakeOutput output;
  output.bytes_per_file = 0;
  output.source = &activity;
  files.begin_window(start_of(0, 0, 10 * kMs, "/tmp/x.pb"));
  files.handle_events(output);
  REQUIRE(files.launches() != nullptr);
  output.launches_of_window = files.launches();
  files.note_launch(launch(7), 11 * kMs);
  files.note_launch(launch(8), 9 * kMs);  // began before the window: not waited for
  activity.pending = {7};
  files.end_window(0, 20 * kMs);
  files.handle_events(output);
  REQUIRE(output.windows.size() == 1);
  CHECK(output.windows[0].gpu_records_missing == 0);
  CHECK(activity.deliveries >= 3);
  CHECK(files.launches() == nullptr);
}

// A window open (its file not written: bytes_per_file 0) over a GPU
// activity source that never delivers, with PROF_WINDOW_WAIT_MS `wait_ms`.
struct WindowOverSilentSource {
  Recorder recorder{1 << 16};
  FakeActivity activity;  // never delivers
  WindowFiles files;
  FakeOutput output;
  explicit WindowOverSilentSource(uint32_t wait_ms) : files(recorder, waiting(wait_ms)) {
    output.bytes_per_file = 0;
    output.source = &activity;
    files.begin_window(start_of(0, 0, 10 * kMs, "/tmp/x.pb"));
    files.handle_events(output);
    output.launches_of_window = files.launches();
  }
  static WindowFiles::Options waiting(uint32_t wait_ms) {
    WindowFiles::Options options;
    options.window_wait_ms = wait_ms;
    return options;
  }
};

TEST_CASE("GPU records that never come are counted in the window, after PROF_WINDOW_WAIT_MS") {
  WindowOverSilentSource w(20);
  w.files.note_launch(launch(7), 11 * kMs);
  w.files.note_launch(launch(9), 12 * kMs);
  ApiCallRecord failed = launch(10);
  failed.return_code = 1;  // put nothing on the GPU
  w.files.note_launch(failed, 12 * kMs);
  w.files.end_window(0, 20 * kMs);
  w.files.handle_events(w.output);
  REQUIRE(w.output.windows.size() == 1);
  CHECK(w.output.windows[0].gpu_records_missing == 2);
}

TEST_CASE("While a signal handler waits for the writer, a window's end waits for no GPU record") {
  // The thread the signal interrupted may hold CUPTI's locks for good: the
  // records of the window's launches are counted missing at once, not after
  // PROF_WINDOW_WAIT_MS (an hour here: the test would not end).
  WindowOverSilentSource w(3'600'000);
  w.files.note_launch(launch(7), 11 * kMs);
  w.output.handlers_waiting = 1;
  w.files.end_window(0, 20 * kMs);
  w.files.handle_events(w.output);
  REQUIRE(w.output.windows.size() == 1);
  CHECK(w.output.windows[0].gpu_records_missing == 1);
}

// A source whose producer never hands anything over (held up by a lock a
// signal's thread holds): deliver() waits until a handler waits, then gives up.
struct StuckActivity final : ActivitySource {
  std::atomic<uint32_t>* handlers_waiting = nullptr;
  int waits = 0;
  uint64_t request_delivery(bool) override { return 1; }
  bool wait_for_delivery(uint64_t, uint32_t) override {
    if (++waits == 3) handlers_waiting->store(1);  // a handler comes while the writer waits
    return false;
  }
  void drain(ChunkSink&) override {}
  uint64_t dropped() const override { return 0; }
  uint64_t unfinished() const override { return 0; }
};

TEST_CASE("A delivery is waited for until it is done, or until a signal handler waits for the writer") {
  std::atomic<uint32_t> handlers_waiting{0};
  FakeActivity delivering;
  CHECK(delivering.deliver(false, HandlerWaits(handlers_waiting)));
  CHECK(delivering.deliveries == 1);
  StuckActivity stuck;
  stuck.handlers_waiting = &handlers_waiting;
  CHECK_FALSE(stuck.deliver(false, HandlerWaits(handlers_waiting)));
  CHECK(stuck.waits == 3);
}

TEST_CASE("The process ending inside a window completes it, cut short, with the process's end") {
  Recorder recorder(1 << 16);
  WindowFiles files(recorder, {});
  FakeOutput output;
  output.bytes_per_file = 0;
  files.begin_window(start_of(0, 4, 1 * kMs, "/tmp/x.pb"));
  files.note_step(6);
  file::ProcessEnd end;
  end.end_ns = 30 * kMs;
  files.finish(output, end, 0);  // the writer's wait for the GPU is over
  REQUIRE(output.windows.size() == 1);
  CHECK(output.windows[0].partial);
  CHECK(output.windows[0].last_step == 6);
  CHECK(output.windows[0].end_ns == 30 * kMs);
  CHECK(output.ended_process == std::vector<bool>{true});
}

TEST_CASE("Only calls CUPTI will report work of are waited for; launches into a stream capture are not") {
  CHECK(cupti_will_report_work(launch(1)));
  ApiCallRecord empty_copy = launch(2);
  empty_copy.args = ApiCallArgs::copy;
  CHECK(!cupti_will_report_work(empty_copy));  // no bytes: no GPU work
  empty_copy.bytes = 64;
  CHECK(cupti_will_report_work(empty_copy));
  ApiCallRecord by_hooks = launch(3);
  by_hooks.backend = static_cast<uint8_t>(file::CaptureBackend::hooks);
  CHECK(!cupti_will_report_work(by_hooks));

  StreamCaptures captures;
  ApiCallRecord begin{}, end{};
  begin.args = ApiCallArgs::capture_begin;
  end.args = ApiCallArgs::capture_end;
  captures.note(launch(4));
  CHECK(!captures.any_open());
  captures.note(begin);
  CHECK(captures.any_open());
  end.return_code = 901;  // cudaErrorStreamCaptureInvalidated: the capture still ends
  captures.note(end);
  CHECK(!captures.any_open());
  captures.note(end);  // an end without a begin the writer saw
  begin.return_code = 1;  // a begin that failed opens nothing
  captures.note(begin);
  CHECK(!captures.any_open());
}

TEST_CASE("The process ending between windows completes none") {
  Recorder recorder(1 << 16);
  WindowFiles files(recorder, {});
  FakeOutput output;
  files.finish(output, file::ProcessEnd{}, 0);
  CHECK(output.windows.empty());
  CHECK(output.log.empty());
}

}  // namespace
}  // namespace prof
