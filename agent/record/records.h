#pragma once
// The fixed-size records app threads put into their ThreadBuffer. Each is a
// POD whose size is pinned by a static_assert: a change in size is a change in
// the cost of every recorded event, and should be a conscious one.
//
// Strings captured from the app (NVTX messages) follow the fixed part as
// payload, truncated to kMaxPayloadString bytes; static strings (CUDA function
// names) travel as pointers and are interned by the writer.
#include <cstdint>

#include "record/thread_buffer.h"

namespace prof {

// The NVTX types are consecutive, from nvtx_push to nvtx_mark
// (Translator::Lookahead::worth).
enum class RecordType : uint16_t {
  padding = kPaddingRecord,
  nvtx_push,         // NvtxEventRecord + message
  nvtx_pop,          // NvtxEventRecord
  nvtx_range_start,  // NvtxEventRecord + message
  nvtx_range_end,    // NvtxEventRecord
  nvtx_mark,         // NvtxEventRecord + message
  thread_name,       // ThreadNameRecord + name
  api_call,          // ApiCallRecord + stack frames + kernel name
  ring_wait,         // RingWaitRecord
  tensor_memory,     // TensorMemoryRecord
  memory_event,      // MemoryEventRecord
};

inline constexpr uint32_t kMaxPayloadString = 1024;

// The agent's own view of an NVTX domain. Handles are never freed (a range may
// still name one when nvtxDomainDestroy is called), so the writer can read the
// name from the pointer a record carries.
struct NvtxDomain {
  char name[128];
};

// Times in host ticks (common/host_clock.h) are read on the app thread's
// hot path; the writer turns them into CLOCK_MONOTONIC ns. Times in ns come
// from elsewhere (a wait's own clock, Python's time.monotonic_ns()).
struct NvtxEventRecord {
  RecordHeader header;
  uint64_t time_ticks;
  const NvtxDomain* domain;  // nullptr: the default domain
  uint64_t range_id;         // start/end ranges; 0 for push/pop and marks
  uint32_t color_argb;
  uint32_t category;
  // message bytes follow (header.payload_bytes of them, not NUL-terminated)
};
static_assert(sizeof(NvtxEventRecord) == 40);

struct ThreadNameRecord {
  RecordHeader header;
  uint32_t tid;  // the named thread, which need not be the recording thread
  uint32_t unused;
  // name bytes follow
};
static_assert(sizeof(ThreadNameRecord) == 16);

// A wait of the recording thread for room in its ring (PROF_RING_WAIT_MS):
// the agent's own time on an app thread, an Overhead in the file.
struct RingWaitRecord {
  RecordHeader header;
  uint64_t start_ns;
  uint64_t end_ns;
};
static_assert(sizeof(RingWaitRecord) == 24);
inline constexpr char kRingWaitName[] = "libprof ring wait";

// The longest kernel name an ApiCallRecord carries (longer ones are cut):
// C++ templates' mangled names run to a few hundred bytes.
constexpr uint32_t kMaxKernelName = 512;

// A block of a framework's caching allocator handed to a tensor or taken
// back (libprof_torch_memory, from the Python bootstrap), followed by the
// Python stack of the call that allocated or freed it.
struct TensorMemoryRecord {
  RecordHeader header;
  uint64_t time_ns;
  uint64_t address;
  uint64_t bytes;
  uint64_t stream;
  uint64_t total_allocated;
  uint64_t total_reserved;
  int32_t device;  // -1: host memory
  uint16_t action;  // file::TensorMemoryEvent::Action
  uint16_t python_depth;  // PythonFrames (leaf first) follow
};
static_assert(sizeof(TensorMemoryRecord) == 64);

// CUDA memory allocated or released, as the hooks see it without CUPTI
// (capture/hooks/memory_events.h): CUPTI's MEMORY2 record, from the call.
struct MemoryEventRecord {
  RecordHeader header;
  uint64_t time_ticks;  // when the call returned
  uint64_t address;
  uint64_t bytes;
  uint32_t correlation_id;  // the hooks' id of the outermost call
  uint32_t device_id;
  uint8_t operation;    // file::MemoryEvent::Operation
  uint8_t memory_kind;  // file::MemoryKind
  uint16_t unused16;
  uint32_t unused32;
};
static_assert(sizeof(MemoryEventRecord) == 48);

// What an API call did, beyond its name and time (from CUPTI's params).
// capture_begin/capture_end: a stream capture began or ended; the work
// launched in between is captured into a graph, not run, and no GPU record
// comes of it (the writer's wait at exit must not wait for one).
enum class ApiCallArgs : uint8_t { none, launch, copy, memset, capture_begin, capture_end };

// A CUDA runtime or driver call, written when it returns. Followed by
// `stack_depth` return addresses (leaf first), `python_depth` PythonFrames
// (leaf first), then the launched kernel's name (header.payload_bytes covers
// all three).
struct ApiCallRecord {
  RecordHeader header;
  uint64_t start_ticks;
  uint64_t end_ticks;
  const char* function_name;  // CUPTI's, static for the life of the process
  uint32_t correlation_id;
  int32_t return_code;
  uint8_t domain;   // ApiDomain
  uint8_t backend;  // file::CaptureBackend: which interception saw the call
  uint16_t callback_id;
  ApiCallArgs args;
  uint8_t copy_kind;  // file::CopyKind, for copies
  uint16_t stack_depth;
  uint64_t stream;
  uint64_t bytes;  // copies and memsets
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes;
  uint16_t kernel_name_bytes;  // at most kMaxKernelName
  uint16_t python_depth;
};
static_assert(sizeof(ApiCallRecord) == 96);

template <typename Record>
const char* payload_of(const Record& record) {
  return reinterpret_cast<const char*>(&record) + sizeof(Record);
}

}  // namespace prof
