// Graphs: stream capture's and explicitly built ones, instantiation, update and
// launch. Kernels, copies, memsets and host functions are operation nodes; graph
// memory (cudaMallocAsync in a capture, cudaGraphAddMemAllocNode) is a pair of
// memory nodes around an address reserved for the graph's life.
#include <cstdlib>
#include <cstring>

#include "api_trace.h"
#include "device_executor.h"
#include "model_internal.h"
#include "sim_clock.h"
#include "sim_config.h"

namespace simcuda {
namespace {

constexpr size_t kAlignment = 256;

Graph* graph_locked(CUgraph handle) {
  return handle != nullptr && model().graphs.count(handle) ? &handle->graph : nullptr;
}

GraphNode* exec_node_locked(CUgraphExec exec, uint64_t id) {
  for (GraphNode& node : exec->graph.nodes) {
    if (node.op.graph_node_id == id) return &node;
  }
  return nullptr;
}

// Appends `node` to `graph` with a fresh id and returns its handle.
CUgraphNode add_locked(Graph& graph, GraphNode node) {
  node.op.graph_id = graph.id;
  node.op.graph_node_id = new_graph_node_id_locked();
  uint64_t id = node.op.graph_node_id;
  graph.nodes.push_back(std::move(node));
  return node_handle_locked(id);
}

GraphNode operation_node(PlannedOperation plan) {
  GraphNode node;
  node.op = plan.op;
  node.duration_ns = plan.duration_ns;
  node.faults = plan.faults;
  node.move_data = std::move(plan.move_data);
  return node;
}

CUfunction function_of(const CUDA_KERNEL_NODE_PARAMS* params) {
  return params->func ? params->func : reinterpret_cast<CUfunction>(params->kern);
}

CUresult plan_kernel_node_locked(const CUDA_KERNEL_NODE_PARAMS* params, PlannedOperation* plan) {
  if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const unsigned grid[3] = {params->gridDimX, params->gridDimY, params->gridDimZ};
  const unsigned block[3] = {params->blockDimX, params->blockDimY, params->blockDimZ};
  return plan_kernel_locked(function_of(params), grid, block, params->sharedMemBytes, plan);
}

// Reserves device memory for a graph's allocation node. The address stays the
// graph's (and device memory to copies and memsets, so that nodes can name it);
// the alloc and free records come at each launch, from its memory nodes.
void* reserve_locked(CUctx_st* context, size_t bytes) {
  if (context == nullptr) return nullptr;
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void* memory = std::aligned_alloc(kAlignment, rounded);
  if (memory == nullptr) return nullptr;
  std::memset(memory, 0xcd, rounded);
  Model& m = model();
  m.graph_reserved.insert(reinterpret_cast<uintptr_t>(memory));
  m.allocations[reinterpret_cast<uintptr_t>(memory)] = {bytes, MemoryKind::Device, context->device, context->id,
                                                        false};
  return memory;
}

GraphNode memory_node(GraphNode::Kind kind, void* address, size_t bytes) {
  GraphNode node;
  node.kind = kind;
  node.address = address;
  node.bytes = bytes;
  return node;
}

}  // namespace

uint64_t new_graph_node_id_locked() { return model().next_graph_node_id++; }

CUgraphNode node_handle_locked(uint64_t id) {
  auto& handle = model().graph_nodes[id];
  if (!handle) handle = std::make_unique<CUgraphNode_st>(CUgraphNode_st{id});
  return handle.get();
}

void* capture_alloc_node_locked(CUstream_st* stream, size_t bytes) {
  void* address = reserve_locked(stream->context, bytes);
  if (address != nullptr) add_locked(*stream->capture, memory_node(GraphNode::Kind::MemAlloc, address, bytes));
  return address;
}

void capture_free_node_locked(CUstream_st* stream, void* address) {
  add_locked(*stream->capture, memory_node(GraphNode::Kind::MemFree, address, 0));
}

CUresult graph_create(CUgraph* out) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  auto graph = std::make_unique<CUgraph_st>();
  graph->graph.id = m.next_graph_id++;
  *out = graph.get();
  m.graphs.insert(graph.get());
  m.all_graphs.push_back(std::move(graph));
  return CUDA_SUCCESS;
}

CUresult graph_add_kernel(CUgraphNode* out, CUgraph handle, const CUDA_KERNEL_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  PlannedOperation plan;
  if (CUresult error = plan_kernel_node_locked(params, &plan)) return error;
  GraphNode node = operation_node(std::move(plan));
  node.function = function_of(params);
  *out = add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
}

CUresult graph_add_copy(CUgraphNode* out, CUgraph handle, const CopyRequest& request) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || request.dst == nullptr || request.src == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  PlannedOperation plan;
  if (CUresult error = plan_copy_locked(request, true, &plan)) return error;
  *out = add_locked(*graph, operation_node(std::move(plan)));
  return CUDA_SUCCESS;
}

CUresult graph_add_memset(CUgraphNode* out, CUgraph handle, const MemsetRequest& request) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || request.width_elements == 0) return CUDA_ERROR_INVALID_VALUE;
  PlannedOperation plan;
  if (CUresult error = plan_memset_locked(request, true, &plan)) return error;
  *out = add_locked(*graph, operation_node(std::move(plan)));
  return CUDA_SUCCESS;
}

CUresult graph_add_host(CUgraphNode* out, CUgraph handle, std::function<void()> call) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || !call) return CUDA_ERROR_INVALID_VALUE;
  PlannedOperation plan;
  plan.op.kind = SIM_OP_HOST_FUNCTION;
  plan.op.name = "host_function";
  plan.op.is_async = 1;
  plan.duration_ns = config().host_function_ns;
  plan.move_data = std::move(call);
  *out = add_locked(*graph, operation_node(std::move(plan)));
  return CUDA_SUCCESS;
}

CUresult graph_add_alloc(CUgraphNode* out, CUgraph handle, size_t bytes, CUdeviceptr* address) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || address == nullptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* memory = reserve_locked(current_context_locked(), bytes);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *address = reinterpret_cast<CUdeviceptr>(memory);
  *out = add_locked(*graph, memory_node(GraphNode::Kind::MemAlloc, memory, bytes));
  return CUDA_SUCCESS;
}

CUresult graph_add_free(CUgraphNode* out, CUgraph handle, CUdeviceptr address) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || address == 0) return CUDA_ERROR_INVALID_VALUE;
  *out = add_locked(*graph, memory_node(GraphNode::Kind::MemFree, reinterpret_cast<void*>(address), 0));
  return CUDA_SUCCESS;
}

CUresult graph_add_empty(CUgraphNode* out, CUgraph handle) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  GraphNode node;
  node.kind = GraphNode::Kind::Empty;
  *out = add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
}

CUresult graph_add_event(CUgraphNode* out, CUgraph handle, CUevent event, bool wait) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || event == nullptr || !m.events.count(event)) return CUDA_ERROR_INVALID_VALUE;
  GraphNode node;
  node.kind = wait ? GraphNode::Kind::EventWait : GraphNode::Kind::EventRecord;
  node.event = event;
  *out = add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
}

CUresult graph_add_child(CUgraphNode* out, CUgraph handle, CUgraph child_handle) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  Graph* child = graph_locked(child_handle);
  if (graph == nullptr || child == nullptr || out == nullptr || graph == child) return CUDA_ERROR_INVALID_VALUE;
  GraphNode marker;
  marker.kind = GraphNode::Kind::Empty;
  *out = add_locked(*graph, std::move(marker));
  std::vector<GraphNode> nodes = child->nodes;  // a copy: the child may be the parent's own node list's source
  for (GraphNode& node : nodes) add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
}

CUresult graph_set_kernel(CUgraphNode handle, const CUDA_KERNEL_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  if (handle == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (CUgraph_st* graph : m.graphs) {
    for (GraphNode& node : graph->graph.nodes) {
      if (node.op.graph_node_id != handle->id) continue;
      if (node.kind != GraphNode::Kind::Operation || node.op.kind != SIM_OP_KERNEL) return CUDA_ERROR_INVALID_VALUE;
      PlannedOperation plan;
      if (CUresult error = plan_kernel_node_locked(params, &plan)) return error;
      uint32_t graph_id = node.op.graph_id;
      uint64_t node_id = node.op.graph_node_id;
      node = operation_node(std::move(plan));
      node.function = function_of(params);
      node.op.graph_id = graph_id;
      node.op.graph_node_id = node_id;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult graph_memory_attribute(CUdevice device, CUgraphMem_attribute attribute, void* value) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (device < 0 || device >= static_cast<int>(m.devices.size())) return CUDA_ERROR_INVALID_DEVICE;
  uint64_t reserved = 0, used = 0;
  for (uintptr_t address : m.graph_reserved) {
    auto found = m.allocations.find(address);
    if (found == m.allocations.end() || found->second.device != device) continue;
    reserved += found->second.bytes;
    if (m.graph_live.count(address)) used += found->second.bytes;
  }
  Device& d = m.devices[static_cast<size_t>(device)];
  d.graph_used_high = std::max(d.graph_used_high, used);
  d.graph_reserved_high = std::max(d.graph_reserved_high, reserved);
  uint64_t answer = 0;
  switch (attribute) {
    case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT: answer = used; break;
    case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH: answer = d.graph_used_high; break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: answer = reserved; break;
    case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH: answer = d.graph_reserved_high; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  std::memcpy(value, &answer, sizeof answer);
  return CUDA_SUCCESS;
}

CUresult graph_clone(CUgraph* out, CUgraph original) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  Graph* source = graph_locked(original);
  if (source == nullptr) return CUDA_ERROR_INVALID_VALUE;
  auto clone = std::make_unique<CUgraph_st>();
  clone->graph.id = m.next_graph_id++;
  for (const GraphNode& node : source->nodes) add_locked(clone->graph, node);
  *out = clone.get();
  m.graphs.insert(clone.get());
  m.all_graphs.push_back(std::move(clone));
  return CUDA_SUCCESS;
}

CUresult graph_nodes(CUgraph handle, CUgraphNode* nodes, size_t* count) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (nodes != nullptr) {
    size_t n = std::min(*count, graph->nodes.size());
    for (size_t i = 0; i < n; ++i) nodes[i] = node_handle_locked(graph->nodes[i].op.graph_node_id);
  }
  *count = graph->nodes.size();
  return CUDA_SUCCESS;
}

CUresult graph_instantiate(CUgraphExec* out, CUgraph handle) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  auto exec = std::make_unique<CUgraphExec_st>();
  exec->graph = *graph;
  *out = exec.get();
  m.graph_execs.insert(exec.get());
  m.all_graph_execs.push_back(std::move(exec));
  return CUDA_SUCCESS;
}

CUresult graph_exec_update(CUgraphExec exec, CUgraph handle, CUgraphExecUpdateResultInfo* info) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (exec == nullptr || !m.graph_execs.count(exec) || graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::vector<GraphNode>& nodes = exec->graph.nodes;
  bool same_shape = nodes.size() == graph->nodes.size();
  for (size_t i = 0; same_shape && i < nodes.size(); ++i) {
    same_shape = nodes[i].kind == graph->nodes[i].kind && nodes[i].op.kind == graph->nodes[i].op.kind;
  }
  if (info != nullptr) *info = {};
  if (!same_shape) {
    if (info != nullptr) info->result = CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  }
  // The executable keeps its own graph and node ids; everything else is the new graph's.
  for (size_t i = 0; i < nodes.size(); ++i) {
    uint32_t graph_id = nodes[i].op.graph_id;
    uint64_t node_id = nodes[i].op.graph_node_id;
    nodes[i] = graph->nodes[i];
    nodes[i].op.graph_id = graph_id;
    nodes[i].op.graph_node_id = node_id;
  }
  if (info != nullptr) info->result = CU_GRAPH_EXEC_UPDATE_SUCCESS;
  return CUDA_SUCCESS;
}

CUresult graph_exec_set_kernel(CUgraphExec exec, CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  if (exec == nullptr || !m.graph_execs.count(exec) || node == nullptr) return CUDA_ERROR_INVALID_VALUE;
  GraphNode* target = exec_node_locked(exec, node->id);
  if (target == nullptr || target->op.kind != SIM_OP_KERNEL) return CUDA_ERROR_INVALID_VALUE;
  PlannedOperation plan;
  if (CUresult error = plan_kernel_node_locked(params, &plan)) return error;
  uint32_t graph_id = target->op.graph_id;
  uint64_t node_id = target->op.graph_node_id;
  *target = operation_node(std::move(plan));
  target->function = function_of(params);
  target->op.graph_id = graph_id;
  target->op.graph_node_id = node_id;
  return CUDA_SUCCESS;
}

CUresult graph_upload(CUgraphExec exec, CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  if (exec == nullptr || !m.graph_execs.count(exec)) return CUDA_ERROR_INVALID_VALUE;
  CUresult error;
  if (resolve_stream_locked(handle, per_thread, &error) == nullptr) return error;
  return CUDA_SUCCESS;  // nothing to upload: the simulated device reads host memory
}

CUresult graph_launch(CUgraphExec exec, CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  if (exec == nullptr || !m.graph_execs.count(exec)) return CUDA_ERROR_INVALID_HANDLE;
  CUresult error;
  CUstream_st* stream = work_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  CUctx_st* context = stream->context;
  // Nodes are replayed in order on the launch stream; all of their work carries
  // the correlation id of this graph launch, as CUPTI reports it.
  struct Launched {
    bool is_operation;
    SimOperation op;
    SimMemoryEvent memory;
  };
  std::vector<Launched> launched;
  Device& device = m.devices[static_cast<size_t>(context->device)];
  for (size_t i = 0; i < exec->graph.nodes.size(); ++i) {
    GraphNode& node = exec->graph.nodes[i];
    if (node.kind == GraphNode::Kind::Operation) {
      SimOperation op = node.op;
      op.correlation_id = 0;
      if (schedule_locked(lock, stream, op, node.duration_ns, node.faults, node.move_data)) {
        launched.push_back({true, op, {}});
      }
      continue;
    }
    if (node.kind == GraphNode::Kind::Empty) continue;
    if (node.kind == GraphNode::Kind::EventRecord || node.kind == GraphNode::Kind::EventWait) {
      CUevent event = node.event;
      if (!m.events.count(event)) continue;  // destroyed since: nothing to record or wait for
      if (node.kind == GraphNode::Kind::EventRecord) {  // as cuEventRecord at this place of the launch
        event->recorded = true;
        event->capture = nullptr;
        event->complete_at_ns = std::max(now_ns(), stream_frontier_locked(stream));
        stream->ready_at_ns = std::max(stream->ready_at_ns, event->complete_at_ns);
      } else if (event->recorded) {
        stream->ready_at_ns = std::max(stream->ready_at_ns, event->complete_at_ns);
      }
      continue;
    }
    auto address = reinterpret_cast<uintptr_t>(node.address);
    SimMemoryEvent event{0, static_cast<uint32_t>(MemoryKind::Device), static_cast<uint32_t>(context->device),
                         context->id, stream->id, current_correlation_id(), 1, address, node.bytes, now_ns(),
                         0, 0, 0, 0, 0};
    if (node.kind == GraphNode::Kind::MemAlloc) {
      event.operation = SIM_MEMORY_ALLOCATE;
      m.graph_live.insert(address);
    } else {
      m.graph_live.erase(address);
      auto found = m.allocations.find(address);
      if (found == m.allocations.end()) continue;  // freed already
      event.operation = SIM_MEMORY_RELEASE;
      event.bytes = found->second.bytes;
      if (!m.graph_reserved.count(address)) {
        // Memory that is not the graph's own goes back when the stream reaches it.
        device.allocated_bytes -= found->second.bytes;
        m.allocations.erase(found);
        run_at(stream_frontier_locked(stream), [address] { std::free(reinterpret_cast<void*>(address)); });
      }
    }
    launched.push_back({false, {}, event});
  }
  lock.unlock();
  for (const Launched& item : launched) {
    if (item.is_operation) {
      report_operation(item.op);
    } else {
      report_memory(item.memory);
    }
  }
  return CUDA_SUCCESS;
}

CUresult graph_destroy(CUgraph graph) {
  Model& m = model();
  Lock lock(m.mutex);
  if (graph == nullptr || !m.graphs.count(graph)) return CUDA_ERROR_INVALID_HANDLE;
  m.graphs.erase(graph);
  return CUDA_SUCCESS;
}

CUresult graph_exec_destroy(CUgraphExec exec) {
  Model& m = model();
  Lock lock(m.mutex);
  if (exec == nullptr || !m.graph_execs.count(exec)) return CUDA_ERROR_INVALID_HANDLE;
  m.graph_execs.erase(exec);
  return CUDA_SUCCESS;
}

}  // namespace simcuda
