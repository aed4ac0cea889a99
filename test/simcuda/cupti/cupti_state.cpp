#include "cupti_state.h"

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace simcuda_cupti {
namespace {

void on_api_enter(SimApiCall* call) { callbacks_api_enter(call); }

void on_api_exit(SimApiCall* call) {
  callbacks_api_exit(call);
  activity_api_exit(call);
}

void on_operation(const SimOperation* op) { activity_operation(op); }
void on_memory(const SimMemoryEvent* event) { activity_memory(event); }

void on_synchronization(const SimSyncEvent* event) {
  callbacks_synchronization(event);
  activity_synchronization(event);
}

void on_resource(const SimResourceEvent* event) {
  callbacks_resource(event);
  activity_resource(event);
}

const SimTracer kTracer = {SIMCUDA_TRACER_ABI_VERSION, on_api_enter, on_api_exit, on_operation,
                           on_memory, on_synchronization, on_resource};

// Attached from the first CUPTI call that needs the driver until
// cuptiFinalize; any later such call attaches again, as real CUPTI does.
std::mutex g_attach_mutex;
bool g_attached = false;
int (*g_install_tracer)(const SimTracer*) = nullptr;
std::atomic<int64_t> g_tool_clock_offset{0};
DriverQueries g_driver{};

template <typename Fn>
bool lookup(void* library, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(library, name));
  return out != nullptr;
}

}  // namespace

bool attach() {
  std::lock_guard<std::mutex> lock(g_attach_mutex);
  if (g_attached) return true;
  const char* mode = std::getenv("SIMCUDA_CUPTI");
  if (mode != nullptr && std::strcmp(mode, "off") == 0) return false;
  if (g_install_tracer == nullptr) {
    // The driver the process uses: the one already loaded, else the loader's choice.
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == nullptr) driver = dlopen("libcuda.so.1", RTLD_NOW);
    if (driver == nullptr) return false;
    int (*install)(const SimTracer*) = nullptr;
    const bool found = lookup(driver, "simcuda_install_tracer", install) &&
                       lookup(driver, "simcuda_device_count", g_driver.device_count) &&
                       lookup(driver, "simcuda_device_info", g_driver.device_info) &&
                       lookup(driver, "simcuda_context_ids", g_driver.context_ids) &&
                       lookup(driver, "simcuda_stream_id", g_driver.stream_id);
    if (!found) return false;
    g_install_tracer = install;
  }
  g_attached = g_install_tracer(&kTracer) == 0;
  return g_attached;
}

void detach() {
  std::lock_guard<std::mutex> lock(g_attach_mutex);
  if (!g_attached) return;
  g_install_tracer(nullptr);  // from here the driver calls nothing of CUPTI
  g_attached = false;
}

const DriverQueries& driver() { return g_driver; }

uint64_t tool_time(uint64_t monotonic_ns) {
  if (monotonic_ns == 0) return 0;  // "not available" stays recognisable
  return static_cast<uint64_t>(static_cast<int64_t>(monotonic_ns) + g_tool_clock_offset.load(std::memory_order_relaxed));
}

}  // namespace simcuda_cupti

using namespace simcuda_cupti;

extern "C" {

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t* version) {
  if (version == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *version = CUPTI_API_VERSION;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t* timestamp) {
  if (timestamp == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *timestamp = tool_time(monotonic_now());
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp) {
  if (funcTimestamp == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  // One offset maps simulated CLOCK_MONOTONIC times into the tool's clock. It is
  // rounded to whole microseconds so that a tool whose clock is CLOCK_MONOTONIC
  // (the usual case) gets exactly simcuda's times, with no sampling jitter.
  int64_t best = 0;
  uint64_t best_gap = ~0ull;
  for (int i = 0; i < 5; ++i) {
    uint64_t before = monotonic_now();
    uint64_t tool = funcTimestamp();
    uint64_t after = monotonic_now();
    if (after - before < best_gap) {
      best_gap = after - before;
      best = static_cast<int64_t>(tool) - static_cast<int64_t>(before + (after - before) / 2);
    }
  }
  g_tool_clock_offset.store(static_cast<int64_t>(std::llround(static_cast<double>(best) / 1000.0)) * 1000,
                            std::memory_order_relaxed);
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char** str) {
  if (str == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  switch (result) {
    case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_INVALID_DEVICE: *str = "CUPTI_ERROR_INVALID_DEVICE"; break;
    case CUPTI_ERROR_INVALID_CONTEXT: *str = "CUPTI_ERROR_INVALID_CONTEXT"; break;
    case CUPTI_ERROR_INVALID_OPERATION: *str = "CUPTI_ERROR_INVALID_OPERATION"; break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED: *str = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
    case CUPTI_ERROR_NOT_INITIALIZED: *str = "CUPTI_ERROR_NOT_INITIALIZED"; break;
    case CUPTI_ERROR_INVALID_KIND: *str = "CUPTI_ERROR_INVALID_KIND"; break;
    case CUPTI_ERROR_NOT_SUPPORTED: *str = "CUPTI_ERROR_NOT_SUPPORTED"; break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"; break;
    case CUPTI_ERROR_UNKNOWN: *str = "CUPTI_ERROR_UNKNOWN"; break;
    default: *str = nullptr; return CUPTI_ERROR_INVALID_PARAMETER;
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetErrorMessage(CUptiResult result, const char** str) {
  return cuptiGetResultString(result, str);
}

CUptiResult CUPTIAPI cuptiGetLastError(void) { return CUPTI_SUCCESS; }

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t* contextId) {
  if (contextId == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!attach()) return CUPTI_ERROR_NOT_INITIALIZED;
  return driver().context_ids(context, contextId, nullptr) == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_CONTEXT;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t* deviceId) {
  if (deviceId == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!attach()) return CUPTI_ERROR_NOT_INITIALIZED;
  return driver().context_ids(context, nullptr, deviceId) == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_CONTEXT;
}

CUptiResult CUPTIAPI cuptiGetStreamId(CUcontext context, CUstream stream, uint32_t* streamId) {
  if (streamId == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (!attach()) return CUPTI_ERROR_NOT_INITIALIZED;
  return driver().stream_id(context, stream, streamId) == 0 ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_STREAM;
}

// Detaches CUPTI from the process: the driver stops calling it, the
// subscriber and everything enabled are forgotten, and what the activity
// queue held is handed to the tool first. A later CUPTI call attaches again.
CUptiResult CUPTIAPI cuptiFinalize(void) {
  detach();
  callbacks_finalize();
  activity_finalize();
  return CUPTI_SUCCESS;
}

}  // extern "C"
