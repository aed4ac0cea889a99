// Private interface between simcuda's libcuda.so.1 and the libraries layered on it
// (simcuda's libcudart.so.13 and libcupti.so.13). Nothing outside test/simcuda may
// use it: the profiler under test must only see the public CUDA and CUPTI APIs.
//
// All symbols here are exported by libcuda.so.1 with a "simcuda_" prefix so that they
// can never collide with a real driver entry point.
#pragma once

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Bumped whenever a struct below changes layout; libcupti refuses a mismatch.
#define SIMCUDA_TRACER_ABI_VERSION 3

// One API call, runtime or driver. The same object is passed to enter and exit, so a
// tracer may keep per-call state in it (CUPTI's correlationData lives here).
typedef struct SimApiCall {
  uint32_t domain;              // CUPTI_CB_DOMAIN_DRIVER_API or CUPTI_CB_DOMAIN_RUNTIME_API
  uint32_t cbid;                // CUPTI_DRIVER_TRACE_CBID_* / CUPTI_RUNTIME_TRACE_CBID_*
  const char* function_name;    // as CUPTI reports it: "cuMemAlloc_v2", "cudaMalloc"
  const void* params;           // the generated *_params struct of the call, or NULL
  const char* symbol_name;      // kernel name for launches, else NULL
  void* return_value;           // points at the CUresult / cudaError_t being returned
  int32_t result;               // copy of *return_value, valid on exit
  uint32_t correlation_id;      // shared by a runtime call and the driver calls it makes
  uint32_t depth;               // 0 for the outermost API call on this thread
  uint64_t start_ns;            // CLOCK_MONOTONIC
  uint64_t end_ns;              // CLOCK_MONOTONIC, valid on exit
  uint32_t thread_id;           // gettid()
  uint32_t context_id;          // 0 when no context is current
  CUcontext context;
  uint64_t tracer_data;         // scratch for the tracer (CUPTI's correlationData)
} SimApiCall;

enum SimOperationKind {
  SIM_OP_KERNEL = 1,
  SIM_OP_MEMCPY = 2,
  SIM_OP_MEMSET = 3,
  SIM_OP_HOST_FUNCTION = 4,     // cuLaunchHostFunc / stream callbacks / graph host nodes
};

// Copy kinds use CUpti_ActivityMemcpyKind's values; memory kinds CUpti_ActivityMemoryKind's.
typedef struct SimOperation {
  uint32_t kind;                // SimOperationKind
  uint32_t device;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t graph_id;            // 0 unless launched from a graph
  uint64_t graph_node_id;
  const char* name;             // kernel name (stable for the process lifetime)
  uint64_t queued_ns;           // host enqueue time
  uint64_t start_ns;
  uint64_t end_ns;
  uint64_t bytes;
  uint8_t copy_kind;
  uint8_t src_kind;
  uint8_t dst_kind;
  uint8_t is_async;
  uint32_t memset_value;
  int32_t grid[3];
  int32_t block[3];
  int32_t dynamic_shared_memory;
  int32_t static_shared_memory;
  uint32_t src_device;          // peer copies (copy_kind PTOP): the two devices
  uint32_t dst_device;
  uint32_t src_context_id;
  uint32_t dst_context_id;
  uint32_t launch_type;         // kernels: CUpti_ActivityLaunchType (cooperative launches)
  uint32_t cluster[3];          // kernels: thread block cluster dimensions, 0 when none
} SimOperation;

// Allocations and releases; and a memory pool's creation, destruction and trim
// (CUPTI's MEMORY_POOL kind), whose `address` is the pool's and `bytes` 0.
enum SimMemoryEventKind {
  SIM_MEMORY_ALLOCATE = 1,
  SIM_MEMORY_RELEASE = 2,
  SIM_MEMORY_POOL_CREATED = 3,
  SIM_MEMORY_POOL_DESTROYED = 4,
  SIM_MEMORY_POOL_TRIMMED = 5
};

typedef struct SimMemoryEvent {
  uint32_t operation;           // SimMemoryEventKind
  uint32_t memory_kind;         // CUpti_ActivityMemoryKind
  uint32_t device;
  uint32_t context_id;
  uint32_t stream_id;           // for async (stream-ordered) allocations, else 0
  uint32_t correlation_id;
  uint32_t is_async;
  uint64_t address;
  uint64_t bytes;
  uint64_t timestamp_ns;
  // The stream-ordered memory pool of the allocation (or the pool itself), as
  // it is after the event; pool_address 0 when none.
  uint64_t pool_address;
  uint64_t pool_reserved_bytes;
  uint64_t pool_used_bytes;
  uint64_t pool_release_threshold;
  uint64_t pool_min_bytes_to_keep;  // trims only
} SimMemoryEvent;

typedef struct SimSyncEvent {
  uint32_t type;                // CUpti_ActivitySynchronizationType
  uint32_t context_id;
  uint32_t stream_id;           // CUPTI_SYNCHRONIZATION_INVALID_VALUE when not a stream sync
  uint32_t event_id;            // idem for event syncs
  uint32_t correlation_id;
  uint64_t start_ns;
  uint64_t end_ns;
} SimSyncEvent;

typedef struct SimResourceEvent {
  uint32_t cbid;                // CUpti_CallbackIdResource
  CUcontext context;
  CUstream stream;
} SimResourceEvent;

typedef struct SimTracer {
  uint32_t abi_version;
  void (*api_enter)(SimApiCall* call);
  void (*api_exit)(SimApiCall* call);
  // Reported when the operation is enqueued; its times may lie in the future.
  void (*operation)(const SimOperation* op);
  void (*memory)(const SimMemoryEvent* event);
  void (*synchronization)(const SimSyncEvent* event);
  void (*resource)(const SimResourceEvent* event);
} SimTracer;

typedef struct SimDeviceInfo {
  char name[256];
  CUuuid uuid;
  int compute_major;
  int compute_minor;
  int multiprocessors;
  uint64_t global_memory_bytes;
  int max_threads_per_block;
  int shared_memory_per_block;
  int shared_memory_per_multiprocessor;
  int registers_per_block;
  int max_warps_per_multiprocessor;
  int max_blocks_per_multiprocessor;
  int core_clock_khz;
  int memory_clock_khz;
  int memory_bus_width;
  int l2_cache_bytes;
} SimDeviceInfo;

// Installs (or, with NULL, removes) the single tracer. Returns 0 on success.
int simcuda_install_tracer(const SimTracer* tracer);
int simcuda_device_count(void);
int simcuda_device_info(int ordinal, SimDeviceInfo* info);
// Returns 0 and fills the ids, or -1 for an unknown handle.
int simcuda_context_ids(CUcontext context, uint32_t* context_id, uint32_t* device);
int simcuda_stream_id(CUcontext context, CUstream stream, uint32_t* stream_id);
// Calls reported by libcudart, so that they appear in CUPTI and the truth log with
// the correlation ids the nested driver calls share.
void simcuda_api_enter(SimApiCall* call);
void simcuda_api_exit(SimApiCall* call);
uint64_t simcuda_now_ns(void);

#ifdef __cplusplus
}
#endif
