// Driver API bodies (see driver_impl.h): streams, events, stream capture and graphs.
#include "driver_impl.h"
#include "device_model.h"

namespace simcuda::impl {

CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  return stream_create(phStream, Flags, 0);
}

CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  return stream_create(phStream, flags, priority);
}

CUresult cuStreamDestroy_v2(CUstream hStream) {
  return stream_destroy(hStream);
}

CUresult cuStreamSynchronize(bool per_thread, CUstream hStream) {
  return stream_synchronize(hStream, per_thread);
}

CUresult cuStreamQuery(bool per_thread, CUstream hStream) {
  return stream_query(hStream, per_thread);
}

CUresult cuStreamWaitEvent(bool per_thread, CUstream hStream, CUevent hEvent, unsigned int) {
  return stream_wait_event(hStream, hEvent, per_thread);
}

CUresult cuStreamGetFlags(bool per_thread, CUstream hStream, unsigned int* flags) {
  return stream_flags(hStream, flags, per_thread);
}

CUresult cuStreamGetPriority(bool per_thread, CUstream hStream, int* priority) {
  return stream_priority(hStream, priority, per_thread);
}

CUresult cuStreamGetId(bool per_thread, CUstream hStream, unsigned long long* streamId) {
  return stream_id(hStream, streamId, per_thread);
}

CUresult cuStreamBeginCapture_v2(bool per_thread, CUstream hStream, CUstreamCaptureMode mode) {
  return stream_begin_capture(hStream, mode, per_thread);
}

CUresult cuStreamEndCapture(bool per_thread, CUstream hStream, CUgraph* phGraph) {
  return stream_end_capture(hStream, phGraph, per_thread);
}

CUresult cuStreamIsCapturing(bool per_thread, CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  return stream_is_capturing(hStream, captureStatus, per_thread);
}

CUresult cuLaunchHostFunc(bool per_thread, CUstream hStream, CUhostFn fn, void* userData) {
  if (fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return enqueue_host_function(hStream, per_thread, [fn, userData] { fn(userData); });
}

CUresult cuStreamAddCallback(bool per_thread, CUstream hStream, CUstreamCallback callback, void* userData,
                             unsigned int flags) {
  if (callback == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  // A callback learns its stream's status; work before it has succeeded, or the
  // launch would have failed.
  return enqueue_host_function(hStream, per_thread,
                               [callback, hStream, userData] { callback(hStream, CUDA_SUCCESS, userData); });
}

CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  return event_create(phEvent, Flags);
}

CUresult cuEventDestroy_v2(CUevent hEvent) {
  return event_destroy(hEvent);
}

CUresult cuEventRecord(bool per_thread, CUevent hEvent, CUstream hStream) {
  return event_record(hEvent, hStream, per_thread);
}
CUresult cuEventRecordWithFlags(bool per_thread, CUevent hEvent, CUstream hStream, unsigned int) {
  return event_record(hEvent, hStream, per_thread);
}

CUresult cuEventSynchronize(CUevent hEvent) {
  return event_synchronize(hEvent);
}

CUresult cuEventQuery(CUevent hEvent) {
  return event_query(hEvent);
}

CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  return event_elapsed_ms(pMilliseconds, hStart, hEnd);
}
CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  return event_elapsed_ms(pMilliseconds, hStart, hEnd);
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long) {
  return graph_instantiate(phGraphExec, hGraph);
}

CUresult cuGraphLaunch(bool per_thread, CUgraphExec hGraphExec, CUstream hStream) {
  return graph_launch(hGraphExec, hStream, per_thread);
}

CUresult cuGraphCreate(CUgraph* phGraph, unsigned int flags) {
  return flags == 0 ? graph_create(phGraph) : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                 size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_kernel(phGraphNode, hGraph, nodeParams); });
}

CUresult cuGraphAddHostNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                            size_t numDependencies, const CUDA_HOST_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr || nodeParams->fn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_host(phGraphNode, hGraph, *nodeParams); });
}

CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS* nodeParams) {
  return graph_get_host(hNode, nodeParams);
}

CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS* nodeParams) {
  return graph_set_host(nullptr, hNode, nodeParams);
}

CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                      const CUDA_HOST_NODE_PARAMS* nodeParams) {
  if (hGraphExec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_set_host(hGraphExec, hNode, nodeParams);
}

CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent* event_out) {
  return graph_get_event(hNode, event_out, false);
}

CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event) {
  return graph_set_event(nullptr, hNode, event, false);
}

CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent* event_out) {
  return graph_get_event(hNode, event_out, true);
}

CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event) {
  return graph_set_event(nullptr, hNode, event, true);
}

CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event) {
  if (hGraphExec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_set_event(hGraphExec, hNode, event, false);
}

CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event) {
  if (hGraphExec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_set_event(hGraphExec, hNode, event, true);
}

CUresult cuGraphDestroyNode(CUgraphNode hNode) { return graph_destroy_node(hNode); }

CUresult cuGraphAddMemAllocNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode, [&] {
    return graph_add_alloc(phGraphNode, hGraph, nodeParams->bytesize, &nodeParams->dptr);
  });
}

CUresult cuGraphAddMemFreeNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                               size_t numDependencies, CUdeviceptr dptr) {
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_free(phGraphNode, hGraph, dptr); });
}

CUresult cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                             size_t numDependencies) {
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_empty(phGraphNode, hGraph); });
}

CUresult cuGraphAddEventRecordNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                   size_t numDependencies, CUevent event) {
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_event(phGraphNode, hGraph, event, false); });
}

CUresult cuGraphAddEventWaitNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                 size_t numDependencies, CUevent event) {
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_event(phGraphNode, hGraph, event, true); });
}

CUresult cuGraphAddChildGraphNode(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                                  size_t numDependencies, CUgraph childGraph) {
  return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                        [&] { return graph_add_child(phGraphNode, hGraph, childGraph); });
}

// cuGraphAddNode: the node kinds NVIDIA's samples add through it (conditional
// nodes, which have no cuGraphAdd*Node of their own) and empty ones.
CUresult cuGraphAddNode_v2(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                           const CUgraphEdgeData*, size_t numDependencies, CUgraphNodeParams* nodeParams) {
  if (nodeParams == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (nodeParams->type) {
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
      return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                            [&] { return graph_add_conditional(phGraphNode, hGraph, &nodeParams->conditional); });
    case CU_GRAPH_NODE_TYPE_EMPTY:
      return graph_add_node(hGraph, dependencies, numDependencies, phGraphNode,
                            [&] { return graph_add_empty(phGraphNode, hGraph); });
    default:
      return CUDA_ERROR_NOT_SUPPORTED;
  }
}

CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle* pHandle_out, CUgraph hGraph, CUcontext,
                                        unsigned int defaultLaunchValue, unsigned int flags) {
  return graph_condition_create(pHandle_out, hGraph, defaultLaunchValue, flags);
}

CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                                   const CUgraphEdgeData*, size_t numDependencies) {
  return graph_dependencies(hGraph, from, to, numDependencies, true);
}

CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                                      const CUgraphEdgeData*, size_t numDependencies) {
  return graph_dependencies(hGraph, from, to, numDependencies, false);
}

// Every edge is a plain one (edge data all zero).
CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edgeData,
                            size_t* numEdges) {
  CUresult error = graph_edges(hGraph, from, to, numEdges);
  if (error == CUDA_SUCCESS && edgeData != nullptr && from != nullptr) {
    for (size_t i = 0; i < *numEdges; ++i) edgeData[i] = CUgraphEdgeData{};
  }
  return error;
}

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) { return graph_node_type(hNode, type); }

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return graph_get_kernel(hNode, nodeParams);
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return graph_set_kernel(hNode, nodeParams);
}

CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void* value) {
  return graph_memory_attribute(device, attr, value);
}

CUresult cuGraphClone(CUgraph* phGraphClone, CUgraph originalGraph) { return graph_clone(phGraphClone, originalGraph); }

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
  return graph_nodes(hGraph, nodes, numNodes);
}

CUresult cuGraphUpload(bool per_thread, CUgraphExec hGraphExec, CUstream hStream) {
  return graph_upload(hGraphExec, hStream, per_thread);
}

CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo* resultInfo) {
  return graph_exec_update(hGraphExec, hGraph, resultInfo);
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                           const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return graph_exec_set_kernel(hGraphExec, hNode, nodeParams);
}

CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  return graph_exec_destroy(hGraphExec);
}

CUresult cuGraphDestroy(CUgraph hGraph) {
  return graph_destroy(hGraph);
}

}  // namespace simcuda::impl
