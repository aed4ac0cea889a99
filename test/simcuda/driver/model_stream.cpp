// Streams, events, stream capture and the scheduler.
#include <algorithm>

#include <cupti_activity.h>
#include <cupti_callbacks.h>

#include "api_trace.h"
#include "device_executor.h"
#include "model_internal.h"
#include "sim_clock.h"
#include "sim_config.h"

namespace simcuda {
namespace {

bool is_blocking(const CUstream_st* stream) { return (stream->flags & CU_STREAM_NON_BLOCKING) == 0; }

CUresult check_event_locked(CUevent event) {
  return event != nullptr && model().events.count(event) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// Completion time of everything enqueued so far on `stream`: what a sync waits for.
uint64_t stream_completion_locked(const CUstream_st* stream) { return stream->ready_at_ns; }

}  // namespace

CUstream_st* new_stream_locked(CUctx_st* context, unsigned flags, int priority) {
  Model& m = model();
  auto stream = std::make_unique<CUstream_st>();
  stream->id = m.next_stream_id++;
  stream->context = context;
  stream->flags = flags;
  stream->priority = priority;
  stream->is_legacy_default = false;
  stream->is_per_thread_default = false;
  CUstream_st* raw = stream.get();
  m.all_streams.push_back(std::move(stream));
  m.streams.insert(raw);
  context->streams.push_back(raw);
  return raw;
}

CUstream_st* resolve_stream_locked(CUstream handle, bool per_thread, CUresult* error) {
  Model& m = model();
  *error = CUDA_SUCCESS;
  if (!m.initialized) {
    *error = CUDA_ERROR_NOT_INITIALIZED;
    return nullptr;
  }
  if (handle == nullptr || handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD) {
    CUctx_st* context = current_context_locked();
    if (context == nullptr) {
      *error = CUDA_ERROR_INVALID_CONTEXT;
      return nullptr;
    }
    bool want_per_thread = handle == CU_STREAM_PER_THREAD || (handle == nullptr && per_thread);
    if (!want_per_thread) return context->legacy_stream;
    uint32_t tid = this_thread_tid();
    auto found = context->per_thread_streams.find(tid);
    if (found != context->per_thread_streams.end()) return found->second;
    // A per-thread default stream is an ordinary blocking stream created on first use.
    CUstream_st* stream = new_stream_locked(context, 0, 0);
    stream->is_per_thread_default = true;
    context->per_thread_streams[tid] = stream;
    return stream;
  }
  if (!m.streams.count(handle)) {
    *error = CUDA_ERROR_INVALID_HANDLE;
    return nullptr;
  }
  return handle;
}

CUstream_st* work_stream_locked(CUstream handle, bool per_thread, CUresult* error) {
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, error);
  if (stream != nullptr && stream->context->sticky_error != CUDA_SUCCESS) {
    *error = stream->context->sticky_error;
    return nullptr;
  }
  return stream;
}

uint64_t stream_frontier_locked(const CUstream_st* stream) {
  uint64_t frontier = stream->ready_at_ns;
  const CUctx_st* context = stream->context;
  if (stream->is_legacy_default) {
    // The legacy default stream waits for all work in blocking streams of its context.
    for (const CUstream_st* other : context->streams) {
      if (is_blocking(other)) frontier = std::max(frontier, other->ready_at_ns);
    }
  } else if (is_blocking(stream)) {
    // ... and work in a blocking stream waits for the legacy default stream.
    frontier = std::max(frontier, context->legacy_stream->ready_at_ns);
  }
  return frontier;
}

uint64_t context_frontier_locked(const CUctx_st* context) {
  uint64_t frontier = 0;
  for (const CUstream_st* stream : context->streams) {
    frontier = std::max(frontier, stream->ready_at_ns);
  }
  return frontier;
}

// A GPU stream holds a bounded number of pending operations; an enqueue beyond
// that waits for the oldest to complete, so a host far ahead of the device neither
// runs further ahead nor piles up records of work not yet done.
void wait_for_queue_slot_locked(Lock& lock, CUstream_st* stream) {
  for (;;) {
    std::deque<uint64_t>& pending = stream->pending_end_ns;
    uint64_t now = now_ns();
    while (!pending.empty() && pending.front() <= now) pending.pop_front();
    if (pending.size() < config().queue_depth) return;
    uint64_t oldest_end = pending.front();
    lock.unlock();
    sleep_until_ns(oldest_end);
    lock.lock();
  }
}

void place_operation_locked(CUstream_st* stream, SimOperation& op, uint64_t queued_ns, uint64_t start_ns,
                            uint64_t duration_ns, bool faults, std::function<void()> move_data) {
  op.device = static_cast<uint32_t>(stream->context->device);
  op.context_id = stream->context->id;
  op.stream_id = stream->id;
  op.correlation_id = op.correlation_id ? op.correlation_id : current_correlation_id();
  op.queued_ns = queued_ns;
  op.start_ns = start_ns;
  op.end_ns = op.start_ns + duration_ns;
  // Kernels are not executed; copies and memsets move their bytes when they run.
  if (move_data) run_at(op.start_ns, std::move(move_data));
  if (faults && stream->context->sticky_error == CUDA_SUCCESS) {
    stream->context->sticky_error = CUDA_ERROR_ILLEGAL_ADDRESS;
  }
}

bool schedule_locked(Lock& lock, CUstream_st* stream, SimOperation& op, uint64_t duration_ns, bool faults,
                     std::function<void()> move_data) {
  if (stream->capture != nullptr) {
    op.device = static_cast<uint32_t>(stream->context->device);
    op.context_id = stream->context->id;
    op.stream_id = stream->id;
    GraphNode node;
    node.op = op;
    node.duration_ns = duration_ns;
    node.faults = faults;
    node.move_data = std::move(move_data);
    capture_append_locked(stream, std::move(node));
    return false;
  }
  wait_for_queue_slot_locked(lock, stream);
  uint64_t now = now_ns();
  uint64_t start = std::max(now + config().launch_latency_ns, stream_frontier_locked(stream));
  place_operation_locked(stream, op, now, start, duration_ns, faults, std::move(move_data));
  stream->ready_at_ns = op.end_ns;
  stream->pending_end_ns.push_back(op.end_ns);
  return true;
}

CUresult stream_create(CUstream* out, unsigned flags, int priority) {
  if (out == nullptr || (flags & ~static_cast<unsigned>(CU_STREAM_NON_BLOCKING)) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUstream_st* created;
  CUctx_st* context;
  {
    Model& m = model();
    Lock lock(m.mutex);
    if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
    context = current_context_locked();
    if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
    // Priorities are clamped to the advertised range [-5, 0] like the driver does.
    created = new_stream_locked(context, flags, std::clamp(priority, -5, 0));
    *out = created;
  }
  report_resource(CUPTI_CBID_RESOURCE_STREAM_CREATED, context, created);
  return CUDA_SUCCESS;
}

CUresult stream_destroy(CUstream stream) {
  Model& m = model();
  {
    Lock lock(m.mutex);
    if (stream == nullptr || !m.streams.count(stream) || stream->is_legacy_default ||
        stream->is_per_thread_default) {
      return CUDA_ERROR_INVALID_HANDLE;
    }
  }
  report_resource(CUPTI_CBID_RESOURCE_STREAM_DESTROY_STARTING, stream->context, stream);
  Lock lock(m.mutex);
  if (!m.streams.count(stream)) return CUDA_ERROR_INVALID_HANDLE;
  // Pending work still completes (the driver defers the release); the blocking
  // legacy stream must keep waiting for it, so its frontier is folded in.
  CUstream_st* legacy = stream->context->legacy_stream;
  if (is_blocking(stream)) legacy->ready_at_ns = std::max(legacy->ready_at_ns, stream->ready_at_ns);
  auto& list = stream->context->streams;
  list.erase(std::remove(list.begin(), list.end(), stream), list.end());
  m.streams.erase(stream);
  return CUDA_SUCCESS;
}

CUresult stream_synchronize(CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  if (stream->capture != nullptr) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  CUctx_st* context = stream->context;
  uint64_t start = now_ns();
  uint64_t end = stream_completion_locked(stream);
  uint32_t context_id = context->id;
  uint32_t stream_id = stream->id;
  wait_until(lock, end);
  CUresult sticky = context->sticky_error;
  lock.unlock();
  report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, context_id, stream_id,
              CUPTI_SYNCHRONIZATION_INVALID_VALUE, start, now_ns());
  return sticky;
}

CUresult stream_query(CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = work_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  return device_done_through(stream_completion_locked(stream)) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult stream_wait_event(CUstream handle, CUevent event, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  if (CUresult bad = check_event_locked(event)) return bad;
  if (event->capture != nullptr) {
    // Fork: a stream that waits on an event of a capture joins that capture.
    // Either way its next captured node depends on the nodes before the record.
    if (stream->capture == nullptr) {
      stream->capture = event->capture;
      stream->capture_tail.clear();
    }
    for (uint64_t id : event->capture_tail) {
      if (std::find(stream->capture_tail.begin(), stream->capture_tail.end(), id) == stream->capture_tail.end()) {
        stream->capture_tail.push_back(id);
      }
    }
    return CUDA_SUCCESS;
  }
  // An event that was never recorded is complete; waiting on it is a no-op.
  if (event->recorded) stream->ready_at_ns = std::max(stream->ready_at_ns, event->complete_at_ns);
  uint32_t context_id = stream->context->id, stream_id = stream->id, event_id = event->id;
  lock.unlock();
  uint64_t now = now_ns();
  report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, context_id, stream_id,
              event_id, now, now);
  return CUDA_SUCCESS;
}

CUresult stream_flags(CUstream handle, unsigned* flags, bool per_thread) {
  if (flags == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  *flags = stream->flags;
  return CUDA_SUCCESS;
}

CUresult stream_priority(CUstream handle, int* priority, bool per_thread) {
  if (priority == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  *priority = stream->priority;
  return CUDA_SUCCESS;
}

CUresult stream_id(CUstream handle, unsigned long long* id, bool per_thread) {
  if (id == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  *id = stream->id;
  return CUDA_SUCCESS;
}

CUresult stream_id_in_context(CUcontext context, CUstream handle, uint32_t* id) {
  Model& m = model();
  Lock lock(m.mutex);
  if (handle == nullptr) {
    if (context == nullptr) context = current_context_locked();
    if (context == nullptr || !m.contexts.count(context)) return CUDA_ERROR_INVALID_CONTEXT;
    *id = context->legacy_stream->id;
    return CUDA_SUCCESS;
  }
  if (!m.streams.count(handle)) return CUDA_ERROR_INVALID_HANDLE;
  *id = handle->id;
  return CUDA_SUCCESS;
}

CUresult stream_begin_capture(CUstream handle, CUstreamCaptureMode, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  if (stream->is_legacy_default) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (stream->capture != nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  auto graph = std::make_unique<CUgraph_st>();
  graph->graph.id = m.next_graph_id++;
  stream->capture = &graph->graph;
  stream->capture_tail.clear();
  m.graphs.insert(graph.get());
  m.all_graphs.push_back(std::move(graph));
  return CUDA_SUCCESS;
}

CUresult stream_end_capture(CUstream handle, CUgraph* out, bool per_thread) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  if (stream->capture == nullptr) return CUDA_ERROR_ILLEGAL_STATE;
  for (CUgraph_st* graph : m.graphs) {
    if (&graph->graph == stream->capture) *out = graph;
  }
  // Streams that joined through an event leave the capture with it.
  Graph* captured = stream->capture;
  for (CUstream_st* other : m.streams) {
    if (other->capture == captured) {
      other->capture = nullptr;
      other->capture_tail.clear();
    }
  }
  for (CUevent_st* event : m.events) {
    if (event->capture == captured) {
      event->capture = nullptr;
      event->capture_tail.clear();
    }
  }
  return CUDA_SUCCESS;
}

CUresult stream_is_capturing(CUstream handle, CUstreamCaptureStatus* status, bool per_thread) {
  if (status == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  *status = stream->capture ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult event_create(CUevent* out, unsigned flags) {
  constexpr unsigned known = CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS;
  if (out == nullptr || (flags & ~known) != 0) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  auto event = std::make_unique<CUevent_st>();
  event->id = m.next_event_id++;
  event->context = context;
  event->flags = flags;
  *out = event.get();
  m.events.insert(event.get());
  m.all_events.push_back(std::move(event));
  return CUDA_SUCCESS;
}

CUresult event_destroy(CUevent event) {
  Model& m = model();
  Lock lock(m.mutex);
  if (CUresult bad = check_event_locked(event)) return bad;
  m.events.erase(event);
  return CUDA_SUCCESS;
}

CUresult event_record(CUevent event, CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  if (CUresult bad = check_event_locked(event)) return bad;
  CUresult error;
  CUstream_st* stream = resolve_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  // Inside a capture an event records the stream's last captured nodes: a
  // stream that waits on it joins the capture after them.
  event->capture = stream->capture;
  event->capture_tail = stream->capture_tail;
  if (stream->capture != nullptr) return CUDA_SUCCESS;
  event->recorded = true;
  event->complete_at_ns = std::max(now_ns(), stream_frontier_locked(stream));
  // The event is a zero-length operation in stream order.
  stream->ready_at_ns = std::max(stream->ready_at_ns, event->complete_at_ns);
  return CUDA_SUCCESS;
}

CUresult event_synchronize(CUevent event) {
  Model& m = model();
  Lock lock(m.mutex);
  if (CUresult bad = check_event_locked(event)) return bad;
  uint64_t start = now_ns();
  uint64_t end = event->recorded ? event->complete_at_ns : start;
  uint32_t context_id = event->context->id, event_id = event->id;
  wait_until(lock, end);
  lock.unlock();
  report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, context_id,
              CUPTI_SYNCHRONIZATION_INVALID_VALUE, event_id, start, now_ns());
  return CUDA_SUCCESS;
}

CUresult event_query(CUevent event) {
  Model& m = model();
  Lock lock(m.mutex);
  if (CUresult bad = check_event_locked(event)) return bad;
  if (!event->recorded) return CUDA_SUCCESS;
  return device_done_through(event->complete_at_ns) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult event_elapsed_ms(float* ms, CUevent start, CUevent end) {
  if (ms == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (check_event_locked(start) || check_event_locked(end)) return CUDA_ERROR_INVALID_HANDLE;
  if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  if (!start->recorded || !end->recorded) return CUDA_ERROR_INVALID_HANDLE;
  uint64_t now = now_ns();
  if (now < start->complete_at_ns || now < end->complete_at_ns) return CUDA_ERROR_NOT_READY;
  double delta = static_cast<double>(end->complete_at_ns) - static_cast<double>(start->complete_at_ns);
  *ms = static_cast<float>(delta / 1e6);
  return CUDA_SUCCESS;
}

}  // namespace simcuda

namespace simcuda {

CUresult enqueue_host_function(CUstream handle, bool per_thread, std::function<void()> call) {
  if (!call) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUresult error;
  CUstream_st* stream = work_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  SimOperation op{};
  op.kind = SIM_OP_HOST_FUNCTION;
  op.name = "host_function";
  op.is_async = 1;
  if (!schedule_locked(lock, stream, op, config().host_function_ns, false, std::move(call))) return CUDA_SUCCESS;
  lock.unlock();
  report_operation(op);
  return CUDA_SUCCESS;
}

}  // namespace simcuda
