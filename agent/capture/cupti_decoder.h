#pragma once
// Turns CUPTI activity records into file records. Apart from CUPTI's buffer
// handling (cupti_activity.h), so that it runs on buffers a test builds: it
// reads CUPTI's structs and calls nothing in libcupti.
#include <cupti.h>

#include <cstdint>
#include <atomic>
#include <mutex>
#include <vector>

#include "encode/file_records.h"
#include "record/activity_source.h"

namespace prof {

class CuptiDecoder {
 public:
  // Writer thread: one record into the sink's chunk, or none (a record that
  // is outside every capture window, unfinished, or of a kind not recorded).
  void decode(const CUpti_Activity* record, ChunkSink& sink);

  // Capture windows (PROF_CAPTURE=cudaProfilerApi): records whose start is
  // outside every window are not written. Without windows all are kept.
  // Any thread.
  void open_window(uint64_t start_ns);
  void close_window(uint64_t end_ns);
  void use_windows() { windowed_.store(true, std::memory_order_release); }

  // Records CUPTI handed over unfinished (end = 0): counted, not written.
  uint64_t unfinished() const { return incomplete_; }

  // Records held back for a later window (ChunkSink::later_after_ns),
  // decoded again by decode_held() at the next drain.
  void decode_held(ChunkSink& sink);

  // The devices decoded so far, into the sink again: CUPTI describes each
  // device once per process, and every window file needs them.
  void restate(ChunkSink& sink) const;

 private:
  struct Window {
    uint64_t start_ns;
    uint64_t end_ns;  // UINT64_MAX while open
  };

  // Inline: every GPU record asks, and without windows (most runs) the
  // answer is one load (out of line it was a call and a frame, ~15
  // instructions per kernel).
  bool in_window(uint64_t start_ns) {
    return !windowed_.load(std::memory_order_acquire) || in_some_window(start_ns);
  }
  bool in_some_window(uint64_t start_ns);
  // Whether a GPU record with these times goes into the file.
  // `origin`: where the call that launched it was made. Work launched inside
  // the open window is kept even when it started after the window's end;
  // work launched before it, never.
  bool keep(uint64_t start_ns, uint64_t end_ns, WindowLaunches::Origin origin = WindowLaunches::Origin::unknown);
  // Holds a copy of the record when it belongs to a later window.
  template <typename Record>
  bool held_for_later(const Record& record, WindowLaunches::Origin origin, const ChunkSink& sink);
  std::vector<std::vector<uint8_t>> held_;  // writer thread

  uint64_t incomplete_ = 0;  // writer thread
  std::vector<file::Device> devices_;  // writer thread
  std::atomic<bool> windowed_{false};
  std::mutex windows_mutex_;
  std::vector<Window> windows_;
};

}  // namespace prof
