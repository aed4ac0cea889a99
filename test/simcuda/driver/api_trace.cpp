#include "api_trace.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include "device_model.h"
#include "sim_clock.h"
#include "truth_log.h"

namespace simcuda {
namespace {

std::atomic<const SimTracer*> g_tracer{nullptr};
std::atomic<uint32_t> g_next_correlation_id{1};

struct ThreadApiState {
  uint32_t depth = 0;
  uint32_t correlation_id = 0;
  uint32_t thread_id = 0;
};
thread_local ThreadApiState t_api;

uint32_t this_thread_id() {
  if (t_api.thread_id == 0) t_api.thread_id = static_cast<uint32_t>(syscall(SYS_gettid));
  return t_api.thread_id;
}

}  // namespace

const SimTracer* current_tracer() { return g_tracer.load(std::memory_order_acquire); }

uint32_t current_correlation_id() { return t_api.correlation_id; }

void api_enter(SimApiCall& call) {
  call.depth = t_api.depth++;
  if (call.depth == 0) {
    t_api.correlation_id = g_next_correlation_id.fetch_add(1, std::memory_order_relaxed);
  }
  call.correlation_id = t_api.correlation_id;
  call.thread_id = this_thread_id();
  call.context = current_context_handle();
  call.context_id = context_id_of(call.context);
  call.start_ns = now_ns();
  if (const SimTracer* tracer = current_tracer()) tracer->api_enter(&call);
}

void api_exit(SimApiCall& call) {
  call.end_ns = now_ns();
  if (call.context == nullptr) {
    // cuInit / cuCtxSetCurrent may have made a context current during the call.
    call.context = current_context_handle();
    call.context_id = context_id_of(call.context);
  }
  if (const SimTracer* tracer = current_tracer()) tracer->api_exit(&call);
  if (truth_enabled()) truth_api(call);
  if (--t_api.depth == 0) t_api.correlation_id = 0;
}

}  // namespace simcuda

extern "C" {

__attribute__((visibility("default"))) int simcuda_install_tracer(const SimTracer* tracer) {
  if (tracer != nullptr && tracer->abi_version != SIMCUDA_TRACER_ABI_VERSION) return -1;
  simcuda::g_tracer.store(tracer, std::memory_order_release);
  return 0;
}

__attribute__((visibility("default"))) void simcuda_api_enter(SimApiCall* call) {
  simcuda::api_enter(*call);
}

__attribute__((visibility("default"))) void simcuda_api_exit(SimApiCall* call) {
  simcuda::api_exit(*call);
}

__attribute__((visibility("default"))) uint64_t simcuda_now_ns(void) { return simcuda::now_ns(); }

}  // extern "C"
