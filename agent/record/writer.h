#pragma once
// The writer thread: every drain interval it empties the thread buffers and
// the GPU activity source into the chunk being built (through the
// Translator), and appends a chunk to the file (FileSink) at least every
// flush interval, so that a process killed with SIGKILL loses about one
// interval. Flush requests come as tickets, also from signal handlers.
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "encode/chunk_encoder.h"
#include "record/activity_source.h"
#include "record/file_sink.h"
#include "record/recorder.h"
#include "record/translator.h"
#include "record/window_launches.h"
#include "run_claim.h"

namespace prof {

class Writer {
 public:
  struct Options {
    std::string path;
    uint32_t drain_interval_ms = 0;
    uint32_t flush_interval_ms = 0;
    // Capture windows: nothing is written outside them, each goes to its
    // own file (begin_window/end_window).
    bool windowed = false;
    uint32_t keep = 0;        // PROF_KEEP: window files kept (0: all)
    uint64_t max_bytes = 0;   // PROF_MAX_MB: bytes written in all (0: no cap)
    // PROF_WINDOW_WAIT_MS: how long a window's end waits for the GPU records
    // of work launched inside it.
    uint32_t window_wait_ms = 2000;
    // PROF_RING_WAIT_MS: the longest an app thread waits for room in its
    // ring (ThreadBuffer::wait_for_room) while this writer runs.
    uint32_t ring_wait_ms = 0;
    // Called on the writer thread at every pass (time-based windows, the
    // on-demand trigger).
    void (*on_pass)(uint64_t now_ns) = nullptr;
    // Called once when max_bytes is reached.
    void (*on_budget_spent)(uint64_t now_ns) = nullptr;
  };
  Writer(Recorder& recorder, Options options, file::Process process);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Readies the wake-up channel. The file itself is created with the first
  // chunk that holds records.
  [[nodiscard]] bool prepare();
  void start();

  // Asks the writer to write everything recorded so far; with `final`, also
  // to end the file with `end` and stop. Async-signal-safe. Returns a ticket
  // for wait_until_written.
  uint64_t request_flush(bool final, file::ProcessEnd::Reason reason = file::ProcessEnd::Reason::exit,
                         int signal = 0);
  // Waits (polling, async-signal-safe) until the flush `ticket` is on disk or
  // `timeout_ms` passed. False on timeout or when the writer is not running.
  bool wait_until_written(uint64_t ticket, uint32_t timeout_ms) const;

  // GPU activity to drain with the thread buffers (set once, when CUDA starts).
  void set_activity_source(ActivitySource* source) {
    activity_source_.store(source, std::memory_order_release);
  }

  // ---- capture windows (any thread; a few times per step at most) ----
  struct WindowStart {
    uint32_t index = 0;
    int64_t first_step = -1;
    uint64_t start_ns = 0;
    std::string path;
    std::string trigger;
    std::string step_rule;
  };
  // Everything recorded from now goes to `start.path`.
  void begin_window(const WindowStart& start);
  // The window ends: its file is completed (GPU records delivered, a Window
  // record last) and closed.
  void end_window(int64_t last_step, uint64_t end_ns);
  // The window files completed so far (their paths, newest last), and a
  // counter of them: the on-demand trigger waits for one.
  uint64_t windows_completed() const { return windows_completed_.load(std::memory_order_acquire); }
  std::string last_window_path() const;

  // The step in progress (CaptureControl, as each step begins): the last
  // step of a window the process ends inside.
  void note_step(int64_t step) { step_begun_.store(step, std::memory_order_relaxed); }

  // Joins the thread after a final flush.
  void join();

  // Around the app's fork(): holds the writer between two passes over the
  // buffers, so that it is not inside malloc (or holding any other lock)
  // when the child is made. glibc's malloc is fork-safe anyway; allocators
  // that are not (GCC 12's AddressSanitizer) left the child waiting forever
  // on a lock the writer held. A pass takes a few milliseconds at most.
  // A process that has recorded claims the run's name here if its writer has
  // not yet: a child that execs starts an agent of its own, which would
  // otherwise take the name if it recorded first.
  void hold_for_fork();
  void release_after_fork() { pass_mutex_.unlock(); }

  // The run this process belongs to, which names the file (run_claim.h).
  void set_run_claim(RunClaim* claim) { claim_ = claim; }
  // The file, or with capture windows the last window's file.
  std::string path() const;
  // After the final flush: whether any record was written (and so a file).
  bool wrote_file() const { return file_.created() && !write_failed_; }
  // The file could not be created or written (said once on stderr). Read
  // after join().
  bool failed() const { return write_failed_; }
  uint64_t bytes_written() const { return total_bytes_.load(std::memory_order_relaxed) + file_.bytes_written(); }
  bool any_file_written() const { return files_written_.load(std::memory_order_relaxed) != 0 || file_.created(); }

 private:
  void run();
  // No window open or being completed: the activity source may let go of
  // its producer (ActivitySource::between_windows).
  void between_windows();
  void drain(const Recorder::Positions* until = nullptr, uint64_t later_after_ns = UINT64_MAX);
  // `later_after_ns`: see ChunkSink.
  void drain_activity(uint64_t later_after_ns = UINT64_MAX);
  void note_launch(const ApiCallRecord& call);
  // Waits until CUPTI handed over the GPU record of every launch of the
  // window, or window_wait_ms passed; returns how many did not arrive.
  uint32_t wait_for_window_launches(uint64_t end_ns);
  void write_chunk();
  [[nodiscard]] bool create_file();
  // Takes the file name the run gives this process, once: when it first
  // records, or at the latest when it creates the file. Not with windows,
  // whose files are named by the windows.
  void claim_path();
  file::DropCounts drop_counts() const;
  void finish(uint64_t end_ns);
  struct WindowEvent {
    bool begin = false;
    WindowStart start;      // begin
    int64_t last_step = -1; // end
    uint64_t end_ns = 0;    // end
    Recorder::Positions until;  // end: where each thread's records of the window end
  };
  void push_window_event(WindowEvent event);
  void handle_window_events();
  // `until`: the window's records end there in each thread's buffer (null:
  // everything recorded so far is the window's).
  void complete_window(int64_t last_step, uint64_t end_ns, bool partial,
                       const Recorder::Positions* until = nullptr);
  bool over_budget(size_t next_bytes);

  Recorder& recorder_;
  const Options options_;
  file::Process process_;
  FileSink file_;
  RunClaim* claim_ = nullptr;
  bool claimed_ = false;  // writer thread only

  int wake_fd_ = -1;  // eventfd: flush requests (also from signal handlers)
  std::thread thread_;
  std::mutex pass_mutex_;  // held by the writer while it drains and writes
  std::atomic<bool> running_{false};

  // Flush tickets: requesters take one from requested_, the writer publishes
  // the highest ticket whose data is written in written_.
  std::atomic<uint64_t> requested_{0};
  std::atomic<uint64_t> written_{0};
  std::atomic<bool> final_requested_{false};
  std::atomic<uint32_t> end_reason_{0};
  std::atomic<int> end_signal_{0};
  std::atomic<ActivitySource*> activity_source_{nullptr};

  // Writer-thread state.
  ChunkEncoder chunk_;
  Translator translator_;
  file::DropCounts drops_written_;
  bool final_drops_ = false;
  uint64_t last_write_ns_ = 0;
  void fail();
  bool write_failed_ = false;

  // Capture windows.
  mutable std::mutex windows_mutex_;  // guards window_events_ and last_window_path_
  std::vector<WindowEvent> window_events_;
  std::string last_window_path_;
  std::atomic<uint64_t> windows_completed_{0};
  std::atomic<int64_t> step_begun_{-1};
  // Writer thread.
  bool window_active_ = false;
  WindowStart window_;
  WindowLaunches launches_;
  std::vector<std::string> kept_files_;  // PROF_KEEP's ring, oldest first
  std::atomic<uint64_t> total_bytes_{0};  // of files already closed
  std::atomic<uint32_t> files_written_{0};
  bool budget_spent_ = false;
};

}  // namespace prof
