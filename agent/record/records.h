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

enum class RecordType : uint16_t {
  padding = kPaddingRecord,
  nvtx_push,         // NvtxEventRecord + message
  nvtx_pop,          // NvtxEventRecord
  nvtx_range_start,  // NvtxEventRecord + message
  nvtx_range_end,    // NvtxEventRecord
  nvtx_mark,         // NvtxEventRecord + message
  thread_name,       // ThreadNameRecord + name
};

inline constexpr uint32_t kMaxPayloadString = 1024;

// The agent's own view of an NVTX domain. Handles are never freed (a range may
// still name one when nvtxDomainDestroy is called), so the writer can read the
// name from the pointer a record carries.
struct NvtxDomain {
  char name[128];
};

struct NvtxEventRecord {
  RecordHeader header;
  uint64_t time_ns;
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

template <typename Record>
const char* payload_of(const Record& record) {
  return reinterpret_cast<const char*>(&record) + sizeof(Record);
}

}  // namespace prof
