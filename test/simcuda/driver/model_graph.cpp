// Graphs: stream capture's and explicitly built ones, instantiation, update and
// launch. Kernels, copies, memsets and host functions are operation nodes; graph
// memory (cudaMallocAsync in a capture, cudaGraphAddMemAllocNode) is a pair of
// memory nodes around an address reserved for the graph's life. A launch goes
// through the nodes in a topological order of their dependencies (given when
// built, or by the capturing streams' order and events) and starts each once
// the nodes it depends on have ended: branches with no path between them
// overlap, as on a GPU, where the driver runs them on streams of its own.
// Conditional nodes run their bodies as their handle's value says.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <regex>
#include <unordered_map>

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

// The node `id` of any graph (not of executable graphs), and its graph.
GraphNode* find_node_locked(uint64_t id, Graph** graph_out) {
  for (CUgraph_st* graph : model().graphs) {
    for (GraphNode& node : graph->graph.nodes) {
      if (node.op.graph_node_id != id) continue;
      if (graph_out != nullptr) *graph_out = &graph->graph;
      return &node;
    }
  }
  return nullptr;
}

// A graph's own node (not one copied in from a child graph).
bool own_node_locked(const Graph& graph, uint64_t id) {
  for (const GraphNode& node : graph.nodes) {
    if (node.op.graph_node_id == id) return node.owner == 0;
  }
  return false;
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

// Replaces an operation node's work, keeping its place and ids.
void replace_operation(GraphNode& node, PlannedOperation plan) {
  uint32_t graph_id = node.op.graph_id;
  uint64_t node_id = node.op.graph_node_id;
  GraphNode replaced = operation_node(std::move(plan));
  replaced.owner = node.owner;
  replaced.op.graph_id = graph_id;
  replaced.op.graph_node_id = node_id;
  replaced.kernel_params = node.kernel_params;
  replaced.memset_params = node.memset_params;
  replaced.copy_params = node.copy_params;
  replaced.host_params = node.host_params;
  node = std::move(replaced);
}

// A host node calling `params.fn(params.userData)` where it runs.
GraphNode host_node(const CUDA_HOST_NODE_PARAMS& params) {
  PlannedOperation plan;
  plan.op.kind = SIM_OP_HOST_FUNCTION;
  plan.op.name = "host_function";
  plan.op.is_async = 1;
  plan.duration_ns = config().host_function_ns;
  CUhostFn fn = params.fn;
  void* data = params.userData;
  plan.move_data = [fn, data] { fn(data); };
  GraphNode node = operation_node(std::move(plan));
  node.host_params = params;
  return node;
}

// The node `handle` names in the executable graph `exec`, or in its graph when
// `exec` is null; null when either is unknown.
GraphNode* target_node_locked(CUgraphExec exec, CUgraphNode handle) {
  if (handle == nullptr || (exec != nullptr && !model().graph_execs.count(exec))) return nullptr;
  return exec != nullptr ? exec_node_locked(exec, handle->id) : find_node_locked(handle->id, nullptr);
}

// target_node_locked's node if it is an operation of `kind`
// (SimOperationKind); nullptr otherwise.
GraphNode* operation_node_locked(CUgraphExec exec, CUgraphNode handle, uint32_t kind) {
  GraphNode* node = target_node_locked(exec, handle);
  return node != nullptr && node->kind == GraphNode::Kind::Operation && node->op.kind == kind ? node : nullptr;
}

CUresult set_kernel_locked(GraphNode& node, const CUDA_KERNEL_NODE_PARAMS* params) {
  PlannedOperation plan;
  if (CUresult error = plan_kernel_node_locked(params, &plan)) return error;
  replace_operation(node, std::move(plan));
  node.function = function_of(params);
  node.kernel_params = *params;
  return CUDA_SUCCESS;
}

// Whether nodes were copied in for the child graph node `id`.
bool has_children_locked(uint64_t id) {
  for (CUgraph_st* graph : model().graphs) {
    for (const GraphNode& node : graph->graph.nodes) {
      if (node.owner == id) return true;
    }
  }
  return false;
}

// `graph`'s nodes in launch order, with copies of conditional nodes' bodies
// (an executable graph keeps what it was instantiated from). The order is
// topological over the graph's own nodes, ties broken by the order they were
// added (so a graph whose dependencies follow that order runs in it); a child
// graph node's nodes follow it. A cycle fails, as instantiation does in CUDA.
CUresult instantiate_locked(const Graph& graph, std::vector<GraphNode>* out) {
  std::vector<size_t> own;  // indices of the graph's own nodes
  std::unordered_map<uint64_t, size_t> position;  // node id -> index in `own`
  std::unordered_map<uint64_t, std::vector<size_t>> copied_in;  // child graph node id -> its nodes' indices
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (graph.nodes[i].owner != 0) {
      copied_in[graph.nodes[i].owner].push_back(i);
      continue;
    }
    position[graph.nodes[i].op.graph_node_id] = own.size();
    own.push_back(i);
  }
  std::vector<size_t> waiting(own.size(), 0);
  std::vector<std::vector<size_t>> after(own.size());
  for (const auto& [from, to] : graph.edges) {
    auto f = position.find(from), t = position.find(to);
    if (f == position.end() || t == position.end()) continue;
    after[f->second].push_back(t->second);
    ++waiting[t->second];
  }
  std::vector<std::vector<size_t>> before(own.size());  // each own node's dependencies
  for (size_t from = 0; from < own.size(); ++from) {
    for (size_t to : after[from]) before[to].push_back(from);
  }
  // Where each own node's work ends in `out`: the node, or the last node of
  // its child graph (whose nodes run one after the other, after it).
  std::vector<uint32_t> done_at(own.size(), 0);
  // A conditional node carries copies of its bodies, each in launch order.
  auto emit = [&](const GraphNode& node, std::vector<uint32_t> waits_for) -> CUresult {
    out->push_back(node);
    out->back().waits_for = std::move(waits_for);
    if (node.kind != GraphNode::Kind::Conditional) return CUDA_SUCCESS;
    auto bodies = std::make_shared<std::vector<Graph>>();
    for (CUgraph body_handle : node.body_handles) {
      Graph* body = graph_locked(body_handle);
      if (body == nullptr) return CUDA_ERROR_INVALID_VALUE;
      Graph copy;
      copy.id = body->id;
      if (CUresult error = instantiate_locked(*body, &copy.nodes)) return error;
      bodies->push_back(std::move(copy));
    }
    out->back().bodies = std::move(bodies);
    return CUDA_SUCCESS;
  };
  // Kahn's algorithm, the earliest added ready node first.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < own.size(); ++i) {
    if (waiting[i] == 0) ready.push(i);
  }
  out->clear();
  size_t emitted = 0;
  while (!ready.empty()) {
    size_t next = ready.top();
    ready.pop();
    ++emitted;
    for (size_t successor : after[next]) {
      if (--waiting[successor] == 0) ready.push(successor);
    }
    const GraphNode& node = graph.nodes[own[next]];
    std::vector<uint32_t> waits_for;
    for (size_t dependency : before[next]) waits_for.push_back(done_at[dependency]);
    if (CUresult error = emit(node, std::move(waits_for))) return error;
    done_at[next] = static_cast<uint32_t>(out->size() - 1);
    auto children = copied_in.find(node.op.graph_node_id);
    if (children == copied_in.end()) continue;
    for (size_t child : children->second) {
      if (CUresult error = emit(graph.nodes[child], {static_cast<uint32_t>(out->size() - 1)})) return error;
    }
    done_at[next] = static_cast<uint32_t>(out->size() - 1);
  }
  return emitted == own.size() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;  // short: a cycle
}

}  // namespace

uint64_t new_graph_node_id_locked() { return model().next_graph_node_id++; }

CUgraphNode node_handle_locked(uint64_t id) {
  auto& handle = model().graph_nodes[id];
  if (!handle) handle = std::make_unique<CUgraphNode_st>(CUgraphNode_st{id});
  return handle.get();
}

void capture_append_locked(CUstream_st* stream, GraphNode node) {
  Graph& graph = *stream->capture;
  const uint64_t id = add_locked(graph, std::move(node))->id;
  for (uint64_t before : stream->capture_tail) graph.edges.emplace_back(before, id);
  stream->capture_tail.assign(1, id);
}

void* capture_alloc_node_locked(CUstream_st* stream, size_t bytes) {
  void* address = reserve_locked(stream->context, bytes);
  if (address != nullptr) capture_append_locked(stream, memory_node(GraphNode::Kind::MemAlloc, address, bytes));
  return address;
}

void capture_free_node_locked(CUstream_st* stream, void* address) {
  capture_append_locked(stream, memory_node(GraphNode::Kind::MemFree, address, 0));
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
  node.kernel_params = *params;
  *out = add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
}

CUresult graph_add_copy(CUgraphNode* out, CUgraph handle, const CopyRequest& request, const CUDA_MEMCPY3D& params) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || request.dst == nullptr || request.src == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  PlannedOperation plan;
  if (CUresult error = plan_copy_locked(request, true, &plan)) return error;
  GraphNode node = operation_node(std::move(plan));
  node.copy_params = params;
  *out = add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
}

CUresult graph_add_memset(CUgraphNode* out, CUgraph handle, const MemsetRequest& request,
                          const CUDA_MEMSET_NODE_PARAMS& params) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || request.width_elements == 0) return CUDA_ERROR_INVALID_VALUE;
  PlannedOperation plan;
  if (CUresult error = plan_memset_locked(request, true, &plan)) return error;
  GraphNode node = operation_node(std::move(plan));
  node.memset_params = params;
  *out = add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
}

CUresult graph_add_host(CUgraphNode* out, CUgraph handle, const CUDA_HOST_NODE_PARAMS& params) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || params.fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *out = add_locked(*graph, host_node(params));
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
  std::vector<GraphNode> nodes;  // the child's, in its launch order
  if (CUresult error = instantiate_locked(*child, &nodes)) return error;
  GraphNode marker;
  marker.kind = GraphNode::Kind::Empty;
  *out = add_locked(*graph, std::move(marker));
  for (GraphNode& node : nodes) {
    node.owner = (*out)->id;
    add_locked(*graph, std::move(node));
  }
  return CUDA_SUCCESS;
}

CUresult graph_set_kernel(CUgraphNode handle, const CUDA_KERNEL_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(nullptr, handle, SIM_OP_KERNEL);
  if (node == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return set_kernel_locked(*node, params);
}

CUresult graph_get_kernel(CUgraphNode handle, CUDA_KERNEL_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(nullptr, handle, SIM_OP_KERNEL);
  if (node == nullptr || params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *params = node->kernel_params;
  return CUDA_SUCCESS;
}

CUresult graph_set_copy(CUgraphExec exec, CUgraphNode handle, const CopyRequest& request,
                        const CUDA_MEMCPY3D& params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(exec, handle, SIM_OP_MEMCPY);
  if (node == nullptr) return CUDA_ERROR_INVALID_VALUE;
  PlannedOperation plan;
  if (CUresult error = plan_copy_locked(request, true, &plan)) return error;
  if (exec != nullptr && plan.op.copy_kind != node->op.copy_kind) return CUDA_ERROR_INVALID_VALUE;  // as CUDA
  replace_operation(*node, std::move(plan));
  node->copy_params = params;
  return CUDA_SUCCESS;
}

CUresult graph_get_copy(CUgraphNode handle, CUDA_MEMCPY3D* params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(nullptr, handle, SIM_OP_MEMCPY);
  if (node == nullptr || params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *params = node->copy_params;
  return CUDA_SUCCESS;
}

CUresult graph_set_host(CUgraphExec exec, CUgraphNode handle, const CUDA_HOST_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(exec, handle, SIM_OP_HOST_FUNCTION);
  if (node == nullptr || params == nullptr || params->fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  GraphNode replaced = host_node(*params);
  replaced.owner = node->owner;
  replaced.op.graph_id = node->op.graph_id;
  replaced.op.graph_node_id = node->op.graph_node_id;
  *node = std::move(replaced);
  return CUDA_SUCCESS;
}

CUresult graph_get_host(CUgraphNode handle, CUDA_HOST_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(nullptr, handle, SIM_OP_HOST_FUNCTION);
  if (node == nullptr || params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *params = node->host_params;
  return CUDA_SUCCESS;
}

CUresult graph_set_event(CUgraphExec exec, CUgraphNode handle, CUevent event, bool wait) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = target_node_locked(exec, handle);
  const GraphNode::Kind kind = wait ? GraphNode::Kind::EventWait : GraphNode::Kind::EventRecord;
  if (node == nullptr || node->kind != kind || event == nullptr || !m.events.count(event)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  node->event = event;
  return CUDA_SUCCESS;
}

CUresult graph_get_event(CUgraphNode handle, CUevent* event, bool wait) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = target_node_locked(nullptr, handle);
  const GraphNode::Kind kind = wait ? GraphNode::Kind::EventWait : GraphNode::Kind::EventRecord;
  if (node == nullptr || event == nullptr || node->kind != kind) return CUDA_ERROR_INVALID_VALUE;
  *event = node->event;
  return CUDA_SUCCESS;
}

CUresult graph_destroy_node(CUgraphNode handle) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = nullptr;
  GraphNode* node = handle == nullptr ? nullptr : find_node_locked(handle->id, &graph);
  if (node == nullptr || node->owner != 0) return CUDA_ERROR_INVALID_VALUE;  // a child graph's node is not the graph's
  const uint64_t id = handle->id;
  std::erase_if(graph->nodes, [id](const GraphNode& n) { return n.op.graph_node_id == id || n.owner == id; });
  std::erase_if(graph->edges, [id](const auto& edge) { return edge.first == id || edge.second == id; });
  return CUDA_SUCCESS;
}

CUresult graph_set_memset(CUgraphExec exec, CUgraphNode handle, const MemsetRequest& request,
                          const CUDA_MEMSET_NODE_PARAMS& params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(exec, handle, SIM_OP_MEMSET);
  if (node == nullptr || request.width_elements == 0) return CUDA_ERROR_INVALID_VALUE;
  PlannedOperation plan;
  if (CUresult error = plan_memset_locked(request, true, &plan)) return error;
  replace_operation(*node, std::move(plan));
  node->memset_params = params;
  return CUDA_SUCCESS;
}

CUresult graph_get_memset(CUgraphNode handle, CUDA_MEMSET_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = operation_node_locked(nullptr, handle, SIM_OP_MEMSET);
  if (node == nullptr || params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *params = node->memset_params;
  return CUDA_SUCCESS;
}

CUresult graph_node_type(CUgraphNode handle, CUgraphNodeType* type) {
  Model& m = model();
  Lock lock(m.mutex);
  GraphNode* node = handle == nullptr ? nullptr : find_node_locked(handle->id, nullptr);
  if (node == nullptr || type == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (node->kind) {
    case GraphNode::Kind::Operation:
      *type = node->op.kind == SIM_OP_KERNEL   ? CU_GRAPH_NODE_TYPE_KERNEL
              : node->op.kind == SIM_OP_MEMCPY ? CU_GRAPH_NODE_TYPE_MEMCPY
              : node->op.kind == SIM_OP_MEMSET ? CU_GRAPH_NODE_TYPE_MEMSET
                                               : CU_GRAPH_NODE_TYPE_HOST;
      break;
    case GraphNode::Kind::MemAlloc: *type = CU_GRAPH_NODE_TYPE_MEM_ALLOC; break;
    case GraphNode::Kind::MemFree: *type = CU_GRAPH_NODE_TYPE_MEM_FREE; break;
    case GraphNode::Kind::Empty: *type = node->body_handles.empty() && has_children_locked(handle->id)
                                             ? CU_GRAPH_NODE_TYPE_GRAPH : CU_GRAPH_NODE_TYPE_EMPTY; break;
    case GraphNode::Kind::EventRecord: *type = CU_GRAPH_NODE_TYPE_EVENT_RECORD; break;
    case GraphNode::Kind::EventWait: *type = CU_GRAPH_NODE_TYPE_WAIT_EVENT; break;
    case GraphNode::Kind::Conditional: *type = CU_GRAPH_NODE_TYPE_CONDITIONAL; break;
  }
  return CUDA_SUCCESS;
}

CUresult graph_check_dependencies(CUgraph handle, const CUgraphNode* dependencies, size_t count) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || (count > 0 && dependencies == nullptr)) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (dependencies[i] == nullptr || !own_node_locked(*graph, dependencies[i]->id)) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult graph_dependencies(CUgraph handle, const CUgraphNode* from, const CUgraphNode* to, size_t count, bool add) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || (count > 0 && (from == nullptr || to == nullptr))) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (from[i] == nullptr || to[i] == nullptr || from[i] == to[i] || !own_node_locked(*graph, from[i]->id) ||
        !own_node_locked(*graph, to[i]->id)) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    auto edge = std::make_pair(from[i]->id, to[i]->id);
    auto found = std::find(graph->edges.begin(), graph->edges.end(), edge);
    if (add == (found != graph->edges.end())) return CUDA_ERROR_INVALID_VALUE;  // as CUDA: twice, or absent
  }
  for (size_t i = 0; i < count; ++i) {
    auto edge = std::make_pair(from[i]->id, to[i]->id);
    if (add) {
      graph->edges.push_back(edge);
    } else {
      graph->edges.erase(std::find(graph->edges.begin(), graph->edges.end(), edge));
    }
  }
  return CUDA_SUCCESS;
}

CUresult graph_edges(CUgraph handle, CUgraphNode* from, CUgraphNode* to, size_t* count) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || count == nullptr || ((from == nullptr) != (to == nullptr))) return CUDA_ERROR_INVALID_VALUE;
  if (from != nullptr) {
    size_t n = std::min(*count, graph->edges.size());
    for (size_t i = 0; i < n; ++i) {
      from[i] = node_handle_locked(graph->edges[i].first);
      to[i] = node_handle_locked(graph->edges[i].second);
    }
    for (size_t i = n; i < *count; ++i) from[i] = to[i] = nullptr;  // as CUDA: the rest are nulled
  }
  *count = graph->edges.size();
  return CUDA_SUCCESS;
}

CUresult graph_condition_create(CUgraphConditionalHandle* out, CUgraph handle, unsigned default_value,
                                unsigned flags) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || (flags & ~unsigned{CU_GRAPH_COND_ASSIGN_DEFAULT}) != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *out = m.next_condition++;
  // Before any launch the value is the default (an assumption: CUDA leaves it
  // undefined without CU_GRAPH_COND_ASSIGN_DEFAULT).
  m.graph_conditions[*out] = {graph->id, default_value, (flags & CU_GRAPH_COND_ASSIGN_DEFAULT) != 0, default_value};
  return CUDA_SUCCESS;
}

CUresult graph_add_conditional(CUgraphNode* out, CUgraph handle, CUDA_CONDITIONAL_NODE_PARAMS* params) {
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr || out == nullptr || params == nullptr || !m.graph_conditions.count(params->handle)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  bool size_ok = params->type == CU_GRAPH_COND_TYPE_IF       ? params->size == 1 || params->size == 2
                 : params->type == CU_GRAPH_COND_TYPE_WHILE  ? params->size == 1
                 : params->type == CU_GRAPH_COND_TYPE_SWITCH ? params->size > 0
                                                             : false;
  if (!size_ok) return CUDA_ERROR_INVALID_VALUE;
  GraphNode node;
  node.kind = GraphNode::Kind::Conditional;
  node.condition = params->handle;
  node.condition_type = params->type;
  m.condition_bodies.push_back(std::make_unique<CUgraph[]>(params->size));
  params->phGraph_out = m.condition_bodies.back().get();
  for (unsigned i = 0; i < params->size; ++i) {
    auto body = std::make_unique<CUgraph_st>();
    body->graph.id = m.next_graph_id++;
    params->phGraph_out[i] = body.get();
    node.body_handles.push_back(body.get());
    m.graphs.insert(body.get());
    m.all_graphs.push_back(std::move(body));
  }
  *out = add_locked(*graph, std::move(node));
  return CUDA_SUCCESS;
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
  std::unordered_map<uint64_t, uint64_t> renamed;  // the source's node ids -> the clone's
  for (const GraphNode& node : source->nodes) {
    GraphNode copy = node;
    if (copy.owner != 0) copy.owner = renamed[copy.owner];
    renamed[node.op.graph_node_id] = add_locked(clone->graph, std::move(copy))->id;
  }
  for (const auto& [from, to] : source->edges) clone->graph.edges.emplace_back(renamed[from], renamed[to]);
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
  // The graph's own nodes: a child graph node is one node, as in CUDA.
  size_t own = 0;
  for (const GraphNode& node : graph->nodes) {
    if (node.owner != 0) continue;
    if (nodes != nullptr && own < *count) nodes[own] = node_handle_locked(node.op.graph_node_id);
    ++own;
  }
  *count = own;
  return CUDA_SUCCESS;
}

CUresult graph_instantiate(CUgraphExec* out, CUgraph handle) {
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  Graph* graph = graph_locked(handle);
  if (graph == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  auto exec = std::make_unique<CUgraphExec_st>();
  exec->graph.id = graph->id;
  if (CUresult error = instantiate_locked(*graph, &exec->graph.nodes)) return error;
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
  std::vector<GraphNode> update;
  if (CUresult error = instantiate_locked(*graph, &update)) return error;
  bool same_shape = nodes.size() == update.size();
  for (size_t i = 0; same_shape && i < nodes.size(); ++i) {
    same_shape = nodes[i].kind == update[i].kind && nodes[i].op.kind == update[i].op.kind;
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
    nodes[i] = update[i];
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
  return set_kernel_locked(*target, params);
}

CUresult graph_upload(CUgraphExec exec, CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  if (exec == nullptr || !m.graph_execs.count(exec)) return CUDA_ERROR_INVALID_VALUE;
  CUresult error;
  if (resolve_stream_locked(handle, per_thread, &error) == nullptr) return error;
  return CUDA_SUCCESS;  // nothing to upload: the simulated device reads host memory
}

namespace {

// A graph launch's work, reported once the model's lock is released.
struct Launched {
  bool is_operation;
  SimOperation op;
  SimMemoryEvent memory;
};

// One graph launch being replayed onto its stream.
struct Replay {
  CUstream_st* stream;
  uint64_t queued_ns;  // when the launch enqueued the graph
  uint32_t graph_id;  // the launched graph's
  std::vector<CUgraphConditionalHandle> scope;  // the conditional nodes being run, innermost last
  std::vector<Launched> launched;
};

// A WHILE node whose handle nothing sets would run forever on a GPU; here
// its body runs this many times at most.
constexpr unsigned kMaxWhileIterations = 10000;

// What a kernel run from a graph sets a conditional handle to
// (cudaGraphSetConditional in its device code, which simcuda cannot run):
// SIMCUDA_GRAPH_CONDITIONS. The handle is that of the innermost conditional
// node being run, or outside bodies the first one made for the launched graph.
void kernel_sets_condition_locked(const SimOperation& op, Replay& replay) {
  const SimConfig& c = config();
  if (c.condition_rules.empty() || op.name == nullptr) return;
  Model& m = model();
  m.condition_rule_runs.resize(c.condition_rules.size(), 0);
  for (size_t i = 0; i < c.condition_rules.size(); ++i) {
    const ConditionRule& rule = c.condition_rules[i];
    if (!std::regex_search(op.name, rule.pattern)) continue;
    unsigned value = rule.values[m.condition_rule_runs[i]++ % rule.values.size()];
    CUgraphConditionalHandle target = 0;
    if (!replay.scope.empty()) {
      target = replay.scope.back();
    } else {
      for (const auto& [handle, condition] : m.graph_conditions) {
        if (condition.graph_id == replay.graph_id) {
          target = handle;
          break;
        }
      }
    }
    auto found = m.graph_conditions.find(target);
    if (found != m.graph_conditions.end()) found->second.value = value;
    return;
  }
}

// Every conditional handle of `nodes` (and of their bodies) set to its
// default, where it asks for that at each launch.
void assign_defaults_locked(const std::vector<GraphNode>& nodes) {
  Model& m = model();
  for (const GraphNode& node : nodes) {
    if (node.kind != GraphNode::Kind::Conditional) continue;
    auto found = m.graph_conditions.find(node.condition);
    if (found != m.graph_conditions.end() && found->second.assign_default) {
      found->second.value = found->second.default_value;
    }
    if (node.bodies) {
      for (const Graph& body : *node.bodies) assign_defaults_locked(body.nodes);
    }
  }
}

unsigned condition_value_locked(CUgraphConditionalHandle handle) {
  auto found = model().graph_conditions.find(handle);
  return found == model().graph_conditions.end() ? 0 : found->second.value;
}

// A graph memory node: its record at the launch (CUPTI's, with the launch's
// correlation id); the memory of a free node goes back once the node's turn comes.
void replay_memory_node_locked(const GraphNode& node, Replay& replay, Device& device, uint64_t start_ns) {
  Model& m = model();
  CUstream_st* stream = replay.stream;
  CUctx_st* context = stream->context;
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
    if (found == m.allocations.end()) return;  // freed already
    event.operation = SIM_MEMORY_RELEASE;
    event.bytes = found->second.bytes;
    if (!m.graph_reserved.count(address)) {
      // Memory that is not the graph's own goes back when the launch reaches the node.
      device.allocated_bytes -= found->second.bytes;
      m.allocations.erase(found);
      run_at(start_ns, [address] { std::free(reinterpret_cast<void*>(address)); });
    }
  }
  replay.launched.push_back({false, {}, event});
}



uint64_t replay_locked(const std::vector<GraphNode>& nodes, Replay& replay, uint64_t ready_ns);

// A conditional node's bodies, from `ready_ns`; returns when they end (a WHILE
// loop's iterations one after the other).
uint64_t replay_conditional_locked(const GraphNode& node, Replay& replay, uint64_t ready_ns) {
  if (!node.bodies || node.bodies->empty()) return ready_ns;
  const std::vector<Graph>& bodies = *node.bodies;
  replay.scope.push_back(node.condition);
  unsigned value = condition_value_locked(node.condition);
  uint64_t end_ns = ready_ns;
  switch (node.condition_type) {
    case CU_GRAPH_COND_TYPE_IF:
      if (value != 0) {
        end_ns = replay_locked(bodies[0].nodes, replay, ready_ns);
      } else if (bodies.size() == 2) {
        end_ns = replay_locked(bodies[1].nodes, replay, ready_ns);  // the ELSE body
      }
      break;
    case CU_GRAPH_COND_TYPE_WHILE:
      for (unsigned i = 0; i < kMaxWhileIterations && condition_value_locked(node.condition) != 0; ++i) {
        end_ns = replay_locked(bodies[0].nodes, replay, end_ns);
      }
      break;
    case CU_GRAPH_COND_TYPE_SWITCH:
      if (value < bodies.size()) end_ns = replay_locked(bodies[value].nodes, replay, ready_ns);
      break;
    default:
      break;
  }
  replay.scope.pop_back();
  return end_ns;
}

// Each node starts at `ready_ns` or once the nodes it waits for have ended,
// whichever is later; returns when the last of them ends. All of their work
// is on the launch stream and carries the correlation id of this graph
// launch, as CUPTI reports it. Which independent nodes a GPU runs at once is
// an assumption here: all of them, at once (no limit of SMs or copy engines).
uint64_t replay_locked(const std::vector<GraphNode>& nodes, Replay& replay, uint64_t ready_ns) {
  Model& m = model();
  CUstream_st* stream = replay.stream;
  CUctx_st* context = stream->context;
  Device& device = m.devices[static_cast<size_t>(context->device)];
  std::vector<uint64_t> end_of(nodes.size(), ready_ns);
  uint64_t last_end = ready_ns;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GraphNode& node = nodes[i];
    uint64_t start = ready_ns;
    for (uint32_t before : node.waits_for) start = std::max(start, end_of[before]);
    uint64_t& end = end_of[i];
    end = start;
    if (node.kind == GraphNode::Kind::Operation) {
      SimOperation op = node.op;
      op.correlation_id = 0;
      place_operation_locked(stream, op, replay.queued_ns, start, node.duration_ns, node.faults, node.move_data);
      end = op.end_ns;
      replay.launched.push_back({true, op, {}});
      if (op.kind == SIM_OP_KERNEL) kernel_sets_condition_locked(op, replay);
    } else if (node.kind == GraphNode::Kind::Conditional) {
      end = replay_conditional_locked(node, replay, start);
    } else if (node.kind == GraphNode::Kind::EventRecord || node.kind == GraphNode::Kind::EventWait) {
      CUevent event = node.event;
      if (m.events.count(event)) {  // else destroyed since: nothing to record or wait for
        if (node.kind == GraphNode::Kind::EventRecord) {  // as cuEventRecord after the nodes before it
          event->recorded = true;
          event->capture = nullptr;
          event->complete_at_ns = start;
        } else if (event->recorded) {
          end = std::max(start, event->complete_at_ns);
        }
      }
    } else if (node.kind == GraphNode::Kind::MemAlloc || node.kind == GraphNode::Kind::MemFree) {
      replay_memory_node_locked(node, replay, device, start);
    }
    last_end = std::max(last_end, end);
  }
  return last_end;
}

}  // namespace

CUresult graph_launch(CUgraphExec exec, CUstream handle, bool per_thread) {
  Model& m = model();
  Lock lock(m.mutex);
  if (exec == nullptr || !m.graph_execs.count(exec)) return CUDA_ERROR_INVALID_HANDLE;
  CUresult error;
  CUstream_st* stream = work_stream_locked(handle, per_thread, &error);
  if (stream == nullptr) return error;
  // A graph launch is one item of its stream's queue.
  wait_for_queue_slot_locked(lock, stream);
  if (!m.graph_execs.count(exec)) return CUDA_ERROR_INVALID_HANDLE;  // destroyed while waiting
  uint64_t now = now_ns();
  Replay replay{stream, now, exec->graph.id, {}, {}};
  std::vector<GraphNode> nodes = exec->graph.nodes;
  assign_defaults_locked(nodes);
  uint64_t start = std::max(now + config().launch_latency_ns, stream_frontier_locked(stream));
  uint64_t end = replay_locked(nodes, replay, start);
  stream->ready_at_ns = std::max(stream->ready_at_ns, end);
  stream->pending_end_ns.push_back(end);
  lock.unlock();
  for (const Launched& item : replay.launched) {
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
