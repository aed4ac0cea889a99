#pragma once
// A Run as Chrome trace event JSON (chrome://tracing, ui.perfetto.dev), in
// Kineto's categories and args so a torch.profiler user reads it at once:
//
//   CPU   pid = OS pid, tid = OS tid ("thread N (name)"):
//         cuda_runtime / cuda_driver  API calls (args: correlation)
//         user_annotation             NVTX push/pop ranges ("X"); start/end
//                                     ranges, which may overlap and cross
//                                     threads, as async "b"/"e" pairs
//         "C" counter                 CUDA host memory in use (pinned, pageable)
//   GPU   pid = device index (with several files: one per process and
//         device), tid = stream id ("stream N"):
//         kernel       args: device, stream, correlation, registers per
//                      thread, shared memory, grid, block, blocks/warps per SM
//         gpu_memcpy   args: device, stream, correlation, bytes, kind,
//                      memory bandwidth (GB/s)
//         gpu_memset   args: device, stream, correlation, bytes, bandwidth
//         gpu_user_annotation  each push/pop range, on each stream that ran
//                      work launched inside it, spanning that work
//         "C" counter  device memory in use
//   ac2g  flow arrows: "s" on the launching API call, "f" with "bp":"e" on
//         the GPU work, id = correlation id (with several files, process
//         index << 32 | correlation id, as correlation ids are per process)
//   "M"   process_name, process_labels, process_sort_index, thread_name,
//         thread_sort_index
//
// ts and dur are microseconds with three decimals (exact nanoseconds),
// from the run's first event; baseTimeNanoseconds is that instant on the
// wall clock when the capture has a clock anchor. Files of several
// processes are on one timeline already (RunBuilder aligns the clocks).
//
// Streamed: events go to the sink in start-time order as they are made;
// only indices and the annotation spans are held, never the JSON text.
#include <cstdint>
#include <string>
#include <string_view>

#include "model/run.h"
#include "views/frame_names.h"

namespace prof::analyzer {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void write(std::string_view bytes) = 0;
};

struct ChromeTraceOptions {
  std::string trace_name;   // "trace_name"
  uint64_t max_events = 0;  // stop after this many events (metadata not counted); 0: no limit
  // Names the frames of the "stack" arg API calls carry (root first, the
  // CUDA library and agent frames at the leaf left out, as `stacks` does);
  // nullptr: no stack args.
  const FrameNamer* namer = nullptr;
};

struct ChromeTraceStats {
  uint64_t events = 0;          // written, metadata not counted
  uint64_t events_left_out = 0;   // over max_events
  uint64_t bytes = 0;           // of JSON text (before any compression)
};

ChromeTraceStats write_chrome_trace(const Run& run, const ChromeTraceOptions& options, TraceSink& sink);

}  // namespace prof::analyzer
