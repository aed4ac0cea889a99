// Runtime API bodies (see runtime_impl.h): streams, events, stream capture and graphs.
#include "driver_per_thread.h"
#include "runtime_impl.h"
#include "runtime_scope.h"

namespace simcuda_rt::impl {

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  SIM_IN_CONTEXT(cuStreamCreate(pStream, 0));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  SIM_IN_CONTEXT(cuStreamCreate(pStream, flags));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  SIM_IN_CONTEXT(cuStreamCreateWithPriority(pStream, flags, priority));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  SIM_IN_CONTEXT(cuStreamDestroy(stream));
}

cudaError_t cudaStreamSynchronize(bool per_thread, cudaStream_t stream) {
  SIM_IN_CONTEXT(SIM_PT(cuStreamSynchronize, ptsz)(stream));
}

cudaError_t cudaStreamQuery(bool per_thread, cudaStream_t stream) {
  SIM_IN_CONTEXT(SIM_PT(cuStreamQuery, ptsz)(stream));
}

cudaError_t cudaStreamWaitEvent(bool per_thread, cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  SIM_IN_CONTEXT(SIM_PT(cuStreamWaitEvent, ptsz)(stream, event, flags));
}

cudaError_t cudaStreamGetId(bool per_thread, cudaStream_t hStream, unsigned long long* streamId) {
  SIM_IN_CONTEXT(SIM_PT(cuStreamGetId, ptsz)(hStream, streamId));
}

cudaError_t cudaStreamBeginCapture(bool per_thread, cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  SIM_IN_CONTEXT(SIM_PT(cuStreamBeginCapture_v2, ptsz)(stream, static_cast<CUstreamCaptureMode>(mode)));
}

cudaError_t cudaStreamEndCapture(bool per_thread, cudaStream_t stream, cudaGraph_t* pGraph) {
  SIM_IN_CONTEXT(SIM_PT(cuStreamEndCapture, ptsz)(stream, pGraph));
}

cudaError_t cudaStreamIsCapturing(bool per_thread, cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus) {
  SIM_IN_CONTEXT(SIM_PT(cuStreamIsCapturing, ptsz)(stream, reinterpret_cast<CUstreamCaptureStatus*>(pCaptureStatus)));
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  SIM_IN_CONTEXT(cuEventCreate(event, CU_EVENT_DEFAULT));
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  SIM_IN_CONTEXT(cuEventCreate(event, flags));
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  SIM_IN_CONTEXT(cuEventDestroy(event));
}

cudaError_t cudaEventRecord(bool per_thread, cudaEvent_t event, cudaStream_t stream) {
  SIM_IN_CONTEXT(SIM_PT(cuEventRecord, ptsz)(event, stream));
}

cudaError_t cudaEventRecordWithFlags(bool per_thread, cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  SIM_IN_CONTEXT(SIM_PT(cuEventRecordWithFlags, ptsz)(event, stream, flags));
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  SIM_IN_CONTEXT(cuEventSynchronize(event));
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  SIM_IN_CONTEXT(cuEventQuery(event));
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  SIM_IN_CONTEXT(cuEventElapsedTime(ms, start, end));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                           unsigned long long flags) {
  SIM_IN_CONTEXT(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                    unsigned long long flags) {
  SIM_IN_CONTEXT(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
}

cudaError_t cudaGraphLaunch(bool per_thread, cudaGraphExec_t graphExec, cudaStream_t stream) {
  SIM_IN_CONTEXT(SIM_PT(cuGraphLaunch, ptsz)(graphExec, stream));
}

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  SIM_IN_CONTEXT(cuGraphCreate(pGraph, flags));
}

namespace {

cudaError_t driver_kernel_params(const cudaKernelNodeParams* p, CUDA_KERNEL_NODE_PARAMS* out) {
  if (p == nullptr) return cudaErrorInvalidValue;
  RegisteredKernel* kernel = kernel_for_stub(p->func);
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;
  *out = {};
  if (cudaError_t error = kernel_function(kernel, &out->func)) return error;
  out->gridDimX = p->gridDim.x, out->gridDimY = p->gridDim.y, out->gridDimZ = p->gridDim.z;
  out->blockDimX = p->blockDim.x, out->blockDimY = p->blockDim.y, out->blockDimZ = p->blockDim.z;
  out->sharedMemBytes = p->sharedMemBytes;
  out->kernelParams = p->kernelParams;
  out->extra = p->extra;
  return cudaSuccess;
}

}  // namespace

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const struct cudaKernelNodeParams* pNodeParams) {
  CUDA_KERNEL_NODE_PARAMS params;
  if (cudaError_t error = driver_kernel_params(pNodeParams, &params)) return error;
  return from_driver(cuGraphAddKernelNode(pGraphNode, graph, pDependencies, numDependencies, &params));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dst,
                                     const void* src, size_t count, enum cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  SIM_NEED_CONTEXT();
  CUDA_MEMCPY3D c{};
  set_copy_ends(c, dst, src, kind);
  c.WidthInBytes = count;
  c.Height = 1;
  c.Depth = 1;
  return from_driver(cuGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &c, nullptr));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const struct cudaMemsetParams* p) {
  if (p == nullptr) return cudaErrorInvalidValue;
  SIM_NEED_CONTEXT();
  CUDA_MEMSET_NODE_PARAMS params{reinterpret_cast<CUdeviceptr>(p->dst), p->pitch, p->value, p->elementSize, p->width,
                                 p->height};
  return from_driver(cuGraphAddMemsetNode(pGraphNode, graph, pDependencies, numDependencies, &params, nullptr));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                 size_t numDependencies, const struct cudaHostNodeParams* p) {
  if (p == nullptr) return cudaErrorInvalidValue;
  SIM_NEED_CONTEXT();
  CUDA_HOST_NODE_PARAMS params{p->fn, p->userData};
  return from_driver(cuGraphAddHostNode(pGraphNode, graph, pDependencies, numDependencies, &params));
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams* nodeParams) {
  if (nodeParams == nullptr) return cudaErrorInvalidValue;
  SIM_NEED_CONTEXT();
  CUDA_MEM_ALLOC_NODE_PARAMS params{};
  params.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  params.poolProps.location.type = static_cast<CUmemLocationType>(nodeParams->poolProps.location.type);
  params.poolProps.location.id = nodeParams->poolProps.location.id;
  params.bytesize = nodeParams->bytesize;
  SIM_TRY(cuGraphAddMemAllocNode(pGraphNode, graph, pDependencies, numDependencies, &params));
  nodeParams->dptr = reinterpret_cast<void*>(params.dptr);
  return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                    size_t numDependencies, void* dptr) {
  SIM_IN_CONTEXT(cuGraphAddMemFreeNode(pGraphNode, graph, pDependencies, numDependencies,
                                           reinterpret_cast<CUdeviceptr>(dptr)));
}

cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  SIM_IN_CONTEXT(cuGraphClone(pGraphClone, originalGraph));
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  SIM_IN_CONTEXT(cuGraphGetNodes(graph, nodes, numNodes));
}

cudaError_t cudaGraphUpload(bool per_thread, cudaGraphExec_t graphExec, cudaStream_t stream) {
  SIM_IN_CONTEXT(SIM_PT(cuGraphUpload, ptsz)(graphExec, stream));
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo* resultInfo) {
  SIM_NEED_CONTEXT();
  // The runtime's result info has the driver's layout and values.
  return from_driver(
      cuGraphExecUpdate(hGraphExec, hGraph, reinterpret_cast<CUgraphExecUpdateResultInfo*>(resultInfo)));
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams* pNodeParams) {
  CUDA_KERNEL_NODE_PARAMS params;
  if (cudaError_t error = driver_kernel_params(pNodeParams, &params)) return error;
  return from_driver(cuGraphExecKernelNodeSetParams(hGraphExec, node, &params));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                  size_t numDependencies) {
  SIM_IN_CONTEXT(cuGraphAddEmptyNode(pGraphNode, graph, pDependencies, numDependencies));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                        const cudaGraphNode_t* pDependencies, size_t numDependencies, cudaEvent_t event) {
  SIM_IN_CONTEXT(cuGraphAddEventRecordNode(pGraphNode, graph, pDependencies, numDependencies, event));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                      const cudaGraphNode_t* pDependencies, size_t numDependencies, cudaEvent_t event) {
  SIM_IN_CONTEXT(cuGraphAddEventWaitNode(pGraphNode, graph, pDependencies, numDependencies, event));
}

namespace {

// A 3D copy description (pointer or array ends, any depth): the driver's CUDA_MEMCPY3D.
cudaError_t driver_copy_3d(const cudaMemcpy3DParms* p, CUDA_MEMCPY3D* c) {
  if (p == nullptr) return cudaErrorInvalidValue;
  if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  *c = {};
  set_copy_ends(*c, p->dstPtr.ptr, p->srcPtr.ptr, p->kind);
  // Positions count their object's elements (a pointer's are bytes); the
  // extent counts the elements of the array taking part, if one does.
  size_t src_element = 1, dst_element = 1;
  if (p->srcArray != nullptr) {
    c->srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c->srcArray = reinterpret_cast<CUarray>(p->srcArray);
    src_element = array_element_bytes(p->srcArray);
  }
  if (p->dstArray != nullptr) {
    c->dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c->dstArray = reinterpret_cast<CUarray>(p->dstArray);
    dst_element = array_element_bytes(p->dstArray);
  }
  size_t extent_element = p->srcArray != nullptr ? src_element : dst_element;
  c->srcXInBytes = p->srcPos.x * src_element;
  c->srcY = p->srcPos.y;
  c->srcZ = p->srcPos.z;
  c->srcPitch = p->srcPtr.pitch;
  c->srcHeight = p->srcPtr.ysize;
  c->dstXInBytes = p->dstPos.x * dst_element;
  c->dstY = p->dstPos.y;
  c->dstZ = p->dstPos.z;
  c->dstPitch = p->dstPtr.pitch;
  c->dstHeight = p->dstPtr.ysize;
  c->WidthInBytes = p->extent.width * extent_element;
  c->Height = p->extent.height;
  c->Depth = p->extent.depth;
  return cudaSuccess;
}

cudaError_t driver_copy_1d(void* dst, const void* src, size_t count, cudaMemcpyKind kind, CUDA_MEMCPY3D* c) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  *c = {};
  set_copy_ends(*c, dst, src, kind);
  c->WidthInBytes = count;
  c->Height = 1;
  c->Depth = 1;
  return cudaSuccess;
}

CUDA_MEMSET_NODE_PARAMS driver_memset(const cudaMemsetParams& p) {
  CUDA_MEMSET_NODE_PARAMS params{};
  params.dst = reinterpret_cast<CUdeviceptr>(p.dst);
  params.pitch = p.pitch;
  params.value = p.value;
  params.elementSize = p.elementSize;
  params.width = p.width;
  params.height = p.height;
  return params;
}

}  // namespace

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const struct cudaMemcpy3DParms* p) {
  CUDA_MEMCPY3D c;
  if (cudaError_t error = driver_copy_3d(p, &c)) return error;
  SIM_NEED_CONTEXT();
  return from_driver(cuGraphAddMemcpyNode(pGraphNode, graph, pDependencies, numDependencies, &c, nullptr));
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms* pNodeParams) {
  CUDA_MEMCPY3D c;
  if (cudaError_t error = driver_copy_3d(pNodeParams, &c)) return error;
  SIM_IN_CONTEXT(cuGraphMemcpyNodeSetParams(node, &c));
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src, size_t count,
                                           enum cudaMemcpyKind kind) {
  CUDA_MEMCPY3D c;
  if (cudaError_t error = driver_copy_1d(dst, src, count, kind, &c)) return error;
  SIM_IN_CONTEXT(cuGraphMemcpyNodeSetParams(node, &c));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemcpy3DParms* pNodeParams) {
  CUDA_MEMCPY3D c;
  if (cudaError_t error = driver_copy_3d(pNodeParams, &c)) return error;
  SIM_IN_CONTEXT(cuGraphExecMemcpyNodeSetParams(hGraphExec, node, &c, nullptr));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node, void* dst,
                                               const void* src, size_t count, enum cudaMemcpyKind kind) {
  CUDA_MEMCPY3D c;
  if (cudaError_t error = driver_copy_1d(dst, src, count, kind, &c)) return error;
  SIM_IN_CONTEXT(cuGraphExecMemcpyNodeSetParams(hGraphExec, node, &c, nullptr));
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams* pNodeParams) {
  if (pNodeParams == nullptr) return cudaErrorInvalidValue;
  CUDA_MEMSET_NODE_PARAMS params = driver_memset(*pNodeParams);
  SIM_IN_CONTEXT(cuGraphMemsetNodeSetParams(node, &params));
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams* pNodeParams) {
  if (pNodeParams == nullptr) return cudaErrorInvalidValue;
  CUDA_MEMSET_NODE_PARAMS params{};
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphMemsetNodeGetParams(node, &params));
  *pNodeParams = {};
  pNodeParams->dst = reinterpret_cast<void*>(params.dst);
  pNodeParams->pitch = params.pitch;
  pNodeParams->value = params.value;
  pNodeParams->elementSize = params.elementSize;
  pNodeParams->width = params.width;
  pNodeParams->height = params.height;
  return cudaSuccess;
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaMemsetParams* pNodeParams) {
  if (pNodeParams == nullptr) return cudaErrorInvalidValue;
  CUDA_MEMSET_NODE_PARAMS params = driver_memset(*pNodeParams);
  SIM_IN_CONTEXT(cuGraphExecMemsetNodeSetParams(hGraphExec, node, &params, nullptr));
}

// The driver's description back as the runtime's (driver_copy_3d undone): a
// pointer end's pitch and height, an array end, positions and extent in
// elements, the direction from the ends' memory types.
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms* pNodeParams) {
  if (pNodeParams == nullptr) return cudaErrorInvalidValue;
  CUDA_MEMCPY3D c{};
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphMemcpyNodeGetParams(node, &c));
  cudaMemcpy3DParms& p = *pNodeParams;
  p = {};
  size_t src_element = 1, dst_element = 1;
  if (c.srcMemoryType == CU_MEMORYTYPE_ARRAY) {
    p.srcArray = reinterpret_cast<cudaArray_t>(c.srcArray);
    src_element = array_element_bytes(p.srcArray);
  } else {
    p.srcPtr = {const_cast<void*>(c.srcHost), c.srcPitch, c.WidthInBytes, c.srcHeight};
  }
  if (c.dstMemoryType == CU_MEMORYTYPE_ARRAY) {
    p.dstArray = reinterpret_cast<cudaArray_t>(c.dstArray);
    dst_element = array_element_bytes(p.dstArray);
  } else {
    p.dstPtr = {c.dstHost, c.dstPitch, c.WidthInBytes, c.dstHeight};
  }
  size_t extent_element = p.srcArray != nullptr ? src_element : dst_element;
  p.srcPos = {c.srcXInBytes / src_element, c.srcY, c.srcZ};
  p.dstPos = {c.dstXInBytes / dst_element, c.dstY, c.dstZ};
  p.extent = {c.WidthInBytes / extent_element, c.Height, c.Depth};
  auto on_device = [](CUmemorytype type) { return type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY; };
  p.kind = c.srcMemoryType == CU_MEMORYTYPE_UNIFIED || c.dstMemoryType == CU_MEMORYTYPE_UNIFIED
               ? cudaMemcpyDefault
               : on_device(c.srcMemoryType) ? (on_device(c.dstMemoryType) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                                             : (on_device(c.dstMemoryType) ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
  return cudaSuccess;
}

// cudaHostNodeParams has CUDA_HOST_NODE_PARAMS's layout.
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams* pNodeParams) {
  SIM_IN_CONTEXT(cuGraphHostNodeGetParams(node, reinterpret_cast<CUDA_HOST_NODE_PARAMS*>(pNodeParams)));
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams* pNodeParams) {
  SIM_IN_CONTEXT(cuGraphHostNodeSetParams(node, reinterpret_cast<const CUDA_HOST_NODE_PARAMS*>(pNodeParams)));
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                           const struct cudaHostNodeParams* pNodeParams) {
  SIM_IN_CONTEXT(
      cuGraphExecHostNodeSetParams(hGraphExec, node, reinterpret_cast<const CUDA_HOST_NODE_PARAMS*>(pNodeParams)));
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
  SIM_IN_CONTEXT(cuGraphEventRecordNodeGetEvent(node, event_out));
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  SIM_IN_CONTEXT(cuGraphEventRecordNodeSetEvent(node, event));
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event_out) {
  SIM_IN_CONTEXT(cuGraphEventWaitNodeGetEvent(node, event_out));
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  SIM_IN_CONTEXT(cuGraphEventWaitNodeSetEvent(node, event));
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event) {
  SIM_IN_CONTEXT(cuGraphExecEventRecordNodeSetEvent(hGraphExec, hNode, event));
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, cudaEvent_t event) {
  SIM_IN_CONTEXT(cuGraphExecEventWaitNodeSetEvent(hGraphExec, hNode, event));
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) { SIM_IN_CONTEXT(cuGraphDestroyNode(node)); }

// cudaGraphNodeType has CUgraphNodeType's values.
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* pType) {
  SIM_IN_CONTEXT(cuGraphNodeGetType(node, reinterpret_cast<CUgraphNodeType*>(pType)));
}

// cudaGraphEdgeData has CUgraphEdgeData's layout.
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const cudaGraphEdgeData* edgeData, size_t numDependencies) {
  SIM_IN_CONTEXT(cuGraphAddDependencies(graph, from, to, reinterpret_cast<const CUgraphEdgeData*>(edgeData),
                                        numDependencies));
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                        const cudaGraphEdgeData* edgeData, size_t numDependencies) {
  SIM_IN_CONTEXT(cuGraphRemoveDependencies(graph, from, to, reinterpret_cast<const CUgraphEdgeData*>(edgeData),
                                           numDependencies));
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edgeData, size_t* numEdges) {
  SIM_IN_CONTEXT(cuGraphGetEdges(graph, from, to, reinterpret_cast<CUgraphEdgeData*>(edgeData), numEdges));
}

// The node kinds simcuda's driver adds through cuGraphAddNode: conditional and empty.
cudaError_t cudaGraphAddNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                             const cudaGraphEdgeData* dependencyData, size_t numDependencies,
                             struct cudaGraphNodeParams* nodeParams) {
  if (nodeParams == nullptr) return cudaErrorInvalidValue;
  SIM_NEED_CONTEXT();
  CUgraphNodeParams params{};
  params.type = static_cast<CUgraphNodeType>(nodeParams->type);
  if (nodeParams->type == cudaGraphNodeTypeConditional) {
    const cudaConditionalNodeParams& in = nodeParams->conditional;
    params.conditional.handle = in.handle;
    params.conditional.type = static_cast<CUgraphConditionalNodeType>(in.type);
    params.conditional.size = in.size;
    if (cuCtxGetCurrent(&params.conditional.ctx) != CUDA_SUCCESS) return cudaErrorInvalidValue;
  } else if (nodeParams->type != cudaGraphNodeTypeEmpty) {
    return cudaErrorNotSupported;
  }
  SIM_TRY(cuGraphAddNode(pGraphNode, graph, pDependencies, reinterpret_cast<const CUgraphEdgeData*>(dependencyData),
                         numDependencies, &params));
  // The body graphs, in an array the driver owns.
  if (nodeParams->type == cudaGraphNodeTypeConditional) {
    nodeParams->conditional.phGraph_out = params.conditional.phGraph_out;
  }
  return cudaSuccess;
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* pHandle_out, cudaGraph_t graph,
                                             unsigned int defaultLaunchValue, unsigned int flags) {
  SIM_NEED_CONTEXT();
  CUcontext context = nullptr;
  SIM_TRY(cuCtxGetCurrent(&context));
  // cudaGraphConditionalHandle and CUgraphConditionalHandle are both 64-bit.
  return from_driver(cuGraphConditionalHandleCreate(reinterpret_cast<CUgraphConditionalHandle*>(pHandle_out), graph,
                                                    context, defaultLaunchValue, flags));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                       cudaGraph_t childGraph) {
  SIM_IN_CONTEXT(cuGraphAddChildGraphNode(pGraphNode, graph, pDependencies, numDependencies, childGraph));
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams* pNodeParams) {
  CUDA_KERNEL_NODE_PARAMS params;
  if (cudaError_t error = driver_kernel_params(pNodeParams, &params)) return error;
  return from_driver(cuGraphKernelNodeSetParams(node, &params));
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams* pNodeParams) {
  if (pNodeParams == nullptr) return cudaErrorInvalidValue;
  SIM_NEED_CONTEXT();
  CUDA_KERNEL_NODE_PARAMS params{};
  SIM_TRY(cuGraphKernelNodeGetParams(node, &params));
  *pNodeParams = {};
  pNodeParams->func = const_cast<void*>(stub_of_function(params.func));
  pNodeParams->gridDim = dim3(params.gridDimX, params.gridDimY, params.gridDimZ);
  pNodeParams->blockDim = dim3(params.blockDimX, params.blockDimY, params.blockDimZ);
  pNodeParams->sharedMemBytes = params.sharedMemBytes;
  pNodeParams->kernelParams = params.kernelParams;
  pNodeParams->extra = params.extra;
  return cudaSuccess;
}

// cudaGraphMemAttributeType has CUgraphMem_attribute's values.
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value) {
  if (cudaError_t error = ensure_driver()) return error;
  return from_driver(cuDeviceGetGraphMemAttribute(device, static_cast<CUgraphMem_attribute>(attr), value));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  SIM_IN_CONTEXT(cuGraphExecDestroy(graphExec));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  SIM_IN_CONTEXT(cuGraphDestroy(graph));
}


cudaError_t cudaLaunchHostFunc(bool per_thread, cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  SIM_IN_CONTEXT(SIM_PT(cuLaunchHostFunc, ptsz)(stream, fn, userData));
}

namespace {

// A runtime stream callback behind the driver's callback type (their status
// arguments are different enum types of equal values).
struct RuntimeCallback {
  cudaStreamCallback_t callback;
  void* user_data;
};

void CUDA_CB call_runtime_callback(CUstream stream, CUresult status, void* data) {
  auto* call = static_cast<RuntimeCallback*>(data);
  call->callback(stream, from_driver(status), call->user_data);
  delete call;
}

}  // namespace

cudaError_t cudaStreamAddCallback(bool per_thread, cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                  unsigned int flags) {
  if (callback == nullptr) return cudaErrorInvalidValue;
  SIM_NEED_CONTEXT();
  auto* call = new RuntimeCallback{callback, userData};
  CUresult result = SIM_PT(cuStreamAddCallback, ptsz)(stream, call_runtime_callback, call, flags);
  if (result != CUDA_SUCCESS) delete call;
  return from_driver(result);
}

cudaError_t cudaStreamAttachMemAsync(bool per_thread, cudaStream_t stream, void* devPtr, size_t length,
                                     unsigned int flags) {
  SIM_IN_CONTEXT(
      SIM_PT(cuStreamAttachMemAsync, ptsz)(stream, reinterpret_cast<CUdeviceptr>(devPtr), length, flags));
}

}  // namespace simcuda_rt::impl
