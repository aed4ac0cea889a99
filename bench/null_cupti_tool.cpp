// The overhead benchmark's second baseline: a CUPTI tool that asks CUPTI for
// what libprof asks (runtime and driver API callbacks, the same activity
// kinds, a CLOCK_MONOTONIC timestamp callback, 4 MiB activity buffers,
// reused) and records nothing. libprof's cost minus this tool's is what the
// agent itself adds on top of CUPTI (on simcuda: on top of its emulation of
// CUPTI, whose activity pipeline wakes a worker thread for every record).
//
// Loaded by the driver: CUDA_INJECTION64_PATH=libbench_null_cupti_tool.so.
// Links libcupti directly; LD_LIBRARY_PATH picks simcuda's or the real one.
#include <cupti.h>
#include <time.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace {

constexpr size_t kBufferBytes = 4u << 20;

std::mutex g_mutex;
std::vector<uint8_t*> g_spare;

uint64_t CUPTIAPI timestamp() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  {
    std::lock_guard lock(g_mutex);
    if (!g_spare.empty()) {
      *buffer = g_spare.back();
      g_spare.pop_back();
    } else {
      *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
    }
  }
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI on_buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t) {
  if (buffer == nullptr) return;
  std::lock_guard lock(g_mutex);
  g_spare.push_back(buffer);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection() {
  CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, on_callback, nullptr) != CUPTI_SUCCESS) return 0;
  cuptiActivityRegisterTimestampCallback(timestamp);
  cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  for (CUpti_ActivityKind kind :
       {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2,
        CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        CUPTI_ACTIVITY_KIND_DEVICE, CUPTI_ACTIVITY_KIND_CONTEXT, CUPTI_ACTIVITY_KIND_OVERHEAD}) {
    cuptiActivityEnable(kind);
  }
  // NULL_TOOL_ACTIVITY_ONLY=1: GPU records only, no API callbacks: what CUPTI
  // would cost a mode that takes API calls from the agent's hooks instead.
  const char* activity_only = getenv("NULL_TOOL_ACTIVITY_ONLY");
  if (activity_only == nullptr || activity_only[0] != '1') {
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
  }
  // Flush at exit like a tool would, so the records are delivered (and paid for).
  atexit([] { cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); });
  return 1;
}
