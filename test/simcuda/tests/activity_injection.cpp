// A minimal CUPTI activity tool loaded through CUDA_INJECTION64_PATH, as
// profilers are: it turns on kernel, copy and API records at the first cuInit
// and flushes them from an exit handler registered before it did (so that the
// handler runs after CUPTI's own static objects would be destroyed).
// Records are counted and dropped. check_lifecycle.py runs apps under it.
#include <cupti.h>

#include <cstdlib>
#include <initializer_list>

namespace {

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
  }
  std::free(buffer);
}

void flush_at_exit() { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  std::atexit(flush_at_exit);
  cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                  CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER}) {
    cuptiActivityEnable(kind);
  }
  return 1;
}
