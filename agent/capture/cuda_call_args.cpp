#include "capture/cuda_call_args.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
// cupti.h (through the header) already brings the generated params structs.

#include <cstring>

#include "encode/file_records.h"

namespace prof {
namespace {

// CUDA 13's <<<>>> launches call __cudaLaunchKernel(_ptsz)(cudaKernel_t, grid,
// block, args, sharedMem, stream). CUPTI gives them their own callback ids
// but the toolkit ships no params struct for them; the layout follows the
// function's signature, as for every other generated params struct.
struct LaunchKernelHandleParams {
  cudaKernel_t kernel;
  dim3 gridDim;
  dim3 blockDim;
  void** args;
  size_t sharedMem;
  cudaStream_t stream;
};

void set_launch(ApiCallRecord& r, dim3 grid, dim3 block, size_t shared, const void* stream) {
  r.args = ApiCallArgs::launch;
  r.grid[0] = grid.x;
  r.grid[1] = grid.y;
  r.grid[2] = grid.z;
  r.block[0] = block.x;
  r.block[1] = block.y;
  r.block[2] = block.z;
  r.shared_bytes = static_cast<uint32_t>(shared);
  r.stream = reinterpret_cast<uint64_t>(stream);
}

void set_transfer(ApiCallRecord& r, ApiCallArgs args, size_t bytes, file::CopyKind kind, const void* stream) {
  r.args = args;
  r.bytes = bytes;
  r.copy_kind = static_cast<uint8_t>(kind);
  r.stream = reinterpret_cast<uint64_t>(stream);
}

// Read as an int: a program may pass any value (simcuda's tests pass 42 to
// get cudaErrorInvalidMemcpyDirection), and loading an out-of-range value as
// the enum type is undefined behaviour.
template <typename Params>
file::CopyKind copy_kind_of(const Params* params) {
  static_assert(sizeof(params->kind) == sizeof(int));
  int kind = 0;
  memcpy(&kind, &params->kind, sizeof(kind));
  switch (kind) {
    case cudaMemcpyHostToHost: return file::CopyKind::host_to_host;
    case cudaMemcpyHostToDevice: return file::CopyKind::host_to_device;
    case cudaMemcpyDeviceToHost: return file::CopyKind::device_to_host;
    case cudaMemcpyDeviceToDevice: return file::CopyKind::device_to_device;
    case cudaMemcpyDefault: return file::CopyKind::default_;
  }
  return file::CopyKind::unknown;
}

template <typename Params>
void launch_from(const void* params, ApiCallRecord& r) {
  const auto* p = static_cast<const Params*>(params);
  set_launch(r, p->gridDim, p->blockDim, p->sharedMem, p->stream);
}

void launch_from_config(const cudaLaunchConfig_t* config, ApiCallRecord& r) {
  if (config != nullptr) set_launch(r, config->gridDim, config->blockDim, config->dynamicSmemBytes, config->stream);
}

void launch_from_config(const CUlaunchConfig* c, ApiCallRecord& r) {
  if (c != nullptr) {
    set_launch(r, dim3(c->gridDimX, c->gridDimY, c->gridDimZ),
               dim3(c->blockDimX, c->blockDimY, c->blockDimZ), c->sharedMemBytes, c->hStream);
  }
}

void read_runtime(CUpti_CallbackId cbid, const void* params, ApiCallRecord& r) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_ptsz_v12030:
      r.args = ApiCallArgs::capture_begin;
      return;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
      r.args = ApiCallArgs::capture_end;
      return;
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
      return launch_from<LaunchKernelHandleParams>(params, r);
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      return launch_from<cudaLaunchKernel_v7000_params>(params, r);
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
      return launch_from<cudaLaunchCooperativeKernel_v9000_params>(params, r);
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
      return launch_from_config(static_cast<const cudaLaunchKernelExC_v11060_params*>(params)->config, r);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
      const auto* p = static_cast<const cudaMemcpy_v3020_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->count, copy_kind_of(p), nullptr);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
      const auto* p = static_cast<const cudaMemcpyAsync_v3020_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->count, copy_kind_of(p), p->stream);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000: {
      const auto* p = static_cast<const cudaMemcpy2D_v3020_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->width * p->height, copy_kind_of(p), nullptr);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000: {
      const auto* p = static_cast<const cudaMemcpy2DAsync_v3020_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->width * p->height, copy_kind_of(p), p->stream);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000: {
      const auto* p = static_cast<const cudaMemset_v3020_params*>(params);
      return set_transfer(r, ApiCallArgs::memset, p->count, file::CopyKind::unknown, nullptr);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
      const auto* p = static_cast<const cudaMemsetAsync_v3020_params*>(params);
      return set_transfer(r, ApiCallArgs::memset, p->count, file::CopyKind::unknown, p->stream);
    }
    default: return;
  }
}

// A driver 2D copy's direction, from its memory types.
file::CopyKind copy_kind_of(const CUDA_MEMCPY2D* copy) {
  const bool from_host = copy->srcMemoryType == CU_MEMORYTYPE_HOST;
  const bool to_host = copy->dstMemoryType == CU_MEMORYTYPE_HOST;
  if (copy->srcMemoryType == CU_MEMORYTYPE_UNIFIED || copy->dstMemoryType == CU_MEMORYTYPE_UNIFIED) {
    return file::CopyKind::default_;
  }
  return from_host ? (to_host ? file::CopyKind::host_to_host : file::CopyKind::host_to_device)
                   : (to_host ? file::CopyKind::device_to_host : file::CopyKind::device_to_device);
}

void set_copy_2d(ApiCallRecord& r, const CUDA_MEMCPY2D* copy, const void* stream) {
  if (copy != nullptr) set_transfer(r, ApiCallArgs::copy, copy->WidthInBytes * copy->Height, copy_kind_of(copy), stream);
}

void read_driver(CUpti_CallbackId cbid, const void* params, ApiCallRecord& r) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
      r.args = ApiCallArgs::capture_begin;
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
      r.args = ApiCallArgs::capture_end;
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchKernel_params*>(params);
      return set_launch(r, dim3(p->gridDimX, p->gridDimY, p->gridDimZ),
                        dim3(p->blockDimX, p->blockDimY, p->blockDimZ), p->sharedMemBytes, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return launch_from_config(static_cast<const cuLaunchKernelEx_params*>(params)->config, r);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
      const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
      return set_launch(r, dim3(p->gridDimX, p->gridDimY, p->gridDimZ),
                        dim3(p->blockDimX, p->blockDimY, p->blockDimZ), p->sharedMemBytes, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
      return set_transfer(r, ApiCallArgs::copy, static_cast<const cuMemcpyHtoD_v2_params*>(params)->ByteCount,
                          file::CopyKind::host_to_device, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
      return set_transfer(r, ApiCallArgs::copy, static_cast<const cuMemcpyDtoH_v2_params*>(params)->ByteCount,
                          file::CopyKind::device_to_host, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
      return set_transfer(r, ApiCallArgs::copy, static_cast<const cuMemcpyDtoD_v2_params*>(params)->ByteCount,
                          file::CopyKind::device_to_device, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz: {
      const auto* p = static_cast<const cuMemcpyHtoDAsync_v2_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->ByteCount, file::CopyKind::host_to_device, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: {
      const auto* p = static_cast<const cuMemcpyDtoHAsync_v2_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->ByteCount, file::CopyKind::device_to_host, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz: {
      const auto* p = static_cast<const cuMemcpyDtoDAsync_v2_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->ByteCount, file::CopyKind::device_to_device, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
      return set_transfer(r, ApiCallArgs::copy, static_cast<const cuMemcpy_params*>(params)->ByteCount,
                          file::CopyKind::default_, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz: {
      const auto* p = static_cast<const cuMemcpyAsync_params*>(params);
      return set_transfer(r, ApiCallArgs::copy, p->ByteCount, file::CopyKind::default_, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds:
      return set_copy_2d(r, static_cast<const cuMemcpy2D_v2_params*>(params)->pCopy, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds:
      return set_copy_2d(r, static_cast<const cuMemcpy2DUnaligned_v2_params*>(params)->pCopy, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz: {
      const auto* p = static_cast<const cuMemcpy2DAsync_v2_params*>(params);
      return set_copy_2d(r, p->pCopy, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds:
      return set_transfer(r, ApiCallArgs::memset, 2 * static_cast<const cuMemsetD16_v2_params*>(params)->N,
                          file::CopyKind::unknown, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz: {
      const auto* p = static_cast<const cuMemsetD16Async_params*>(params);
      return set_transfer(r, ApiCallArgs::memset, 2 * p->N, file::CopyKind::unknown, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds: {
      const auto* p = static_cast<const cuMemsetD2D8_v2_params*>(params);
      return set_transfer(r, ApiCallArgs::memset, p->Width * p->Height, file::CopyKind::unknown, nullptr);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz: {
      const auto* p = static_cast<const cuMemsetD2D8Async_params*>(params);
      return set_transfer(r, ApiCallArgs::memset, p->Width * p->Height, file::CopyKind::unknown, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
      return set_transfer(r, ApiCallArgs::memset, static_cast<const cuMemsetD8_v2_params*>(params)->N,
                          file::CopyKind::unknown, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds:
      return set_transfer(r, ApiCallArgs::memset, 4 * static_cast<const cuMemsetD32_v2_params*>(params)->N,
                          file::CopyKind::unknown, nullptr);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz: {
      const auto* p = static_cast<const cuMemsetD8Async_params*>(params);
      return set_transfer(r, ApiCallArgs::memset, p->N, file::CopyKind::unknown, p->hStream);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz: {
      const auto* p = static_cast<const cuMemsetD32Async_params*>(params);
      return set_transfer(r, ApiCallArgs::memset, 4 * p->N, file::CopyKind::unknown, p->hStream);
    }
    default: return;
  }
}

}  // namespace

void read_call_args(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params,
                    ApiCallRecord& record) {
  record.args = ApiCallArgs::none;
  if (params == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) read_runtime(cbid, params, record);
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) read_driver(cbid, params, record);
}

}  // namespace prof
