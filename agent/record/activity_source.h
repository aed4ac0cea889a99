#pragma once
// GPU activity arrives in batches from outside the app threads (CUPTI's
// completed buffers). The writer drains such a source like the thread
// buffers; the source decides how its batches become file records.
#include <cstdint>

#include "record/string_table.h"
#include "record/window_launches.h"

namespace prof {

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
};

class ActivitySource {
 public:
  virtual ~ActivitySource() = default;
  // Asks the producer to hand over what it holds; `forced` also hands over
  // incomplete batches (the end of recording). Called without agent locks.
  virtual void request_delivery(bool forced) = 0;
  // Writer thread: turns every delivered batch into file records.
  virtual void drain(ChunkSink& sink) = 0;
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
