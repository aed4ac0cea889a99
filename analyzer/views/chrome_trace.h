#pragma once
// A Run as Chrome trace event JSON (chrome://tracing, ui.perfetto.dev), in
// Kineto's categories, args and meanings, so that the tools that read
// torch.profiler traces (HTA, TensorBoard's plugin, speedscope, Perfetto)
// read it as one:
//
//   CPU   pid = OS pid, tid = OS tid ("thread N (name)"):
//         cuda_runtime        runtime calls (args: cbid, correlation)
//         cuda_driver         driver calls made on their own (cbid,
//                             correlation), as Kineto's cuLaunchKernel
//         cuda_driver_nested  driver calls made inside a runtime call: they
//                             share its correlation id, so they name it as
//                             "runtime correlation", which no reader joins on
//         user_annotation     NVTX push/pop ranges ("X", args: External id);
//                             start/end ranges, which may overlap and cross
//                             threads, as async "b"/"e" pairs
//         ProfilerStep#N      user_annotation of each step --step found
//                             (args: step rule), on the thread of the
//                             step's first event, where the process has no
//                             ProfilerStep# ranges of its own; with no steps
//                             at all, one ProfilerStep#0 over the process's
//                             CPU events (args: steps "none"), which is
//                             the step TensorBoard's plugin makes of a
//                             torch trace without steps
//         "C" counter         CUDA host memory in use (pinned, pageable)
//         "i" [memory]        each allocation and release (Kineto's args:
//                             Device Type, Device Id (-1 for host
//                             memory), Addr, Bytes, Total Allocated, Total
//                             Reserved)
//   GPU   pid = device index (with several files: one per process and
//         device), tid = stream id ("stream N"):
//         kernel       args: queued, device, context, stream, correlation,
//                      registers per thread, shared memory, blocks/warps per
//                      SM, grid, block, est. achieved occupancy %, graph id,
//                      graph node id
//         gpu_memcpy   args: device, context, stream, correlation, bytes,
//                      memory bandwidth (GB/s), kind, graph id
//         gpu_memset   the same without kind
//         gpu_user_annotation  one per operation launched inside a push/pop
//                      range, named after the innermost range (none for a
//                      ProfilerStep#N), spanning the operation 1 ns
//                      earlier and 2 ns later (Kineto's padding) where the
//                      stream's neighbouring work leaves room, args:
//                      External id only
//         cuda_sync    CUPTI's synchronization records, on a row of their
//                      own ("stream N (sync)", "Device N" when no stream
//                      applies); args: cuda_sync_kind, wait_on_cuda_event_id
//                      (event syncs), stream (-1: none), correlation,
//                      device, context
//         "C" counter  device memory in use (cat "memory", as the host's)
//   ac2g  flow arrows: one "s" on each API call that launched work, an "f"
//         with "bp":"e" on each operation it launched, id = correlation id
//         (with several files, process index << 32 | correlation id)
//   "M"   process_name, process_labels, process_sort_index, thread_name,
//         thread_sort_index
//
// Top level: schemaVersion, distributed_info ("rank": N as Kineto spaces it,
// which HTA's pattern needs; rank 0 of 1 when the process had none),
// device_properties (Kineto's keys), displayTimeUnit, baseTimeNanoseconds,
// trace_name.
//
// ts are microseconds with three decimals (exact nanoseconds), from the
// run's first event; baseTimeNanoseconds is that instant on the wall clock
// when the capture has a clock anchor. Files of several processes are on
// one timeline already (RunBuilder aligns the clocks). Readers add ts and
// dur as doubles, so dur is written such that ts + dur is exactly the
// double of the event's end: three decimals where that sum comes out
// right, else the nearest double that does, in its shortest digits
// (1.3279999999999745). An event that ends with its parent or where the
// next one starts then reads so. displayTimeUnit is "ns" (Kineto: "ms"),
// which makes the Catapult viewer nest at nanoseconds, not microseconds.
//
// Streamed: events go to the sink in start-time order as they are made;
// only indices and the annotation spans are held, never the JSON text but
// for the blocks of events in flight on the formatting threads (jobs).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/run.h"
#include "views/frame_names.h"

namespace prof::analyzer {

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void write(std::string_view bytes) = 0;
};

// A step found by `--step` (window/steps.h), of process `process` of the
// Run given to write_chrome_trace.
struct TraceStep {
  uint32_t process = 0;
  int64_t index = 0;
  uint64_t start_ns = 0;  // [start_ns, end_ns)
  uint64_t end_ns = 0;
};

struct ChromeTraceOptions {
  std::string trace_name;   // "trace_name"
  uint64_t max_events = 0;  // stop after this many events (metadata not counted); 0: no limit
  // Names the frames of the "stack" arg API calls carry (root first, the
  // CUDA library and agent frames at the leaf left out, as `stacks` does);
  // nullptr: no stack args.
  const FrameNamer* namer = nullptr;
  // Steps to write as ProfilerStep#N CPU annotations (TensorBoard's plugin
  // finds steps by that name), in processes that have no ProfilerStep#
  // ranges of their own; `step_rule` is the rule that found them.
  std::vector<TraceStep> steps;
  std::string step_rule;
  // Driver calls made inside a runtime call (cuLaunchKernel in
  // cudaLaunchKernel) as events of their own ("cuda_driver_nested"). Off:
  // left out, as Kineto records runtime calls only; readers that take every
  // event named like a launch for one (HTA's get_aten_op_kernels_and_delay)
  // then find each launch's GPU work.
  bool driver_calls = false;
  // Cores to format events on (model/cores.h: 0 every core), as
  // PROFANALYZE_JOBS gives them; the file is the same byte for byte on any
  // number. With one, formatting stays on the calling thread.
  unsigned jobs = 1;
  // Events per block handed to a formatting thread: about 2 MB of text at
  // 4096, two blocks per core in flight. Small in tests, so that a few
  // events cross blocks.
  size_t items_per_block = 4096;
};

struct ChromeTraceStats {
  uint64_t events = 0;          // written, metadata not counted (what --max-events counts)
  uint64_t events_in_file = 0;  // every entry of traceEvents: metadata and flow events too
  uint64_t events_left_out = 0;   // over max_events
  uint64_t bytes = 0;           // of JSON text (before any compression)
};

ChromeTraceStats write_chrome_trace(const Run& run, const ChromeTraceOptions& options, TraceSink& sink);

}  // namespace prof::analyzer
