// Devices, initialisation, contexts and the per-thread current-context stack.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cupti_activity.h>
#include <cupti_callbacks.h>

#include "api_trace.h"
#include "device_executor.h"
#include "model_internal.h"
#include "sim_clock.h"
#include "sim_config.h"
#include "truth_log.h"

namespace simcuda {
namespace {

thread_local std::vector<CUctx_st*> t_context_stack;
thread_local uint32_t t_tid = 0;

SimDeviceInfo make_device_info(int ordinal) {
  SimDeviceInfo info{};
  std::snprintf(info.name, sizeof info.name, "simcuda GPU %d (simulated H100)", ordinal);
  for (int i = 0; i < 16; ++i) info.uuid.bytes[i] = static_cast<char>(0x5c + i + 16 * ordinal);
  info.compute_major = 9;
  info.compute_minor = 0;
  info.multiprocessors = 132;
  info.global_memory_bytes = 80ull << 30;
  info.max_threads_per_block = 1024;
  info.shared_memory_per_block = 48 * 1024;
  info.shared_memory_per_multiprocessor = 228 * 1024;
  info.registers_per_block = 65536;
  info.max_warps_per_multiprocessor = 64;
  info.max_blocks_per_multiprocessor = 32;
  info.core_clock_khz = 1980000;
  info.memory_clock_khz = 2619000;
  info.memory_bus_width = 5120;
  info.l2_cache_bytes = 50 * 1024 * 1024;
  return info;
}

CUctx_st* create_context_locked(int device, bool primary, unsigned flags) {
  Model& m = model();
  auto context = std::make_unique<CUctx_st>();
  context->id = m.next_context_id++;
  context->device = device;
  context->is_primary = primary;
  context->flags = flags;
  set_default_limits(context.get());
  CUctx_st* raw = context.get();
  m.all_contexts.push_back(std::move(context));
  m.contexts.insert(raw);
  raw->legacy_stream = new_stream_locked(raw, 0, 0);
  raw->legacy_stream->is_legacy_default = true;
  return raw;
}

void destroy_context_locked(CUctx_st* context) {
  Model& m = model();
  for (CUstream_st* stream : context->streams) m.streams.erase(stream);
  context->streams.clear();
  m.contexts.erase(context);
  for (auto& frame : t_context_stack) {
    if (frame == context) frame = nullptr;
  }
}

}  // namespace

Model& model() {
  // Leaked on purpose: other libraries' destructors may still call the driver.
  static Model* instance = new Model;
  return *instance;
}

uint32_t this_thread_tid() {
  if (t_tid == 0) t_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return t_tid;
}

void report_resource(uint32_t cbid, CUcontext context, CUstream stream) {
  if (const SimTracer* tracer = current_tracer()) {
    SimResourceEvent event{cbid, context, stream};
    tracer->resource(&event);
  }
}

void report_operation(const SimOperation& op) {
  if (const SimTracer* tracer = current_tracer()) tracer->operation(&op);
  if (truth_enabled()) truth_operation(op);
}

void report_sync(uint32_t type, uint32_t context_id, uint32_t stream_id, uint32_t event_id,
                 uint64_t start_ns, uint64_t end_ns) {
  SimSyncEvent event{type, context_id, stream_id, event_id, current_correlation_id(), start_ns,
                     end_ns};
  if (const SimTracer* tracer = current_tracer()) tracer->synchronization(&event);
  if (truth_enabled()) truth_sync(event);
}

bool device_done_through(uint64_t deadline_ns) {
  return now_ns() >= deadline_ns && tasks_done_through(deadline_ns);
}

void wait_for_device(uint64_t deadline_ns) {
  sleep_until_ns(deadline_ns);
  wait_for_tasks_through(deadline_ns);
}

void wait_until(Lock& lock, uint64_t deadline_ns) {
  if (device_done_through(deadline_ns)) return;
  lock.unlock();
  wait_for_device(deadline_ns);
  lock.lock();
}

// The real driver, in the first cuInit, loads the library named by
// CUDA_INJECTION64_PATH and calls its InitializeInjection(): the way tools
// (nsys, Kineto, libprof) start tracing when CUDA starts. simcuda does the
// same, at the same point: before CU_INIT_FINISHED, inside cuInit.
void load_injection_library() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (path == nullptr || *path == '\0') return;
  void* library = dlopen(path, RTLD_NOW);
  if (library == nullptr) return;
  using InitializeInjection = int (*)();
  if (auto initialize = reinterpret_cast<InitializeInjection>(dlsym(library, "InitializeInjection"))) {
    initialize();
  }
}

CUresult model_init(unsigned flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  bool first = false;
  {
    Model& m = model();
    Lock lock(m.mutex);
    if (!m.initialized) {
      first = true;
      m.initialized = true;
      for (int i = 0; i < config().device_count; ++i) m.devices.push_back({make_device_info(i)});
    }
  }
  if (first) {
    load_injection_library();
    report_resource(CUPTI_CBID_RESOURCE_CU_INIT_FINISHED, nullptr, nullptr);
  }
  if (config().device_count == 0) return CUDA_ERROR_NO_DEVICE;
  return CUDA_SUCCESS;
}

CUresult require_init() {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  return m.devices.empty() ? CUDA_ERROR_NO_DEVICE : CUDA_SUCCESS;
}

CUresult check_device(CUdevice device) {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (device < 0 || device >= static_cast<int>(m.devices.size())) return CUDA_ERROR_INVALID_DEVICE;
  return CUDA_SUCCESS;
}

int device_count() {
  Model& m = model();
  Lock lock(m.mutex);
  return static_cast<int>(m.devices.size());
}

const SimDeviceInfo* device_info(int ordinal) {
  Model& m = model();
  Lock lock(m.mutex);
  if (ordinal < 0 || ordinal >= static_cast<int>(m.devices.size())) return nullptr;
  return &m.devices[static_cast<size_t>(ordinal)].info;  // stable: devices never change
}

CUresult device_attribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  if (CUresult error = check_device(device)) return error;
  if (value == nullptr || attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const SimDeviceInfo& d = *device_info(device);
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = d.max_threads_per_block; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = d.shared_memory_per_block; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = d.registers_per_block; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = d.core_clock_khz; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: *value = 512; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = d.multiprocessors; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: *value = CU_COMPUTEMODE_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = 0x10 + device; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = d.memory_clock_khz; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = d.memory_bus_width; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = d.l2_cache_bytes; break;
    // Assumed: three quarters of L2 may be set aside for persisting accesses.
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE: *value = d.l2_cache_bytes / 4 * 3; break;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE: *value = 128 << 20; break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *value = 2; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = d.compute_major; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = d.compute_minor; break;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
      *value = d.shared_memory_per_multiprocessor;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
      *value = d.max_blocks_per_multiprocessor;
      break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 227 * 1024; break;
    // Implied by the copy engines (ASYNC_ENGINE_COUNT 2) and the rest of the model.
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER: *value = 1; break;
    default: *value = 0; break;  // a capability simcuda does not model
  }
  return CUDA_SUCCESS;
}

CUctx_st* current_context_locked() {
  if (t_context_stack.empty()) return nullptr;
  CUctx_st* top = t_context_stack.back();
  return model().contexts.count(top) ? top : nullptr;
}

CUcontext current_context_handle() {
  if (t_context_stack.empty()) return nullptr;  // fast path: no lock on a fresh thread
  Model& m = model();
  Lock lock(m.mutex);
  return current_context_locked();
}

uint32_t context_id_of(CUcontext context) {
  if (context == nullptr) return 0;
  Model& m = model();
  Lock lock(m.mutex);
  return m.contexts.count(context) ? context->id : 0;
}

CUresult context_ids(CUcontext context, uint32_t* id, uint32_t* device) {
  Model& m = model();
  Lock lock(m.mutex);
  if (context == nullptr) context = current_context_locked();
  if (context == nullptr || !m.contexts.count(context)) return CUDA_ERROR_INVALID_CONTEXT;
  if (id) *id = context->id;
  if (device) *device = static_cast<uint32_t>(context->device);
  return CUDA_SUCCESS;
}

CUresult primary_context_retain(CUdevice device, CUcontext* out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(device)) return error;
  CUctx_st* created = nullptr;
  {
    Model& m = model();
    Lock lock(m.mutex);
    Device& d = m.devices[static_cast<size_t>(device)];
    if (d.primary == nullptr) {
      d.primary = create_context_locked(device, true, d.primary_flags);
      created = d.primary;
    }
    ++d.primary_refcount;
    *out = d.primary;
  }
  if (created) report_resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, created, nullptr);
  return CUDA_SUCCESS;
}

CUresult primary_context_release(CUdevice device) {
  if (CUresult error = check_device(device)) return error;
  Model& m = model();
  Lock lock(m.mutex);
  Device& d = m.devices[static_cast<size_t>(device)];
  if (d.primary_refcount == 0) return CUDA_ERROR_INVALID_CONTEXT;
  // Like the real driver, the primary context stays alive until a reset; releasing
  // the last reference only makes it inactive.
  --d.primary_refcount;
  return CUDA_SUCCESS;
}

CUresult primary_context_reset(CUdevice device) {
  if (CUresult error = check_device(device)) return error;
  CUctx_st* destroyed = nullptr;
  {
    Model& m = model();
    Lock lock(m.mutex);
    Device& d = m.devices[static_cast<size_t>(device)];
    if (d.primary != nullptr) {
      wait_until(lock, context_frontier_locked(d.primary));
      destroyed = d.primary;
    }
  }
  if (destroyed) report_resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, destroyed, nullptr);
  Model& m = model();
  Lock lock(m.mutex);
  Device& d = m.devices[static_cast<size_t>(device)];
  if (d.primary != nullptr) destroy_context_locked(d.primary);
  d.primary = nullptr;
  d.primary_refcount = 0;
  return CUDA_SUCCESS;
}

CUresult primary_context_state(CUdevice device, unsigned* flags, int* active) {
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(device)) return error;
  Model& m = model();
  Lock lock(m.mutex);
  const Device& d = m.devices[static_cast<size_t>(device)];
  *flags = d.primary_flags;
  *active = d.primary != nullptr && d.primary_refcount > 0;
  return CUDA_SUCCESS;
}

CUresult primary_context_set_flags(CUdevice device, unsigned flags) {
  if (CUresult error = check_device(device)) return error;
  Model& m = model();
  Lock lock(m.mutex);
  m.devices[static_cast<size_t>(device)].primary_flags = flags;
  return CUDA_SUCCESS;
}

CUresult context_create(CUdevice device, unsigned flags, CUcontext* out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult error = check_device(device)) return error;
  CUctx_st* created;
  {
    Model& m = model();
    Lock lock(m.mutex);
    created = create_context_locked(device, false, flags);
    t_context_stack.push_back(created);
    *out = created;
  }
  report_resource(CUPTI_CBID_RESOURCE_CONTEXT_CREATED, created, nullptr);
  return CUDA_SUCCESS;
}

CUresult context_destroy(CUcontext context) {
  {
    Model& m = model();
    Lock lock(m.mutex);
    if (context == nullptr || !m.contexts.count(context) || context->is_primary) {
      return CUDA_ERROR_INVALID_CONTEXT;
    }
    wait_until(lock, context_frontier_locked(context));
  }
  report_resource(CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, context, nullptr);
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.contexts.count(context)) return CUDA_ERROR_INVALID_CONTEXT;
  destroy_context_locked(context);
  while (!t_context_stack.empty() && t_context_stack.back() == nullptr) t_context_stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult context_set_current(CUcontext context) {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (context != nullptr && !m.contexts.count(context)) return CUDA_ERROR_INVALID_CONTEXT;
  if (t_context_stack.empty()) {
    if (context != nullptr) t_context_stack.push_back(context);
  } else if (context == nullptr) {
    t_context_stack.pop_back();
  } else {
    t_context_stack.back() = context;
  }
  return CUDA_SUCCESS;
}

CUresult context_get_current(CUcontext* out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  *out = current_context_locked();
  return CUDA_SUCCESS;
}

CUresult context_push(CUcontext context) {
  Model& m = model();
  Lock lock(m.mutex);
  if (context == nullptr || !m.contexts.count(context)) return CUDA_ERROR_INVALID_CONTEXT;
  t_context_stack.push_back(context);
  return CUDA_SUCCESS;
}

CUresult context_pop(CUcontext* out) {
  Model& m = model();
  Lock lock(m.mutex);
  if (t_context_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (out) *out = t_context_stack.back();
  t_context_stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult context_device(CUdevice* out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  *out = context->device;
  return CUDA_SUCCESS;
}

CUresult context_enable_peer(CUcontext peer) {
  Model& m = model();
  Lock lock(m.mutex);
  CUctx_st* context = current_context_locked();
  if (context == nullptr || peer == nullptr || !m.contexts.count(peer)) return CUDA_ERROR_INVALID_CONTEXT;
  if (peer->device == context->device) return CUDA_ERROR_INVALID_DEVICE;
  if (!context->peers.insert(peer).second) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  return CUDA_SUCCESS;
}

CUresult context_disable_peer(CUcontext peer) {
  Model& m = model();
  Lock lock(m.mutex);
  CUctx_st* context = current_context_locked();
  if (context == nullptr || peer == nullptr || !m.contexts.count(peer)) return CUDA_ERROR_INVALID_CONTEXT;
  if (context->peers.erase(peer) == 0) return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
  return CUDA_SUCCESS;
}

CUresult context_synchronize() {
  Model& m = model();
  Lock lock(m.mutex);
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  uint64_t start = now_ns();
  uint64_t end = std::max(start, context_frontier_locked(context));
  uint32_t context_id = context->id;
  wait_until(lock, end);
  CUresult sticky = m.contexts.count(context) ? context->sticky_error : CUDA_SUCCESS;
  lock.unlock();
  report_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, context_id,
              CUPTI_SYNCHRONIZATION_INVALID_VALUE, CUPTI_SYNCHRONIZATION_INVALID_VALUE, start,
              now_ns());
  return sticky;
}

}  // namespace simcuda
