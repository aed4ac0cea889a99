// Exported driver API: streams, events, stream capture and graphs.
#include "api_trace.h"
#include "device_model.h"

using namespace simcuda;

#undef cuEventElapsedTime

extern "C" {

CUresult CUDAAPI cuStreamCreate(CUstream* phStream, unsigned int Flags) {
  SIM_DRIVER_API(cuStreamCreate, phStream, Flags);
  SIM_RETURN(stream_create(phStream, Flags, 0));
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags, int priority) {
  SIM_DRIVER_API(cuStreamCreateWithPriority, phStream, flags, priority);
  SIM_RETURN(stream_create(phStream, flags, priority));
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream) {
  SIM_DRIVER_API(cuStreamDestroy_v2, hStream);
  SIM_RETURN(stream_destroy(hStream));
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
  SIM_DRIVER_API(cuStreamSynchronize, hStream);
  SIM_RETURN(stream_synchronize(hStream, false));
}
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream) {
  SIM_DRIVER_API(cuStreamSynchronize_ptsz, hStream);
  SIM_RETURN(stream_synchronize(hStream, true));
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream) {
  SIM_DRIVER_API(cuStreamQuery, hStream);
  SIM_RETURN(stream_query(hStream, false));
}
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream) {
  SIM_DRIVER_API(cuStreamQuery_ptsz, hStream);
  SIM_RETURN(stream_query(hStream, true));
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  SIM_DRIVER_API(cuStreamWaitEvent, hStream, hEvent, Flags);
  SIM_RETURN(stream_wait_event(hStream, hEvent, false));
}
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  SIM_DRIVER_API(cuStreamWaitEvent_ptsz, hStream, hEvent, Flags);
  SIM_RETURN(stream_wait_event(hStream, hEvent, true));
}

CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
  SIM_DRIVER_API(cuStreamGetFlags, hStream, flags);
  SIM_RETURN(stream_flags(hStream, flags, false));
}
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int* flags) {
  SIM_DRIVER_API(cuStreamGetFlags_ptsz, hStream, flags);
  SIM_RETURN(stream_flags(hStream, flags, true));
}

CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int* priority) {
  SIM_DRIVER_API(cuStreamGetPriority, hStream, priority);
  SIM_RETURN(stream_priority(hStream, priority, false));
}
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int* priority) {
  SIM_DRIVER_API(cuStreamGetPriority_ptsz, hStream, priority);
  SIM_RETURN(stream_priority(hStream, priority, true));
}

CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long* streamId) {
  SIM_DRIVER_API(cuStreamGetId, hStream, streamId);
  SIM_RETURN(stream_id(hStream, streamId, false));
}
CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream, unsigned long long* streamId) {
  SIM_DRIVER_API(cuStreamGetId_ptsz, hStream, streamId);
  SIM_RETURN(stream_id(hStream, streamId, true));
}

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
  SIM_DRIVER_API(cuStreamBeginCapture_v2, hStream, mode);
  SIM_RETURN(stream_begin_capture(hStream, mode, false));
}
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) {
  SIM_DRIVER_API(cuStreamBeginCapture_v2_ptsz, hStream, mode);
  SIM_RETURN(stream_begin_capture(hStream, mode, true));
}

CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) {
  SIM_DRIVER_API(cuStreamEndCapture, hStream, phGraph);
  SIM_RETURN(stream_end_capture(hStream, phGraph, false));
}
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph* phGraph) {
  SIM_DRIVER_API(cuStreamEndCapture_ptsz, hStream, phGraph);
  SIM_RETURN(stream_end_capture(hStream, phGraph, true));
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  SIM_DRIVER_API(cuStreamIsCapturing, hStream, captureStatus);
  SIM_RETURN(stream_is_capturing(hStream, captureStatus, false));
}
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus* captureStatus) {
  SIM_DRIVER_API(cuStreamIsCapturing_ptsz, hStream, captureStatus);
  SIM_RETURN(stream_is_capturing(hStream, captureStatus, true));
}

CUresult CUDAAPI cuEventCreate(CUevent* phEvent, unsigned int Flags) {
  SIM_DRIVER_API(cuEventCreate, phEvent, Flags);
  SIM_RETURN(event_create(phEvent, Flags));
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent) {
  SIM_DRIVER_API(cuEventDestroy_v2, hEvent);
  SIM_RETURN(event_destroy(hEvent));
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
  SIM_DRIVER_API(cuEventRecord, hEvent, hStream);
  SIM_RETURN(event_record(hEvent, hStream, false));
}
CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) {
  SIM_DRIVER_API(cuEventRecord_ptsz, hEvent, hStream);
  SIM_RETURN(event_record(hEvent, hStream, true));
}
CUresult CUDAAPI cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  SIM_DRIVER_API(cuEventRecordWithFlags, hEvent, hStream, flags);
  SIM_RETURN(event_record(hEvent, hStream, false));
}
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags) {
  SIM_DRIVER_API(cuEventRecordWithFlags_ptsz, hEvent, hStream, flags);
  SIM_RETURN(event_record(hEvent, hStream, true));
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
  SIM_DRIVER_API(cuEventSynchronize, hEvent);
  SIM_RETURN(event_synchronize(hEvent));
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent) {
  SIM_DRIVER_API(cuEventQuery, hEvent);
  SIM_RETURN(event_query(hEvent));
}

CUresult CUDAAPI cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  SIM_DRIVER_API(cuEventElapsedTime, pMilliseconds, hStart, hEnd);
  SIM_RETURN(event_elapsed_ms(pMilliseconds, hStart, hEnd));
}
CUresult CUDAAPI cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
  SIM_DRIVER_API(cuEventElapsedTime_v2, pMilliseconds, hStart, hEnd);
  SIM_RETURN(event_elapsed_ms(pMilliseconds, hStart, hEnd));
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph,
                                             unsigned long long flags) {
  SIM_DRIVER_API(cuGraphInstantiateWithFlags, phGraphExec, hGraph, flags);
  SIM_RETURN(graph_instantiate(phGraphExec, hGraph));
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  SIM_DRIVER_API(cuGraphLaunch, hGraphExec, hStream);
  SIM_RETURN(graph_launch(hGraphExec, hStream, false));
}
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  SIM_DRIVER_API(cuGraphLaunch_ptsz, hGraphExec, hStream);
  SIM_RETURN(graph_launch(hGraphExec, hStream, true));
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec) {
  SIM_DRIVER_API(cuGraphExecDestroy, hGraphExec);
  SIM_RETURN(graph_exec_destroy(hGraphExec));
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph) {
  SIM_DRIVER_API(cuGraphDestroy, hGraph);
  SIM_RETURN(graph_destroy(hGraph));
}

}  // extern "C"
