// Allocation churn: device, pinned host and stream-ordered allocations of varying
// sizes, freed in a different order than allocated. Usage: malloc_churn [rounds=50].
#include <vector>

#include "app_common.h"

int main(int argc, char** argv) {
  long rounds = arg_count(argc, argv, 1, 50);
  size_t total_bytes = 0;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  for (long round = 0; round < rounds; ++round) {
    std::vector<void*> blocks;
    for (int i = 0; i < 4; ++i) {
      size_t bytes = (size_t{1} << (10 + (round + i) % 12)) + 256 * static_cast<size_t>(i);
      void* block = nullptr;
      CHECK_CUDA(cudaMalloc(&block, bytes));
      blocks.push_back(block);
      total_bytes += bytes;
    }
    void* pinned = nullptr;
    CHECK_CUDA(cudaMallocHost(&pinned, 64 * 1024));
    void* stream_ordered = nullptr;
    CHECK_CUDA(cudaMallocAsync(&stream_ordered, 128 * 1024, stream));
    CHECK_CUDA(cudaMemsetAsync(stream_ordered, round & 0xff, 128 * 1024, stream));
    unsigned char probe = 0;
    CHECK_CUDA(cudaMemcpyAsync(&probe, static_cast<unsigned char*>(stream_ordered) + 777, 1,
                               cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaFreeAsync(stream_ordered, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_TRUE(probe == static_cast<unsigned char>(round & 0xff));
    CHECK_CUDA(cudaFreeHost(pinned));
    for (size_t i = blocks.size(); i-- > 0;) CHECK_CUDA(cudaFree(blocks[i]));
  }
  size_t free_bytes = 0, total = 0;
  CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  CHECK_TRUE(free_bytes <= total);
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("malloc_churn: %ld rounds, %zu device bytes allocated in total\n", rounds, total_bytes);
  return 0;
}
