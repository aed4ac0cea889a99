#include "capture/hooks/memory_events.h"

#include <cuda.h>
#include <cupti.h>

#include "capture/hooks/real_symbols.h"
#include "encode/file_records.h"
#include "record/recorder.h"
#include "record/records.h"

namespace prof {
namespace {

using Operation = file::MemoryEvent::Operation;
using GetAttributes = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
using IsCapturing = CUresult (*)(CUstream, CUstreamCaptureStatus*);

GetAttributes get_attributes() {
  static const auto fn = reinterpret_cast<GetAttributes>(next_definition("cuPointerGetAttributes", "libcuda.so"));
  return fn;
}

// Whether stream-ordered work on `stream` is being captured into a graph.
bool capturing(CUstream stream, bool per_thread) {
  static const auto plain = reinterpret_cast<IsCapturing>(next_definition("cuStreamIsCapturing", "libcuda.so"));
  static const auto ptsz = reinterpret_cast<IsCapturing>(next_definition("cuStreamIsCapturing_ptsz", "libcuda.so"));
  const IsCapturing ask = per_thread && ptsz != nullptr ? ptsz : plain;
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  return ask == nullptr || ask(stream, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
}

struct PointerFacts {
  CUmemorytype type = CUmemorytype{};  // 0: not CUDA's
  int device = 0;
  CUdeviceptr base = 0;
  size_t bytes = 0;
  int managed = 0;
};

// One driver call for all of it; a pointer the driver does not know gets
// type 0 (cuPointerGetAttributes does not fail on one).
bool ask_driver(CUdeviceptr address, PointerFacts& facts) {
  const GetAttributes get = get_attributes();
  if (get == nullptr || address == 0) return false;
  CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                      CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void* data[] = {&facts.type, &facts.device, &facts.base, &facts.bytes, &facts.managed};
  return get(5, attributes, data, address) == CUDA_SUCCESS && facts.type != CUmemorytype{};
}

MemoryCall allocation(file::MemoryKind kind, uint64_t bytes) {
  MemoryCall call;
  call.operation = static_cast<uint8_t>(Operation::allocation);
  call.memory_kind = static_cast<uint8_t>(kind);
  call.bytes = bytes;
  return call;
}

MemoryCall release(CUdeviceptr address) {
  PointerFacts facts;
  // Only the start of an allocation can be freed: the call fails otherwise.
  if (!ask_driver(address, facts) || facts.base != address) return {};
  MemoryCall call;
  call.operation = static_cast<uint8_t>(Operation::release);
  call.memory_kind = static_cast<uint8_t>(facts.managed                          ? file::MemoryKind::managed
                                          : facts.type == CU_MEMORYTYPE_DEVICE ? file::MemoryKind::device
                                                                               : file::MemoryKind::pinned);
  call.device_id = static_cast<uint32_t>(facts.device);
  call.address = address;
  call.bytes = facts.bytes;
  return call;
}

template <typename Params>
const Params& as(const void* params) {
  return *static_cast<const Params*>(params);
}

// The allocated address, from the call's output parameter.
uint64_t allocated_address(uint16_t callback_id, const void* params) {
  switch (callback_id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: return *as<cuMemAlloc_v2_params>(params).dptr;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: return *as<cuMemAllocPitch_v2_params>(params).dptr;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: return *as<cuMemAllocManaged_params>(params).dptr;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync: return *as<cuMemAllocAsync_params>(params).dptr;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: return *as<cuMemAllocAsync_ptsz_params>(params).dptr;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync: return *as<cuMemAllocFromPoolAsync_params>(params).dptr;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
      return *as<cuMemAllocFromPoolAsync_ptsz_params>(params).dptr;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
      return reinterpret_cast<uint64_t>(*as<cuMemAllocHost_v2_params>(params).pp);
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: return reinterpret_cast<uint64_t>(*as<cuMemHostAlloc_params>(params).pp);
    default: return 0;
  }
}

// The stream of a stream-ordered allocation or release, and whether it is the
// per-thread default stream's entry point; false for the others.
bool ordered_on(uint16_t callback_id, const void* params, CUstream& stream, bool& per_thread) {
  per_thread = false;
  switch (callback_id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync: stream = as<cuMemAllocAsync_params>(params).hStream; return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
      stream = as<cuMemAllocFromPoolAsync_params>(params).hStream;
      return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync: stream = as<cuMemFreeAsync_params>(params).hStream; return true;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
      stream = as<cuMemAllocAsync_ptsz_params>(params).hStream;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
      stream = as<cuMemAllocFromPoolAsync_ptsz_params>(params).hStream;
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: stream = as<cuMemFreeAsync_ptsz_params>(params).hStream; break;
    default: return false;
  }
  per_thread = true;
  return true;
}

}  // namespace

MemoryCall memory_call_before(uint16_t callback_id, const void* params, bool captures_open) {
  if (params == nullptr) return {};
  CUstream stream = nullptr;
  bool per_thread = false;
  // Captured: a graph memory node, whose records come at each launch.
  if (captures_open && ordered_on(callback_id, params, stream, per_thread) && capturing(stream, per_thread)) return {};
  using file::MemoryKind;
  switch (callback_id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
      return allocation(MemoryKind::device, as<cuMemAlloc_v2_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
      return allocation(MemoryKind::device, 0);  // pitch x height, known after the call
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
      return allocation(MemoryKind::managed, as<cuMemAllocManaged_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
      return allocation(MemoryKind::device, as<cuMemAllocAsync_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
      return allocation(MemoryKind::device, as<cuMemAllocAsync_ptsz_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
      return allocation(MemoryKind::device, as<cuMemAllocFromPoolAsync_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
      return allocation(MemoryKind::device, as<cuMemAllocFromPoolAsync_ptsz_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
      return allocation(MemoryKind::pinned, as<cuMemAllocHost_v2_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc:
      return allocation(MemoryKind::pinned, as<cuMemHostAlloc_params>(params).bytesize);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2: return release(as<cuMemFree_v2_params>(params).dptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync: return release(as<cuMemFreeAsync_params>(params).dptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: return release(as<cuMemFreeAsync_ptsz_params>(params).dptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
      return release(reinterpret_cast<CUdeviceptr>(as<cuMemFreeHost_params>(params).p));
    default: return {};
  }
}

void record_memory_call(MemoryCall& call, uint16_t callback_id, const void* params, uint32_t correlation_id,
                        uint64_t end_ticks, ThreadBuffer& buffer) {
  if (call.operation == static_cast<uint8_t>(Operation::allocation)) {
    call.address = allocated_address(callback_id, params);
    PointerFacts facts;
    if (!ask_driver(call.address, facts)) return;  // not memory after all: nothing CUPTI would report
    call.device_id = static_cast<uint32_t>(facts.device);
    if (call.bytes == 0) call.bytes = facts.bytes;
  }
  auto* record = begin_record<MemoryEventRecord>(buffer, RecordType::memory_event, 0);
  if (record == nullptr) return;
  record->time_ticks = end_ticks;
  record->address = call.address;
  record->bytes = call.bytes;
  record->correlation_id = correlation_id;
  record->device_id = call.device_id;
  record->operation = call.operation;
  record->memory_kind = call.memory_kind;
  buffer.commit();
}

}  // namespace prof
