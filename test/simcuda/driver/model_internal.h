// Object definitions shared by the model_*.cpp files. The CUDA handle types are
// pointers to these structs (CUcontext is CUctx_st*, and so on).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "device_model.h"

namespace simcuda {
struct Graph;
}

struct CUstream_st {
  uint32_t id;
  CUctx_st* context;
  unsigned flags;
  int priority;
  bool is_legacy_default;
  bool is_per_thread_default;
  uint64_t ready_at_ns = 0;  // simulated end of the last operation enqueued
  std::deque<uint64_t> pending_end_ns;  // ends of enqueued operations, oldest first
  simcuda::Graph* capture = nullptr;  // non-null while capturing
  // While capturing: the captured nodes this stream's next one depends on.
  std::vector<uint64_t> capture_tail;
};

struct CUctx_st {
  uint32_t id;
  int device;
  bool is_primary;
  unsigned flags;
  CUresult sticky_error = CUDA_SUCCESS;  // set by a faulting kernel, never cleared
  CUstream_st* legacy_stream;
  std::unordered_map<uint32_t, CUstream_st*> per_thread_streams;  // by gettid()
  std::vector<CUstream_st*> streams;  // every stream of this context, live ones
  std::unordered_set<CUctx_st*> peers;  // contexts whose memory this one may access
  size_t limits[CU_LIMIT_MAX] = {};     // cuCtxSetLimit's values, defaults set at creation
  CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;
};

struct CUevent_st {
  uint32_t id;
  CUctx_st* context;
  unsigned flags;
  bool recorded = false;
  uint64_t complete_at_ns = 0;
  simcuda::Graph* capture = nullptr;  // recorded in this capture: waiting on it joins it
  std::vector<uint64_t> capture_tail;  // the recording stream's capture_tail then
};

// The handle CUDA 12's runtime launches with (cuLibraryGetKernel): a
// CUkernel, which cuLaunchKernel takes in place of a CUfunction and
// cuKernelGetName names, but cuFuncGetName refuses, as the real driver does.
struct CUkern_st {
  CUfunc_st* function;
};

struct CUfunc_st {
  std::string name;
  uint64_t duration_ns;
  bool faults;  // matches SIMCUDA_FAULT_KERNEL
  CUmod_st* module;
  CUkern_st kernel{nullptr};  // {this function}, set where it is made
  // What cuFuncSetAttribute / cuFuncSetCacheConfig set (no effect on timing):
  // the dynamic shared memory a launch may use (the 48 KiB every kernel may
  // use without opting in, up to the device's 227 KiB), and the rest as given.
  int max_dynamic_shared_bytes = 48 * 1024;
  int preferred_carveout = -1;
  int required_cluster[3] = {0, 0, 0};
  int non_portable_cluster_allowed = 0;
  int cluster_scheduling_policy = 0;
  CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;
};

struct CUmod_st {
  CUctx_st* context;
  std::vector<std::unique_ptr<CUfunc_st>> functions;
  std::map<std::string, std::pair<void*, size_t>> globals;  // device memory of its variables
};

namespace simcuda {

// One node of a graph, captured or added explicitly. An operation node is
// scheduled at each launch (`move_data` performs its memory effect when it runs);
// a memory node makes the graph's allocation at `address` live (alloc) or gone
// (free) at its place in the launch. The address is reserved for the graph's life,
// as graph memory keeps its virtual address from launch to launch.
struct Graph;

struct GraphNode {
  // Empty: an empty node, or a child graph's node (its nodes follow it).
  // EventRecord/EventWait: the launch records `event` / waits for it in stream order.
  // Conditional: runs its bodies as the value of `condition` says (IF, WHILE, SWITCH).
  enum class Kind : uint8_t { Operation, MemAlloc, MemFree, Empty, EventRecord, EventWait, Conditional };
  Kind kind = Kind::Operation;
  SimOperation op{};  // op.graph_node_id identifies the node
  uint64_t duration_ns = 0;
  bool faults = false;
  std::function<void()> move_data;
  CUfunction function = nullptr;  // kernel nodes
  CUDA_KERNEL_NODE_PARAMS kernel_params{};  // kernel nodes, as last set (cuGraphKernelNodeGetParams)
  CUDA_MEMSET_NODE_PARAMS memset_params{};  // memset nodes, as last set
  CUDA_MEMCPY3D copy_params{};              // copy nodes built node by node, as last set
  CUDA_HOST_NODE_PARAMS host_params{};      // host nodes built node by node, as last set
  void* address = nullptr;        // memory nodes
  size_t bytes = 0;
  CUevent event = nullptr;        // event nodes
  // A child graph's node copied in: the id of the child graph node it belongs
  // to (it launches right after that node); 0 for the graph's own nodes.
  uint64_t owner = 0;
  // Conditional nodes: the handle, the kind, the body graphs the API handed
  // out (filled in later by the program), and at instantiation their copies.
  CUgraphConditionalHandle condition = 0;
  CUgraphConditionalNodeType condition_type = CU_GRAPH_COND_TYPE_IF;
  std::vector<CUgraph> body_handles;
  std::shared_ptr<const std::vector<Graph>> bodies;
  // In an executable graph's launch order: the positions of the nodes this
  // one starts after (the ends of its dependencies; a child graph's node,
  // the one before it).
  std::vector<uint32_t> waits_for;
};

struct Graph {
  uint32_t id;
  // In the order they were added. An executable graph's are in launch order:
  // a topological order of `edges`, ties broken by the order of adding.
  std::vector<GraphNode> nodes;
  std::vector<std::pair<uint64_t, uint64_t>> edges;  // (from, to) node ids, the graph's own nodes only
};

// A conditional node's handle (cuGraphConditionalHandleCreate): its value is
// what a launch reads; `assign_default` sets it to `default_value` as each
// launch begins.
struct GraphCondition {
  uint32_t graph_id;  // the graph it was created for
  unsigned default_value;
  bool assign_default;
  unsigned value;
};

// An operation ready to be scheduled or added to a graph.
struct PlannedOperation {
  SimOperation op{};
  CUfunc_st* function = nullptr;  // a kernel's, whichever handle launched it
  uint64_t duration_ns = 0;
  bool faults = false;
  std::function<void()> move_data;
};

}  // namespace simcuda

struct CUgraph_st {
  simcuda::Graph graph;
};

struct CUgraphNode_st {
  uint64_t id;  // the GraphNode's op.graph_node_id
};

// A stream-ordered memory pool (cudaMemPoolCreate, or a device's default pool,
// from which cuMemAllocAsync allocates). Freed memory stays reserved by the
// pool until cuMemPoolTrimTo (synchronisations do not release it here).
struct CUmemPoolHandle_st {
  uint32_t id;
  int device;
  bool is_default = false;
  uint64_t release_threshold = 0;
  uint64_t reserved = 0, reserved_high = 0;  // used + held for reuse
  uint64_t used = 0, used_high = 0;
  int reuse[3] = {1, 1, 1};  // CU_MEMPOOL_ATTR_REUSE_* (no effect on the model)
};

struct CUarray_st {
  void* memory;  // an allocation of MemoryKind::Array
  size_t pitch;  // bytes of a row: width * channels * element size
  size_t rows;   // height * depth (at least 1 each)
  size_t slice_rows;  // height (at least 1): rows of one depth slice
};

struct CUgraphExec_st {
  simcuda::Graph graph;  // a copy: the source graph may be destroyed after instantiation
};

namespace simcuda {

struct Allocation {
  size_t bytes;
  MemoryKind kind;
  int device;
  uint32_t context_id;
  bool owned;  // false for cuMemHostRegister'ed ranges
  CUmemPoolHandle_st* pool = nullptr;  // stream-ordered allocations
  bool mapped = false;  // cuMemMap'ed ranges, adjacent ones joined into one
};

struct Device {
  SimDeviceInfo info;
  CUctx_st* primary = nullptr;
  int primary_refcount = 0;
  unsigned primary_flags = 0;
  uint64_t allocated_bytes = 0;
  CUmemPoolHandle_st* default_pool = nullptr;  // made on first use
  uint64_t graph_used_high = 0, graph_reserved_high = 0;  // graph memory's high-water marks
};

// Destroyed objects are kept (never reused) so a stale handle stays invalid.
struct Model {
  std::mutex mutex;
  bool initialized = false;
  std::vector<Device> devices;
  uint32_t next_context_id = 1;
  uint32_t next_stream_id = 7;  // the real driver's first legacy stream is usually 7
  uint32_t next_event_id = 1;
  uint32_t next_graph_id = 1;
  uint64_t next_graph_node_id = 1;
  std::unordered_set<CUctx_st*> contexts;
  std::unordered_set<CUstream_st*> streams;
  std::unordered_set<CUevent_st*> events;
  std::unordered_set<CUmod_st*> modules;
  std::unordered_set<CUfunc_st*> functions;
  std::unordered_set<CUkern_st*> kernels;  // each function's CUkernel twin
  std::unordered_set<CUgraph_st*> graphs;
  std::unordered_set<CUgraphExec_st*> graph_execs;
  std::map<uintptr_t, Allocation> allocations;  // by base address
  std::vector<std::unique_ptr<CUctx_st>> all_contexts;
  std::vector<std::unique_ptr<CUstream_st>> all_streams;
  std::vector<std::unique_ptr<CUevent_st>> all_events;
  std::vector<std::unique_ptr<CUmod_st>> all_modules;
  std::vector<std::unique_ptr<CUgraph_st>> all_graphs;
  std::vector<std::unique_ptr<CUgraphExec_st>> all_graph_execs;
  std::unordered_map<uint64_t, std::unique_ptr<CUgraphNode_st>> graph_nodes;  // handles by node id
  std::unordered_set<uintptr_t> graph_reserved;  // addresses graphs' memory nodes own
  std::unordered_set<uintptr_t> graph_live;      // of those, allocated by a launch and not freed
  std::map<CUgraphConditionalHandle, GraphCondition> graph_conditions;  // by handle, in order of creation
  CUgraphConditionalHandle next_condition = 1;
  std::vector<std::unique_ptr<CUgraph[]>> condition_bodies;  // the arrays handed out in phGraph_out
  std::vector<uint64_t> condition_rule_runs;  // per SIMCUDA_GRAPH_CONDITIONS rule: matching kernels run so far
  std::unordered_set<CUarray_st*> arrays;
  std::vector<std::unique_ptr<CUarray_st>> all_arrays;
  unsigned long long next_object_id = 1;  // texture and surface objects
  std::unordered_set<unsigned long long> textures, surfaces;
  uint32_t next_pool_id = 1;
  std::unordered_set<CUmemPoolHandle_st*> pools;
  std::vector<std::unique_ptr<CUmemPoolHandle_st>> all_pools;
};

Model& model();
uint32_t this_thread_tid();

// ---- helpers for model_*.cpp; `lock` must hold model().mutex.
using Lock = std::unique_lock<std::mutex>;
CUctx_st* current_context_locked();
// Resolves a stream handle in the current context (null, CU_STREAM_LEGACY,
// CU_STREAM_PER_THREAD or a created stream). Returns nullptr and sets *error if invalid.
CUstream_st* resolve_stream_locked(CUstream handle, bool per_thread, CUresult* error);
// The same, for enqueuing work: also fails with the context's sticky error.
CUstream_st* work_stream_locked(CUstream handle, bool per_thread, CUresult* error);
CUstream_st* new_stream_locked(CUctx_st* context, unsigned flags, int priority);
// A new context's limits, as cuCtxGetLimit answers before any cuCtxSetLimit.
void set_default_limits(CUctx_st* context);
// Earliest time new work on `stream` may start, honouring legacy-stream semantics.
uint64_t stream_frontier_locked(const CUstream_st* stream);
// Latest end of all work in a context.
uint64_t context_frontier_locked(const CUctx_st* context);
// Gives `op` its start/end on `stream` (or appends it to the capturing graph); the
// caller reports it with report_operation() after releasing the lock.
// Returns false when the op was captured instead of scheduled.
// Blocks (releasing `lock`) while the stream's queue is full. `move_data` runs on the
// device thread at the operation's simulated start.
bool schedule_locked(Lock& lock, CUstream_st* stream, SimOperation& op, uint64_t duration_ns,
                     bool faults, std::function<void()> move_data);
// Waits (releasing `lock`) until `stream`'s queue has room for one more operation.
void wait_for_queue_slot_locked(Lock& lock, CUstream_st* stream);
// Gives `op`, enqueued at `queued_ns`, its place on `stream` from `start_ns`, as
// schedule_locked does once the queue has room, without moving the stream's
// frontier (a graph launch's node).
void place_operation_locked(CUstream_st* stream, SimOperation& op, uint64_t queued_ns, uint64_t start_ns,
                            uint64_t duration_ns, bool faults, std::function<void()> move_data);
void report_operation(const SimOperation& op);
void report_memory(const SimMemoryEvent& event);
// A device's default memory pool (made on first use), and the pool fields of a
// memory event.
CUmemPoolHandle_st* default_pool_locked(int device);
void describe_pool(const CUmemPoolHandle_st* pool, SimMemoryEvent* event);
// Validated operations of each kind, not yet on a stream.
CUresult plan_copy_locked(const CopyRequest& request, bool async, PlannedOperation* plan);
CUresult plan_memset_locked(const MemsetRequest& request, bool async, PlannedOperation* plan);
CUresult plan_kernel_locked(CUfunction function, const unsigned grid[3], const unsigned block[3],
                            unsigned dynamic_shared_bytes, PlannedOperation* plan);
// The next graph node id, and the handle of a node id (created on first use).
uint64_t new_graph_node_id_locked();
CUgraphNode node_handle_locked(uint64_t id);
// Memory nodes met on a capturing stream (cudaMallocAsync / cudaFreeAsync).
void* capture_alloc_node_locked(CUstream_st* stream, size_t bytes);
// Appends `node` to the stream's capture, after the nodes it depends on (its capture_tail).
void capture_append_locked(CUstream_st* stream, GraphNode node);
void capture_free_node_locked(CUstream_st* stream, void* address);
void report_resource(uint32_t cbid, CUcontext context, CUstream stream);
void report_sync(uint32_t type, uint32_t context_id, uint32_t stream_id, uint32_t event_id,
                 uint64_t start_ns, uint64_t end_ns);
// Waits (without the lock) until the simulated time `deadline_ns` has passed and the
// device thread has carried out everything due by then.
void wait_until(Lock& lock, uint64_t deadline_ns);
void wait_for_device(uint64_t deadline_ns);  // the same, for a caller without the lock
bool device_done_through(uint64_t deadline_ns);

}  // namespace simcuda
