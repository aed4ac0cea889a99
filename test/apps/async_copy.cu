// A large asynchronous copy from pinned memory returns to the host at once (the
// DMA runs later), and its bytes are in place after the stream is synchronised.
// A copy from pageable memory goes through the runtime's staging buffer: the
// source may be overwritten as soon as the call returns.
#include <cstdint>
#include <vector>

#include "app_common.h"

int main() {
  constexpr size_t kBytes = 128u << 20;
  unsigned char* pinned = nullptr;
  unsigned char* device = nullptr;
  CHECK_CUDA(cudaMallocHost(&pinned, kBytes));
  CHECK_CUDA(cudaMalloc(&device, kBytes));
  for (size_t i = 0; i < kBytes; ++i) pinned[i] = static_cast<unsigned char>(i * 7 + 3);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  CHECK_CUDA(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<unsigned char> back(kBytes);
  CHECK_CUDA(cudaMemcpy(back.data(), device, kBytes, cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < kBytes; i += 4093) CHECK_TRUE(back[i] == static_cast<unsigned char>(i * 7 + 3));
  CHECK_TRUE(back[kBytes - 1] == static_cast<unsigned char>((kBytes - 1) * 7 + 3));

  // Pageable source, overwritten right after the call: the copy still carries
  // the bytes the source held when the call was made.
  std::vector<unsigned char> pageable(1 << 20, 0x5a);
  CHECK_CUDA(cudaMemcpyAsync(device, pageable.data(), pageable.size(), cudaMemcpyHostToDevice, stream));
  std::fill(pageable.begin(), pageable.end(), 0);
  CHECK_CUDA(cudaMemcpyAsync(pinned, device, pageable.size(), cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(pinned[0] == 0x5a && pinned[pageable.size() - 1] == 0x5a);

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(device));
  CHECK_CUDA(cudaFreeHost(pinned));
  std::printf("async_copy: %zu MiB pinned copy and a staged pageable copy verified\n", kBytes >> 20);
  return 0;
}
