#include "views/occupancy.h"

#include <algorithm>
#include <cmath>

#include <cuda_occupancy.h>

namespace prof::analyzer {

Occupancy estimate_occupancy(const KernelConfig& kernel, const recorded::Device* device) {
  Occupancy result;
  if (!device || device->sm_count == 0) return result;
  const uint64_t blocks = uint64_t{kernel.grid[0]} * kernel.grid[1] * kernel.grid[2];
  const uint64_t threads = uint64_t{kernel.block[0]} * kernel.block[1] * kernel.block[2];
  result.blocks_per_sm = static_cast<double>(blocks) / device->sm_count;
  result.warps_per_sm = result.blocks_per_sm * static_cast<double>(threads) / 32.0;  // Kineto divides by 32 too

  const uint32_t warp_size = device->warp_size;
  const uint64_t threads_per_sm = uint64_t{device->max_warps_per_multiprocessor} * warp_size;
  if (warp_size == 0 || threads_per_sm == 0 || device->max_registers_per_multiprocessor == 0 || threads == 0)
    return result;
  cudaOccDeviceProp properties;
  properties.computeMajor = static_cast<int>(device->compute_major);
  properties.computeMinor = static_cast<int>(device->compute_minor);
  properties.maxThreadsPerBlock = static_cast<int>(device->max_threads_per_block);
  properties.maxThreadsPerMultiprocessor = static_cast<int>(threads_per_sm);
  properties.regsPerBlock = static_cast<int>(device->max_registers_per_block);
  properties.regsPerMultiprocessor = static_cast<int>(device->max_registers_per_multiprocessor);
  properties.warpSize = static_cast<int>(warp_size);
  properties.sharedMemPerBlock = device->max_shared_memory_per_block;
  properties.sharedMemPerMultiprocessor = device->max_shared_memory_per_multiprocessor;
  properties.numSms = static_cast<int>(device->sm_count);
  properties.sharedMemPerBlockOptin =
      std::max(device->max_shared_memory_per_block_optin, device->max_shared_memory_per_block);
  // As Kineto asks: the kernel's registers and static shared memory, no
  // block-size cap, the device's default shared memory carve-out.
  cudaOccFuncAttributes attributes;
  attributes.maxThreadsPerBlock = INT_MAX;
  attributes.numRegs = static_cast<int>(kernel.registers_per_thread);
  attributes.sharedSizeBytes = kernel.static_shared_bytes;
  attributes.partitionedGCConfig = PARTITIONED_GC_OFF;
  attributes.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
  attributes.maxDynamicSharedSizeBytes = 0;
  const cudaOccDeviceState state;
  cudaOccResult occupancy;
  if (cudaOccMaxActiveBlocksPerMultiprocessor(&occupancy, &properties, &attributes, &state, static_cast<int>(threads),
                                             kernel.dynamic_shared_bytes) != CUDA_OCC_SUCCESS)
    return result;
  const double resident = std::min<double>(occupancy.activeBlocksPerMultiprocessor, result.blocks_per_sm);
  result.achieved_percent =
      static_cast<uint64_t>(std::lround(std::min(1.0, resident * static_cast<double>(threads) / threads_per_sm) * 100.0));
  return result;
}

}  // namespace prof::analyzer
