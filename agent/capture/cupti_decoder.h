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
  // Holds a copy of the record when it belongs to a later window: it started
  // after sink.later_after_ns and no call of the open window awaits it.
  // Decided before its arrival is counted (launched()): a record that came
  // before its call was drained, counted then as early, found its call no
  // more when decoded again, and was judged by its start alone (a window's
  // last kernel, launched inside it and started after its end, was lost).
  template <typename Record>
  bool held_for_later(const Record& record, const ChunkSink& sink);
  // Whether a record of work its call launched (a kernel, copy or memset)
  // is written now: not held for a later window, its launch counted as
  // arrived, and kept by its window.
  template <typename Record>
  bool written_now(const Record& record, ChunkSink& sink);
  std::vector<std::vector<uint8_t>> held_;  // writer thread

  // A kernel record that repeats the one before it but for its times and
  // correlation id (a loop's launches: the same kernel, device, stream and
  // dimensions) is written as the kept kernel's bytes around its own
  // (ChunkEncoder::add_kernel_repeat, KeptKernelBytes): 17 fields read and
  // encoded again became a compare of ten words and three copies, ~40 of
  // decode's ~310 instructions per kernel (callgrind, tiny_kernels). As with
  // API calls (Translator::KeptCall): the previous kernel's name address is
  // noted on every record, and a kernel is kept (its fields here, its bytes
  // in the encoder) only for the second of a run with the same address, so
  // that kernels that alternate pay one compare.
  struct KeptKernel {
    const ChunkEncoder* chunk = nullptr;  // which holds its bytes; null: none yet
    // What its file record is made of but for times and correlation id:
    // the CUPTI record's fields as they lie there, and the name's id. The
    // same id from the same string table is the same text (intern_by_address
    // checks the text), and from another table (a window's file, after the
    // Translator was made anew) the same bytes on the wire, the text defined
    // in that file by the lookup.
    struct Shape {
      uint64_t launch[6];  // deviceId to localMemoryPerThread
      uint64_t graph_node_id;
      uint32_t graph_id;
      uint16_t registers_per_thread;
    } shape{};
    uint64_t name_id = 0;
  };
  KeptKernel kept_kernel_;  // writer thread
  const char* previous_kernel_name_ = nullptr;
  [[gnu::always_inline]] inline void decode_kernel(const CUpti_ActivityKernel10& k, ChunkSink& sink);
  // Every kind but kernels (noinline: apart, its frame is not set up for them).
  [[gnu::noinline]] void decode_other(const CUpti_Activity* activity, ChunkSink& sink);
  bool repeats_kept_kernel(const CUpti_ActivityKernel10& k, uint64_t name_id, const ChunkEncoder& chunk) const;
  [[gnu::noinline]] void add_kept_kernel(const CUpti_ActivityKernel10& k, uint64_t name_id, ChunkEncoder& chunk);

  uint64_t incomplete_ = 0;  // writer thread
  std::vector<file::Device> devices_;  // writer thread
  std::atomic<bool> windowed_{false};
  std::mutex windows_mutex_;
  std::vector<Window> windows_;
};

}  // namespace prof
