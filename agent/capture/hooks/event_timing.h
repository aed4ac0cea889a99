#pragma once
// GPU time without CUPTI (PROF_GPU_TIMING=events): the hooks put a pooled
// CUDA event before and after each launch, copy and memset on the stream the
// app gave, and the writer thread reads them back once the end event has
// completed, mapping them to the host clock through an anchor event of its
// own. The app's threads never wait on these events; the app's streams carry
// two extra event records per operation and nothing else.
//
// What it cannot do: work inside stream capture or launched from a graph is
// not timed, and the start event completes when the stream reaches it, so on
// an idle stream a duration includes the launch latency (the time from the
// start event to the work starting). On an H100 the pair also holds the GPU's
// handling of the launch: +3.2 us a kernel when queued, +6.7 to 9 us on an
// idle stream, against CUPTI's +0.93 us (README, "How CUDA is captured").
#include <cstdint>

#include "record/activity_source.h"

namespace prof {

struct ApiCallRecord;

// One operation being timed; owned by its thread's ring.
struct TimedOperation;

class EventTiming final : public ActivitySource {
 public:
  // App thread, before the driver call that enqueues the work. `work` holds
  // the call's arguments (read_call_args). nullptr: not timed.
  static TimedOperation* before(const ApiCallRecord& work, bool per_thread_stream);
  // Right after the call returned, before any more of the agent's own work
  // (the kernel's name lookup): a short kernel's end event would otherwise
  // complete only when the agent records it. False: the operation is
  // abandoned (the call failed, or the record did), and `after` is not called.
  static bool record_end(TimedOperation* operation, bool succeeded);
  // Then: `call_start_ns` and `kernel_name` as the launch record has them.
  static void after(TimedOperation* operation, uint32_t correlation_id, uint64_t call_start_ns,
                    const char* kernel_name);
  // Streams under capture are not timed (the events would become part of
  // the graph); the hooks of the capture calls keep count.
  static void capture_began();
  static void capture_ended();
  // In a forked child: the parent's operations, events and contexts are
  // not the child's (CUDA does not survive fork); they are dropped unread.
  static void forget_after_fork();

  // App thread, before a call that destroys a context (cudaDeviceReset,
  // cuCtxDestroy, a primary context's reset or release): the events of the
  // operations still to be read die with it, so the writer's next drain
  // waits for each of them. False when there is nothing to read (the
  // caller need not wait for the writer).
  static bool synchronize_at_next_drain();

  static EventTiming& instance();

  // Nothing to ask (ActivitySource's request_delivery): the writer reads
  // the events itself.
  void drain(ChunkSink& sink) override;
  uint64_t dropped() const override;
  // Operations the writer could not read (their context was destroyed).
  uint64_t unfinished() const override { return unfinished_; }
  uint64_t work_running(uint64_t launched_by_ns) const override;

 private:
  uint64_t unfinished_ = 0;
};

}  // namespace prof
