// Exported runtime API: streams, events, stream capture and graphs.
#include "driver_per_thread.h"
#include "runtime_scope.h"
#include "runtime_state.h"

using namespace simcuda_rt;

#define SIM_NEED_CONTEXT()                                         \
  do {                                                             \
    if (cudaError_t sim_ctx_error_ = ensure_context()) SIM_RETURN(sim_ctx_error_); \
  } while (0)

extern "C" {

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t* pStream) {
  SIM_RUNTIME_API(cudaStreamCreate, v3020, pStream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamCreate(pStream, 0));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  SIM_RUNTIME_API(cudaStreamCreateWithFlags, v5000, pStream, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamCreate(pStream, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  SIM_RUNTIME_API(cudaStreamCreateWithPriority, v5050, pStream, flags, priority);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamCreateWithPriority(pStream, flags, priority));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream) {
  SIM_RUNTIME_API(cudaStreamDestroy, v5050, stream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamDestroy(stream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream) {
  SIM_RUNTIME_API(cudaStreamSynchronize, v3020, stream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamSynchronize(stream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  SIM_RUNTIME_API(cudaStreamSynchronize_ptsz, v7000, stream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamSynchronize_ptsz(stream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream) {
  SIM_RUNTIME_API(cudaStreamQuery, v3020, stream);
  SIM_NEED_CONTEXT();
  SIM_RETURN(from_driver(cuStreamQuery(stream)));
}

cudaError_t CUDARTAPI cudaStreamQuery_ptsz(cudaStream_t stream) {
  SIM_RUNTIME_API(cudaStreamQuery_ptsz, v7000, stream);
  SIM_NEED_CONTEXT();
  SIM_RETURN(from_driver(cuStreamQuery_ptsz(stream)));
}

cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  SIM_RUNTIME_API(cudaStreamWaitEvent, v3020, stream, event, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamWaitEvent(stream, event, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  SIM_RUNTIME_API(cudaStreamWaitEvent_ptsz, v7000, stream, event, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamWaitEvent_ptsz(stream, event, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamGetId(cudaStream_t hStream, unsigned long long* streamId) {
  SIM_RUNTIME_API(cudaStreamGetId, v12000, hStream, streamId);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamGetId(hStream, streamId));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long* streamId) {
  SIM_RUNTIME_API(cudaStreamGetId_ptsz, v12000, hStream, streamId);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamGetId_ptsz(hStream, streamId));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  SIM_RUNTIME_API(cudaStreamBeginCapture, v10000, stream, mode);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamBeginCapture(stream, static_cast<CUstreamCaptureMode>(mode)));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  SIM_RUNTIME_API(cudaStreamBeginCapture_ptsz, v10000, stream, mode);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamBeginCapture_v2_ptsz(stream, static_cast<CUstreamCaptureMode>(mode)));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  SIM_RUNTIME_API(cudaStreamEndCapture, v10000, stream, pGraph);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamEndCapture(stream, pGraph));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* pGraph) {
  SIM_RUNTIME_API(cudaStreamEndCapture_ptsz, v10000, stream, pGraph);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamEndCapture_ptsz(stream, pGraph));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus) {
  SIM_RUNTIME_API(cudaStreamIsCapturing, v10000, stream, pCaptureStatus);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamIsCapturing(stream, reinterpret_cast<CUstreamCaptureStatus*>(pCaptureStatus)));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                 enum cudaStreamCaptureStatus* pCaptureStatus) {
  SIM_RUNTIME_API(cudaStreamIsCapturing_ptsz, v10000, stream, pCaptureStatus);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuStreamIsCapturing_ptsz(stream, reinterpret_cast<CUstreamCaptureStatus*>(pCaptureStatus)));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event) {
  SIM_RUNTIME_API(cudaEventCreate, v3020, event);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventCreate(event, CU_EVENT_DEFAULT));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  SIM_RUNTIME_API(cudaEventCreateWithFlags, v3020, event, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventCreate(event, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event) {
  SIM_RUNTIME_API(cudaEventDestroy, v3020, event);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventDestroy(event));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  SIM_RUNTIME_API(cudaEventRecord, v3020, event, stream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventRecord(event, stream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  SIM_RUNTIME_API(cudaEventRecord_ptsz, v7000, event, stream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventRecord_ptsz(event, stream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  SIM_RUNTIME_API(cudaEventRecordWithFlags, v11010, event, stream, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventRecordWithFlags(event, stream, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  SIM_RUNTIME_API(cudaEventRecordWithFlags_ptsz, v11010, event, stream, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventRecordWithFlags_ptsz(event, stream, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event) {
  SIM_RUNTIME_API(cudaEventSynchronize, v3020, event);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventSynchronize(event));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event) {
  SIM_RUNTIME_API(cudaEventQuery, v3020, event);
  SIM_NEED_CONTEXT();
  SIM_RETURN(from_driver(cuEventQuery(event)));
}

cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  SIM_RUNTIME_API(cudaEventElapsedTime, v12080, ms, start, end);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuEventElapsedTime(ms, start, end));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                           unsigned long long flags) {
  SIM_RUNTIME_API(cudaGraphInstantiate, v12000, pGraphExec, graph, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                                    unsigned long long flags) {
  SIM_RUNTIME_API(cudaGraphInstantiateWithFlags, v11040, pGraphExec, graph, flags);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphInstantiateWithFlags(pGraphExec, graph, flags));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  SIM_RUNTIME_API(cudaGraphLaunch, v10000, graphExec, stream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphLaunch(graphExec, stream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  SIM_RUNTIME_API(cudaGraphLaunch_ptsz, v10000, graphExec, stream);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphLaunch_ptsz(graphExec, stream));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  SIM_RUNTIME_API(cudaGraphExecDestroy, v10000, graphExec);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphExecDestroy(graphExec));
  SIM_RETURN(cudaSuccess);
}

cudaError_t CUDARTAPI cudaGraphDestroy(cudaGraph_t graph) {
  SIM_RUNTIME_API(cudaGraphDestroy, v10000, graph);
  SIM_NEED_CONTEXT();
  SIM_TRY(cuGraphDestroy(graph));
  SIM_RETURN(cudaSuccess);
}

}  // extern "C"
