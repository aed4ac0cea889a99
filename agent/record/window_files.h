#pragma once
// Capture windows as files: each window's records go to a file of its own,
// completed when the window ends (its GPU records waited for, a Window
// record last), and the files on disk kept to PROF_KEEP and all written
// bytes to PROF_MAX_MB. The writer drains and writes; this decides which
// file a chunk goes to and when a file is complete.
//
// Windows begin and end on any thread (CaptureControl, through WindowSink):
// they are queued as events and handled by the writer thread on its next
// pass (handle_events), in order. Everything else runs on the writer thread.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "control/window_sink.h"
#include "encode/file_records.h"
#include "record/activity_source.h"
#include "record/recorder.h"
#include "record/window_launches.h"

namespace prof {

class WindowFiles final : public WindowSink {
 public:
  struct Options {
    uint32_t keep = 0;          // PROF_KEEP: window files kept (0: all)
    uint64_t max_bytes = 0;     // PROF_MAX_MB: bytes written in all (0: no cap)
    // PROF_WINDOW_WAIT_MS: how long a window's end waits for the GPU records
    // of work launched inside it.
    uint32_t window_wait_ms = 2000;
    // Called once when max_bytes is reached.
    void (*on_budget_spent)(uint64_t now_ns) = nullptr;
  };

  // What completing a window needs of the writer (Writer implements it).
  class Output {
   public:
    // Drains the rings (up to `until`, or everything) and the activity
    // source into the chunk being built.
    virtual void drain(const Recorder::Positions* until, uint64_t later_after_ns) = 0;
    // The activity source only.
    virtual void drain_activity(uint64_t later_after_ns) = 0;
    // The chunks from now go to `path`.
    virtual void open_file(const std::string& path) = 0;
    // Ends the file with `window` (open NVTX ranges closed at its end), and
    // `end` when the process ends inside it, and starts afresh for the next
    // one: strings, stacks and threads are defined again in each file.
    // Returns the bytes written (0: none, no file was created).
    virtual uint64_t close_file(const file::Window& window, const file::ProcessEnd* end) = 0;
    virtual ActivitySource* activity_source() = 0;
    // Whether a signal handler waits for the writer: then nothing waits
    // for GPU records, or for a lock (HandlerWaits).
    virtual HandlerWaits handler_waits() const = 0;

   protected:
    ~Output() = default;
  };

  WindowFiles(const Recorder& recorder, Options options);

  // ---- WindowSink: any thread ----
  void begin_window(const WindowStart& start) override;
  void end_window(int64_t last_step, uint64_t end_ns) override;
  void note_step(int64_t step) override { step_begun_.store(step, std::memory_order_relaxed); }
  uint64_t windows_completed() const override { return windows_completed_.load(std::memory_order_acquire); }
  std::string last_window_path() const override;
  // Called after an event is queued (the writer's wake-up).
  void set_wake(void (*wake)()) { wake_ = wake; }

  // ---- the writer thread ----
  void handle_events(Output& output);
  bool events_pending() const;
  bool window_active() const { return active_; }
  // The open window's launches, while it tracks them.
  WindowLaunches* launches() { return launches_.active() ? &launches_ : nullptr; }
  // A call drained while a window is open: a launch to wait for.
  // `start_ns`: the call's start, in ns (the record holds host ticks).
  void note_launch(const ApiCallRecord& call, uint64_t start_ns);
  // The process ends (after the last drain and the writer's wait for the
  // GPU work, Writer::wait_for_gpu_work): a window still open is completed,
  // cut short; `end` goes into its file. `wait_until_ns`: the end of the
  // writer's wait (the window waits no longer).
  void finish(Output& output, const file::ProcessEnd& end, uint64_t wait_until_ns);

  // PROF_MAX_MB: whether `next_bytes` more, on top of the open file's
  // `file_bytes`, are over the budget (said once, and then always true).
  bool over_budget(uint64_t file_bytes, size_t next_bytes);
  // Bytes of the files already completed, and how many were written.
  uint64_t closed_bytes() const { return closed_bytes_.load(std::memory_order_relaxed); }
  uint32_t files_written() const { return files_written_.load(std::memory_order_relaxed); }

 private:
  struct Event {
    bool begin = false;
    WindowStart start;          // begin
    int64_t last_step = -1;     // end
    uint64_t end_ns = 0;        // end
    Recorder::Positions until;  // end: where each thread's records of the window end
  };
  void push(Event event);
  // `until`: the window's records end there in each thread's buffer (null:
  // everything recorded so far is the window's).
  // `wait_until_ns`: how long to wait for the window's GPU records.
  void complete(Output& output, int64_t last_step, uint64_t end_ns, bool partial,
                const Recorder::Positions* until, const file::ProcessEnd* end, uint64_t wait_until_ns);
  // The end of the wait for a window's GPU records that begins now.
  uint64_t wait_deadline() const;
  // Waits until the source handed over the GPU record of every launch of
  // the window, or `wait_until_ns`; returns how many did not arrive.
  uint32_t wait_for_launches(Output& output, uint64_t end_ns, uint64_t wait_until_ns, bool at_exit);
  // The window's launches whose GPU records have not arrived.
  uint64_t launches_outstanding(const ActivitySource& source, uint64_t end_ns, bool at_exit) const;

  const Recorder& recorder_;
  const Options options_;
  void (*wake_)() = nullptr;

  mutable std::mutex mutex_;  // guards events_ and last_path_
  std::vector<Event> events_;
  std::string last_path_;
  std::atomic<uint64_t> windows_completed_{0};
  std::atomic<int64_t> step_begun_{-1};

  // Writer thread.
  bool active_ = false;
  WindowStart window_;
  WindowLaunches launches_;
  std::vector<std::string> kept_files_;  // PROF_KEEP's ring, oldest first
  std::atomic<uint64_t> closed_bytes_{0};
  std::atomic<uint32_t> files_written_{0};
  bool budget_spent_ = false;
};

}  // namespace prof
