// Stream-ordered memory pools: the device's default pool (cudaMallocAsync)
// with a release threshold, a pool of its own (cudaMemPoolCreate,
// cudaMallocFromPoolAsync) whose used and reserved sizes are read back, its
// high-water mark reset, trimmed (cudaMemPoolTrimTo) and destroyed.
// Usage: memory_pools. Prints one line.
#include <cstdint>
#include <vector>

#include "app_common.h"

__global__ void pool_kernel(unsigned char* bytes, size_t count) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < count) bytes[i] ^= 1;
}

uint64_t pool_bytes(cudaMemPool_t pool, cudaMemPoolAttr attribute) {
  uint64_t value = 0;
  CHECK_CUDA(cudaMemPoolGetAttribute(pool, attribute, &value));
  return value;
}

int main() {
  constexpr size_t kDefaultBytes = 1 << 20, kPoolBytes = 2 << 20;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  cudaMemPool_t default_pool = nullptr;
  CHECK_CUDA(cudaDeviceGetDefaultMemPool(&default_pool, 0));
  uint64_t keep_all = UINT64_MAX;
  CHECK_CUDA(cudaMemPoolSetAttribute(default_pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
  unsigned char* scratch = nullptr;
  CHECK_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&scratch), kDefaultBytes, stream));
  pool_kernel<<<kDefaultBytes / 256, 256, 0, stream>>>(scratch, kDefaultBytes);
  CHECK_CUDA(cudaFreeAsync(scratch, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(pool_bytes(default_pool, cudaMemPoolAttrReservedMemCurrent) >= kDefaultBytes);  // kept for reuse
  CHECK_TRUE(pool_bytes(default_pool, cudaMemPoolAttrUsedMemCurrent) == 0);

  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t pool = nullptr;
  CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
  uint64_t threshold = 4 << 20;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
  CHECK_TRUE(pool_bytes(pool, cudaMemPoolAttrReleaseThreshold) == threshold);

  unsigned char* bytes = nullptr;
  CHECK_CUDA(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&bytes), kPoolBytes, pool, stream));
  CHECK_CUDA(cudaMemsetAsync(bytes, 0x5a, kPoolBytes, stream));
  std::vector<unsigned char> back(kPoolBytes, 0);
  CHECK_CUDA(cudaMemcpyAsync(back.data(), bytes, kPoolBytes, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(back[0] == 0x5a && back[kPoolBytes - 1] == 0x5a);
  CHECK_TRUE(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent) == kPoolBytes);
  CHECK_CUDA(cudaFreeAsync(bytes, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(pool_bytes(pool, cudaMemPoolAttrUsedMemCurrent) == 0);
  CHECK_TRUE(pool_bytes(pool, cudaMemPoolAttrUsedMemHigh) == kPoolBytes);
  CHECK_TRUE(pool_bytes(pool, cudaMemPoolAttrReservedMemCurrent) >= kPoolBytes);  // under the threshold: kept
  uint64_t reset = 0;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &reset));
  CHECK_TRUE(pool_bytes(pool, cudaMemPoolAttrUsedMemHigh) == 0);
  CHECK_CUDA(cudaMemPoolTrimTo(pool, 0));
  CHECK_TRUE(pool_bytes(pool, cudaMemPoolAttrReservedMemCurrent) == 0);
  CHECK_CUDA(cudaMemPoolDestroy(pool));
  CHECK_CUDA(cudaMemPoolTrimTo(default_pool, 0));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("memory_pools: %zu KiB from the default pool, %zu KiB from a pool of its own, trimmed\n",
              kDefaultBytes / 1024, kPoolBytes / 1024);
  return 0;
}
