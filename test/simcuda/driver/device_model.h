// The simulated machine: devices, contexts, streams, events, memory, modules and
// graphs, and the scheduler that gives every operation its simulated start and end.
// Exported driver functions (driver_*.cpp) validate nothing themselves; they open an
// ApiScope and call into this interface, which returns the CUresult the real driver
// would. All state is guarded by one mutex that is never held while calling a tracer
// or while sleeping for a synchronisation.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "simcuda/tracer_abi.h"

namespace simcuda {

// ---- lifecycle and devices
CUresult model_init(unsigned flags);
CUresult require_init();
CUresult check_device(CUdevice device);
const SimDeviceInfo* device_info(int ordinal);
int device_count();
CUresult device_attribute(int* value, CUdevice_attribute attribute, CUdevice device);

// ---- contexts (the current context is per thread, a stack as in the driver)
CUcontext current_context_handle();
uint32_t context_id_of(CUcontext context);
CUresult primary_context_retain(CUdevice device, CUcontext* out);
CUresult primary_context_release(CUdevice device);
CUresult primary_context_reset(CUdevice device);
CUresult primary_context_state(CUdevice device, unsigned* flags, int* active);
CUresult primary_context_set_flags(CUdevice device, unsigned flags);
CUresult context_create(CUdevice device, unsigned flags, CUcontext* out);
CUresult context_destroy(CUcontext context);
CUresult context_set_current(CUcontext context);
CUresult context_get_current(CUcontext* out);
CUresult context_push(CUcontext context);
CUresult context_pop(CUcontext* out);
CUresult context_device(CUdevice* out);
CUresult context_synchronize();
CUresult context_ids(CUcontext context, uint32_t* id, uint32_t* device);
// Peer access of the current context to `peer`'s memory (another device's context).
CUresult context_enable_peer(CUcontext peer);
CUresult context_disable_peer(CUcontext peer);

// ---- streams and events. `per_thread` selects the per-thread default stream for
// a null handle (the _ptsz/_ptds entry points).
CUresult stream_create(CUstream* out, unsigned flags, int priority);
CUresult stream_destroy(CUstream stream);
CUresult stream_synchronize(CUstream stream, bool per_thread);
CUresult stream_query(CUstream stream, bool per_thread);
CUresult stream_wait_event(CUstream stream, CUevent event, bool per_thread);
CUresult stream_flags(CUstream stream, unsigned* flags, bool per_thread);
CUresult stream_priority(CUstream stream, int* priority, bool per_thread);
CUresult stream_id(CUstream stream, unsigned long long* id, bool per_thread);
CUresult stream_id_in_context(CUcontext context, CUstream stream, uint32_t* id);
CUresult stream_begin_capture(CUstream stream, CUstreamCaptureMode mode, bool per_thread);
CUresult stream_end_capture(CUstream stream, CUgraph* graph, bool per_thread);
CUresult stream_is_capturing(CUstream stream, CUstreamCaptureStatus* status, bool per_thread);
CUresult event_create(CUevent* out, unsigned flags);
CUresult event_destroy(CUevent event);
CUresult event_record(CUevent event, CUstream stream, bool per_thread);
CUresult event_synchronize(CUevent event);
CUresult event_query(CUevent event);
CUresult event_elapsed_ms(float* ms, CUevent start, CUevent end);

// ---- memory. Device memory is host memory; CUdeviceptr values are host addresses.
enum class MemoryKind : uint8_t { Pageable = 1, Pinned = 2, Device = 3, Array = 4, Managed = 5 };
// Stream-ordered device allocations come from `pool`, or the device's default
// pool when it is null.
CUresult memory_allocate(void** out, size_t bytes, MemoryKind kind, CUstream stream_ordered,
                         bool per_thread, CUmemoryPool pool = nullptr);
// Stream-ordered memory pools (model_pools.cpp).
CUresult pool_default(CUmemoryPool* out, CUdevice device);
CUresult pool_create(CUmemoryPool* out, const CUmemPoolProps* props);
CUresult pool_destroy(CUmemoryPool pool);
CUresult pool_set_attribute(CUmemoryPool pool, CUmemPool_attribute attribute, const void* value);
CUresult pool_get_attribute(CUmemoryPool pool, CUmemPool_attribute attribute, void* value);
CUresult pool_trim(CUmemoryPool pool, size_t min_bytes_to_keep);
CUresult memory_free(void* address, MemoryKind kind, CUstream stream_ordered, bool per_thread);
CUresult host_register(void* address, size_t bytes);
CUresult host_unregister(void* address);
CUresult memory_info(size_t* free_bytes, size_t* total_bytes);
CUresult address_range(CUdeviceptr* base, size_t* size, CUdeviceptr address);
CUresult pointer_memory_type(CUdeviceptr address, CUmemorytype* type, CUdevice* device);
// What cuPointerGetAttribute(s) tell of an address inside an allocation.
struct PointerInfo {
  CUmemorytype type;
  CUdevice device;
  CUdeviceptr base;  // the allocation's start and size (RANGE_START_ADDR, RANGE_SIZE)
  size_t bytes;
  bool managed;
};
CUresult pointer_info(CUdeviceptr address, PointerInfo* info);
// Checks that [address, address + bytes) is managed memory and `stream` valid:
// prefetches and stream attachment have no simulated effect beyond that.
CUresult check_managed_range(CUdeviceptr address, size_t bytes, CUstream stream, bool per_thread);

// Virtual memory management (model_vmm.cpp).
CUresult vmm_granularity(size_t* granularity, const CUmemAllocationProp* prop);
CUresult vmm_create(CUmemGenericAllocationHandle* handle, size_t bytes, const CUmemAllocationProp* prop);
CUresult vmm_release(CUmemGenericAllocationHandle handle);
CUresult vmm_reserve(CUdeviceptr* out, size_t bytes, size_t alignment, CUdeviceptr wanted);
CUresult vmm_free(CUdeviceptr address, size_t bytes);
CUresult vmm_map(CUdeviceptr address, size_t bytes, size_t offset, CUmemGenericAllocationHandle handle);
CUresult vmm_set_access(CUdeviceptr address, size_t bytes, const CUmemAccessDesc* desc, size_t count);
CUresult vmm_unmap(CUdeviceptr address, size_t bytes);

// CUDA arrays (model_arrays.cpp): device memory of `rows` rows of `pitch` bytes,
// and texture and surface objects viewing an array or device memory.
CUresult array_create(CUarray* out, const CUDA_ARRAY3D_DESCRIPTOR& shape);
CUresult array_destroy(CUarray array);
// `slice_rows`: the rows of one depth slice of a 3D array (its height).
CUresult array_rows(CUarray array, char** base, size_t* pitch, size_t* rows, size_t* slice_rows = nullptr);
CUresult texture_create(CUtexObject* out, const CUDA_RESOURCE_DESC* resource);
CUresult texture_destroy(CUtexObject texture);
CUresult surface_create(CUsurfObject* out, const CUDA_RESOURCE_DESC* resource);
CUresult surface_destroy(CUsurfObject surface);

// Where a copy end must lie; the typed cuMemcpyHtoD-style calls are strict.
enum class Side : uint8_t { Host, Device, Any };
struct CopyRequest {
  void* dst;
  const void* src;
  size_t width_bytes;
  size_t height = 1;
  size_t dst_pitch = 0;
  size_t src_pitch = 0;
  Side dst_side = Side::Any;
  Side src_side = Side::Any;
  // A 3D copy (graph copy nodes only): `depth` slices of `height` rows, each
  // end's slices `*_slice` bytes apart.
  size_t depth = 1;
  size_t dst_slice = 0;
  size_t src_slice = 0;
};
CUresult enqueue_copy(const CopyRequest& request, CUstream stream, bool per_thread, bool async);

struct MemsetRequest {
  CUdeviceptr dst;
  uint32_t value;
  unsigned element_size;  // 1, 2 or 4 bytes
  size_t width_elements;
  size_t height = 1;
  size_t pitch_bytes = 0;
};
CUresult enqueue_memset(const MemsetRequest& request, CUstream stream, bool per_thread, bool async);

// A host function in stream order: `call` runs on simcuda's device thread at the
// operation's simulated start; the operation lasts SIMCUDA_HOST_FN_NS.
CUresult enqueue_host_function(CUstream stream, bool per_thread, std::function<void()> call);

// A copy between two devices' memory (cuMemcpyPeer); on the legacy stream of the
// current context when `stream` is null.
CUresult enqueue_peer_copy(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context,
                           size_t bytes, CUstream stream, bool per_thread, bool async);

// ---- modules, kernels and graphs
CUresult module_load(CUmodule* out, const void* image);
CUresult module_unload(CUmodule module);
// cuLink*: inputs joined into one image (model_launch.cpp).
CUresult link_create(CUlinkState* out);
CUresult link_add(CUlinkState state, CUjitInputType type, const void* data, size_t size);
CUresult link_complete(CUlinkState state, void** image, size_t* size);
CUresult link_destroy(CUlinkState state);
CUresult module_function(CUfunction* out, CUmodule module, const char* name);
const char* function_name(CUfunction function);  // nullptr for an unknown handle
CUkernel function_kernel(CUfunction function);   // its CUkernel twin, what the runtime launches with
const char* kernel_name(CUkernel kernel);        // nullptr for an unknown handle (a CUfunction included)
const char* launched_name(CUfunction handle);    // a launch's handle: a CUfunction or a CUkernel
// A module's __device__/__constant__ variable (declared ".global name[size]" in its image).
CUresult module_global(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name);

// Function attributes: the settable ones as set (defaults otherwise), others
// CUDA_ERROR_INVALID_VALUE from the setter. `function` is a CUfunction or a CUkernel.
CUresult function_set_attribute(CUfunction function, CUfunction_attribute attribute, int value);
CUresult function_settable_attribute(CUfunction function, CUfunction_attribute attribute, int* value);
CUresult function_set_cache_config(CUfunction function, CUfunc_cache config);
// The current context's limits (cuCtxSetLimit) and cache preference.
CUresult context_set_limit(CUlimit limit, size_t value);
CUresult context_get_limit(CUlimit limit, size_t* value);
CUresult context_set_cache_config(CUfunc_cache config);
CUresult context_get_cache_config(CUfunc_cache* config);

struct LaunchRequest {
  CUfunction function;
  unsigned grid[3];
  unsigned block[3];
  unsigned dynamic_shared_bytes;
  CUstream stream;
  bool per_thread;
  bool cooperative = false;           // cuLaunchCooperativeKernel, or the launch attribute
  unsigned cluster[3] = {0, 0, 0};    // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
};
CUresult enqueue_kernel(const LaunchRequest& request);

// Graphs (model_graph.cpp): captured from streams or built node by node; a launch
// runs each node once the nodes it depends on have ended (branches with no path
// between them overlap), on the launch stream.
CUresult graph_create(CUgraph* out);
CUresult graph_add_kernel(CUgraphNode* out, CUgraph graph, const CUDA_KERNEL_NODE_PARAMS* params);
CUresult graph_add_copy(CUgraphNode* out, CUgraph graph, const CopyRequest& request, const CUDA_MEMCPY3D& params);
CUresult graph_add_memset(CUgraphNode* out, CUgraph graph, const MemsetRequest& request,
                          const CUDA_MEMSET_NODE_PARAMS& params);
CUresult graph_add_host(CUgraphNode* out, CUgraph graph, const CUDA_HOST_NODE_PARAMS& params);
CUresult graph_add_alloc(CUgraphNode* out, CUgraph graph, size_t bytes, CUdeviceptr* address);
CUresult graph_add_free(CUgraphNode* out, CUgraph graph, CUdeviceptr address);
CUresult graph_add_empty(CUgraphNode* out, CUgraph graph);
CUresult graph_add_event(CUgraphNode* out, CUgraph graph, CUevent event, bool wait);
// A child graph node: the child's nodes, copied in at the node's place.
CUresult graph_add_child(CUgraphNode* out, CUgraph graph, CUgraph child);
CUresult graph_set_kernel(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS* params);
CUresult graph_get_kernel(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS* params);
// A copy or memset node's parameters, in its graph (`exec` null) or in an
// executable graph instantiated from it.
CUresult graph_set_copy(CUgraphExec exec, CUgraphNode node, const CopyRequest& request, const CUDA_MEMCPY3D& params);
CUresult graph_get_copy(CUgraphNode node, CUDA_MEMCPY3D* params);
// A host node's function, and an event record or wait node's event: in the
// graph (`exec` null) or in an executable graph instantiated from it.
CUresult graph_set_host(CUgraphExec exec, CUgraphNode node, const CUDA_HOST_NODE_PARAMS* params);
CUresult graph_get_host(CUgraphNode node, CUDA_HOST_NODE_PARAMS* params);
CUresult graph_set_event(CUgraphExec exec, CUgraphNode node, CUevent event, bool wait);
CUresult graph_get_event(CUgraphNode node, CUevent* event, bool wait);
// Removes a node and its edges (a child graph node: with the nodes copied in).
CUresult graph_destroy_node(CUgraphNode node);
CUresult graph_set_memset(CUgraphExec exec, CUgraphNode node, const MemsetRequest& request,
                          const CUDA_MEMSET_NODE_PARAMS& params);
CUresult graph_get_memset(CUgraphNode node, CUDA_MEMSET_NODE_PARAMS* params);
CUresult graph_node_type(CUgraphNode node, CUgraphNodeType* type);
// Dependencies: a node's are given when it is added (graph_add_node) or later
// (graph_dependencies); a launch runs the nodes in a topological order of them.
CUresult graph_check_dependencies(CUgraph graph, const CUgraphNode* dependencies, size_t count);
CUresult graph_dependencies(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to, size_t count, bool add);
CUresult graph_edges(CUgraph graph, CUgraphNode* from, CUgraphNode* to, size_t* count);
// Adds a node with `add` (which sets *out), after `dependencies`.
template <class Add>
CUresult graph_add_node(CUgraph graph, const CUgraphNode* dependencies, size_t count, CUgraphNode* out, Add add) {
  if (CUresult error = graph_check_dependencies(graph, dependencies, count)) return error;
  if (CUresult error = add()) return error;
  for (size_t i = 0; i < count; ++i) {
    if (CUresult error = graph_dependencies(graph, &dependencies[i], out, 1, true)) return error;
  }
  return CUDA_SUCCESS;
}
// Conditional nodes: a handle, and a node whose body graphs are made here and
// handed out in params->phGraph_out (an array the model owns, as CUDA does).
CUresult graph_condition_create(CUgraphConditionalHandle* out, CUgraph graph, unsigned default_value, unsigned flags);
CUresult graph_add_conditional(CUgraphNode* out, CUgraph graph, CUDA_CONDITIONAL_NODE_PARAMS* params);
// Graph memory of a device (cuDeviceGetGraphMemAttribute): what graphs' allocation
// nodes reserve, and of it what is live (allocated by a launch, not yet freed).
CUresult graph_memory_attribute(CUdevice device, CUgraphMem_attribute attribute, void* value);
CUresult graph_clone(CUgraph* out, CUgraph original);
CUresult graph_nodes(CUgraph graph, CUgraphNode* nodes, size_t* count);
CUresult graph_exec_update(CUgraphExec exec, CUgraph graph, CUgraphExecUpdateResultInfo* info);
CUresult graph_exec_set_kernel(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS* params);
CUresult graph_upload(CUgraphExec exec, CUstream stream, bool per_thread);
CUresult graph_instantiate(CUgraphExec* out, CUgraph graph);
CUresult graph_launch(CUgraphExec exec, CUstream stream, bool per_thread);
CUresult graph_destroy(CUgraph graph);
CUresult graph_exec_destroy(CUgraphExec exec);

}  // namespace simcuda
