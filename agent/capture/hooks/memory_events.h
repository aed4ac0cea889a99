#pragma once
// Memory the app allocates and releases through the driver, as the hooks
// record it when CUPTI does not (hooks only): the MemoryEvent that CUPTI's
// MEMORY2 record of the call would give. What a release frees (its size,
// kind and device) is asked of the driver before the call, while the memory
// exists (cuPointerGetAttributes); an allocation's device after it. Graph
// memory nodes (their records come from cudaGraphLaunch, inside the driver)
// and arrays (a handle, not a pointer) are not seen here; nor is a
// stream-ordered call on a capturing stream (cuStreamIsCapturing, asked only
// while a capture is open), which allocates nothing until the graph runs.
#include <cstdint>

namespace prof {

class ThreadBuffer;

struct MemoryCall {
  uint8_t operation = 0;    // file::MemoryEvent::Operation; 0: the call records no memory
  uint8_t memory_kind = 0;  // file::MemoryKind
  uint32_t device_id = 0;
  uint64_t address = 0;  // a release's, known before the call
  uint64_t bytes = 0;
};

// App thread, before the driver call `callback_id` with CUPTI's `params`:
// whether it allocates or releases memory, and for a release what.
// `captures_open`: whether any stream capture may be open now.
MemoryCall memory_call_before(uint16_t callback_id, const void* params, bool captures_open);

// After the call returned success: completes an allocation from its output
// parameter and writes the record, at `end_ticks` (host ticks).
void record_memory_call(MemoryCall& call, uint16_t callback_id, const void* params, uint32_t correlation_id,
                        uint64_t end_ticks, ThreadBuffer& buffer);

}  // namespace prof
