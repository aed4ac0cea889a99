#pragma once
// GPU activity arrives in batches from outside the app threads (CUPTI's
// completed buffers). The writer drains such a source like the thread
// buffers; the source decides how its batches become file records.
#include <atomic>
#include <cstdint>

#include "record/string_table.h"
#include "record/window_launches.h"

namespace prof {

// Whether a signal handler waits for the writer (Writer::flush_for_handler).
// The thread it interrupted may hold any lock: CUPTI's or the driver's
// inside a CUDA call, a source's own in a buffer callback. When the handler
// ends the process that thread never resumes, and holds the lock for good.
// While a handler waits, nothing on the writer's path waits for another
// thread: what cannot be had at once is left (and, at the end, counted).
class HandlerWaits {
 public:
  HandlerWaits() = default;  // never (a writer with no handler to serve: unit tests)
  explicit HandlerWaits(const std::atomic<uint32_t>& waiting) : waiting_(&waiting) {}
  bool now() const { return waiting_ != nullptr && waiting_->load(std::memory_order_acquire) != 0; }

 private:
  const std::atomic<uint32_t>* waiting_ = nullptr;
};

struct ChunkSink {
  ChunkEncoder& chunk;
  StringTable& strings;
  // The open window's launches, for a source whose records carry the
  // launch's correlation id (reports_launches()).
  WindowLaunches* launches = nullptr;
  // While a window's file is completed: GPU work that started after this
  // time and was not launched in it belongs to a later window (a writer
  // that fell behind); the source keeps it for the next drain.
  uint64_t later_after_ns = UINT64_MAX;
  // Without windows: the process's launches, for the wait at exit
  // (Writer::wait_for_gpu_work). A source that reports launches tells it
  // of each record of finished work, as it tells the window's.
  WindowLaunches* in_flight = nullptr;
  // Whether the drain may wait for a lock (see HandlerWaits).
  HandlerWaits handler_waits{};
};

class ActivitySource {
 public:
  // How often deliver() looks whether a handler has come to wait meanwhile.
  static constexpr uint32_t kDeliveryRecheckUs = 2000;

  virtual ~ActivitySource() = default;
  // Asks the producer to hand over what it holds (`forced`: incomplete
  // batches too, at the end of recording) and waits until it has, or until
  // a signal handler waits for the writer: true once delivered.
  bool deliver(bool forced, HandlerWaits handler_waits) {
    const uint64_t ticket = request_delivery(forced);
    while (!wait_for_delivery(ticket, kDeliveryRecheckUs)) {
      if (handler_waits.now()) return false;
    }
    return true;
  }
  // Writer thread: turns every delivered batch into file records.
  virtual void drain(ChunkSink& sink) = 0;
  // (deliver's) Asks without waiting; returns a ticket for
  // wait_for_delivery. A source with nothing to ask (it is read directly)
  // keeps these: delivered at once.
  virtual uint64_t request_delivery(bool /*forced*/) { return 0; }
  // Waits until delivery `ticket` is done, at most `timeout_us`; whether it is.
  virtual bool wait_for_delivery(uint64_t /*ticket*/, uint32_t /*timeout_us*/) { return true; }
  // Records the producer reported lost.
  virtual uint64_t dropped() const = 0;
  // Work still running when recording ended, so without an end: not written.
  virtual uint64_t unfinished() const = 0;
  // Writer thread: work launched by calls that began at or before
  // `launched_by_ns` and not yet handed over, for a source that knows it
  // itself (event timing: operations whose end event has not completed).
  // A source that reports_launches() leaves the count to the writer, which
  // matches its records to the calls by correlation id.
  virtual uint64_t work_running(uint64_t /*launched_by_ns*/) const { return 0; }
  // Whether each record of GPU work names the call that launched it (its
  // correlation id), so that a window can wait for the records of its launches.
  virtual bool reports_launches() const { return false; }
  // Writer thread, as a new window file begins: writes again what the
  // source described once for the process (its devices), since each file
  // is read on its own.
  virtual void restate(ChunkSink&) {}
  // Writer thread, on each pass while no window is open or being completed
  // (PROF_STEP, PROF_SCHEDULE, ...): the source may hand over what it holds
  // into the sink and let go of its producer until the next window.
  virtual void between_windows(ChunkSink&) {}
};

}  // namespace prof
