// simcuda's libcupti.so.13: state shared by the callback and activity halves.
//
// CUPTI attaches to simcuda's libcuda.so.1 by installing a SimTracer through the
// private simcuda_install_tracer symbol. Against any other libcuda (or with
// SIMCUDA_CUPTI=off) attaching fails the way real CUPTI fails without a driver.
#pragma once

#include <cupti.h>

#include <ctime>

#include "simcuda/tracer_abi.h"

namespace simcuda_cupti {

inline uint64_t monotonic_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// libcuda's simcuda_* queries, looked up when attaching (libcupti does not link
// libcuda, so that it loads, and fails to attach, next to a real driver).
struct DriverQueries {
  int (*device_count)();
  int (*device_info)(int, SimDeviceInfo*);
  int (*context_ids)(CUcontext, uint32_t*, uint32_t*);
  int (*stream_id)(CUcontext, CUstream, uint32_t*);
};
// Valid once attach() returned true.
const DriverQueries& driver();

// Installs the tracer unless installed; false when CUPTI cannot attach.
bool attach();
// cuptiFinalize: uninstalls it.
void detach();
// CLOCK_MONOTONIC ns mapped into the tool's clock (cuptiActivityRegisterTimestampCallback).
uint64_t tool_time(uint64_t monotonic_ns);

// ---- callback API (cupti_callbacks.cpp)
void callbacks_api_enter(SimApiCall* call);
void callbacks_api_exit(SimApiCall* call);
void callbacks_resource(const SimResourceEvent* event);
void callbacks_synchronization(const SimSyncEvent* event);
void callbacks_finalize();  // forgets the subscriber and every enable bit

// ---- activity API (cupti_activity.cpp)
void activity_api_exit(const SimApiCall* call);
void activity_operation(const SimOperation* op);
void activity_memory(const SimMemoryEvent* event);
void activity_synchronization(const SimSyncEvent* event);
void activity_resource(const SimResourceEvent* event);
// cuptiFinalize: hands over what is held, forgets the tool's buffer
// callbacks and every enabled kind; devices are described again after.
void activity_finalize();

}  // namespace simcuda_cupti
