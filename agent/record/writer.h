#pragma once
// The writer thread: every drain interval it empties the thread buffers and
// the GPU activity source into the chunk being built (through the
// Translator), and appends a chunk to the file (FileSink) at least every
// flush interval, so that a process killed with SIGKILL loses about one
// interval. Flush requests come as tickets, also from signal handlers.
// With capture windows, WindowFiles decides which file a chunk goes to and
// when a window's file is complete; the writer drains and writes for it.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "encode/chunk_encoder.h"
#include "common/own_fd.h"
#include "common/tick_calibration.h"
#include "record/activity_source.h"
#include "record/file_sink.h"
#include "record/recorder.h"
#include "record/translator.h"
#include "record/window_files.h"
#include "run_claim.h"

namespace prof {

class Writer final : private WindowFiles::Output {
 public:
  struct Options {
    std::string path;
    uint32_t drain_interval_ms = 0;
    uint32_t flush_interval_ms = 0;
    // Capture windows: nothing is written outside them, each goes to its
    // own file (begin_window/end_window).
    bool windowed = false;
    // PROF_KEEP, PROF_MAX_MB (with windows or without), PROF_WINDOW_WAIT_MS.
    WindowFiles::Options windows;
    // PROF_RING_WAIT_MS: the longest an app thread waits for room in its
    // ring (ThreadBuffer::wait_for_room) while this writer runs.
    uint32_t ring_wait_ms = 0;
    // Called on the writer thread at every pass (time-based windows, the
    // on-demand trigger).
    void (*on_pass)(uint64_t now_ns) = nullptr;
    // Called on the writer thread after the final chunk when the process
    // dies of a signal (no exit handler will run), before the flush is
    // reported done to the signal handler that waits for it.
    void (*on_ended_by_signal)() = nullptr;
  };
  Writer(Recorder& recorder, Options options, file::Process process);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Readies the wake-up channel, and completes the process description
  // (executable, command line) when the process first records. The file
  // itself is created with the first chunk that holds records.
  [[nodiscard]] bool prepare();
  void start();

  // Asks the writer to write everything recorded so far; with `final`, also
  // to end the file with `end` and stop. Async-signal-safe. Returns a ticket
  // for wait_until_written.
  uint64_t request_flush(bool final, file::ProcessEnd::Reason reason = file::ProcessEnd::Reason::exit,
                         int signal = 0);
  // Waits (async-signal-safe: a futex on written_changes_) until the flush
  // `ticket` is on disk or `timeout_ms` passed. False on timeout or when the
  // writer is not running.
  bool wait_until_written(uint64_t ticket, uint32_t timeout_ms) const;
  // For a signal handler: request_flush (the end of the process, of signal
  // `signal`, when `final`) and wait_until_written, while the writer knows
  // that a handler waits (HandlerWaits): its pass then waits for no other
  // thread, since the one the signal interrupted may never resume.
  // Async-signal-safe.
  bool flush_for_handler(bool final, int signal, uint32_t timeout_ms);

  // GPU activity to drain with the thread buffers (set once, when CUDA starts).
  void set_activity_source(ActivitySource* source) {
    activity_source_.store(source, std::memory_order_release);
  }

  // Capture windows (CaptureControl's WindowSink).
  WindowFiles& windows() { return windows_; }
  const WindowFiles& windows() const { return windows_; }

  // Joins the thread after a final flush.
  void join();

  // Around the app's fork(): holds the writer where it waits for work (past
  // its thread's start, between two passes over the buffers), so that it is
  // not inside malloc (or holding any other lock) when the child is made.
  // glibc's malloc is fork-safe anyway; allocators that are not (GCC 12's
  // AddressSanitizer) left the child waiting forever on a lock the writer
  // held. A pass takes a few milliseconds at most.
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
  uint64_t bytes_written() const { return windows_.closed_bytes() + file_.bytes_written(); }
  bool any_file_written() const { return windows_.files_written() != 0 || file_.created(); }
  // After the final flush: GPU work launched by the recorded calls whose
  // record never came (ProcessEnd.gpu_records_missing).
  uint32_t gpu_records_missing() const { return gpu_records_missing_.load(std::memory_order_relaxed); }

 private:
  void run();
  // No window open or being completed: the activity source may let go of
  // its producer (ActivitySource::between_windows).
  void between_windows();
  // `later_after_ns`: see ChunkSink.
  void drain(const Recorder::Positions* until = nullptr, uint64_t later_after_ns = UINT64_MAX) override;
  void drain_activity(uint64_t later_after_ns = UINT64_MAX) override;
  void open_file(const std::string& path) override;
  uint64_t close_file(const file::Window& window, const file::ProcessEnd* end) override;
  ActivitySource* activity_source() override { return activity_source_.load(std::memory_order_acquire); }
  HandlerWaits handler_waits() const override { return HandlerWaits(handlers_waiting_); }
  // A ChunkSink into the chunk being built, for the activity source.
  ChunkSink activity_sink(uint64_t later_after_ns = UINT64_MAX);
  void write_chunk();
  // Bumps written_changes_ and wakes wait_until_written's sleepers.
  void announce_written();
  // Adds a (ticks, ns) pair to clock_, at the start of every drain.
  void calibrate();
  // drain() without the pair it reads first: for a second drain up to the
  // same `until` in one pass.
  void drain_after_calibration(const Recorder::Positions* until, uint64_t later_after_ns);
  [[nodiscard]] bool create_file();
  // Takes the file name the run gives this process, once: when it first
  // records, or at the latest when it creates the file. Not with windows,
  // whose files are named by the windows.
  void claim_path();
  file::DropCounts drop_counts() const;
  void finish(uint64_t end_ns);
  // At the end: waits (until `wait_until_ns`, not when a signal ends the
  // process) for the GPU work the recorded calls launched, forces out what
  // the source holds, and returns how many records never came.
  uint32_t finish_gpu_work(uint64_t wait_until_ns, bool ended_by_signal);
  void wait_for_gpu_work(ActivitySource& source, uint64_t wait_until_ns);
  // Launches whose GPU record has not come yet (as far as it is known).
  uint64_t gpu_work_outstanding(const ActivitySource& source);

  Recorder& recorder_;
  const Options options_;
  file::Process process_;
  FileSink file_;
  RunClaim* claim_ = nullptr;
  bool claimed_ = false;  // writer thread only

  // eventfd: flush requests (also from signal handlers). Kept out of the
  // program's way (own_fd.h); the writer makes a new one when the program
  // closed it, and nobody writes to the number once it is not ours.
  std::atomic<int> wake_fd_{-1};
  OwnFd wake_;  // what wake_fd_ names; writer thread only, after start()
  // A new eventfd when the program closed ours (closefrom, close_range).
  void renew_wake_fd_if_taken();
  std::thread thread_;
  std::mutex pass_mutex_;  // held by the writer thread except while it polls
  std::atomic<bool> running_{false};
  std::atomic<bool> in_loop_{false};  // the writer thread has taken pass_mutex_ once

  // Flush tickets: requesters take one from requested_, the writer publishes
  // the highest ticket whose data is written in written_.
  std::atomic<uint64_t> requested_{0};
  std::atomic<uint64_t> written_{0};
  // Bumped, and its waiters woken, after written_ or running_ changes: the
  // futex wait_until_written sleeps on, so that a flush's waiter (the app
  // thread at exit) goes on when the chunk is written, not at its next nap.
  std::atomic<uint32_t> written_changes_{0};
  std::atomic<bool> final_requested_{false};
  std::atomic<uint32_t> handlers_waiting_{0};  // in flush_for_handler
  std::atomic<uint32_t> end_reason_{0};
  std::atomic<int> end_signal_{0};
  std::atomic<ActivitySource*> activity_source_{nullptr};

  // Writer-thread state.
  // Host ticks -> ns for the records this writer translates (set up in
  // prepare(), when the process first records).
  TickCalibration clock_;
  ChunkEncoder chunk_;
  // Made in prepare(), and anew for each window's file. On the heap: its
  // 9 KB inline would make the Writer three pages that every process under
  // LD_PRELOAD first touches at start-up, recording or not (issue #30).
  std::unique_ptr<Translator> translator_;
  file::DropCounts drops_written_;
  bool final_drops_ = false;
  uint64_t last_write_ns_ = 0;
  void fail();
  bool write_failed_ = false;

  WindowFiles windows_;
  // Without windows, with CUPTI: every launch until its record comes, for
  // the wait at exit.
  WindowLaunches in_flight_;
  StreamCaptures captures_;
  std::atomic<uint32_t> gpu_records_missing_{0};
};

}  // namespace prof
