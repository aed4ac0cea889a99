// Copies between two devices: peer access enabled and disabled, cudaMemcpyPeer and
// cudaMemcpyPeerAsync, round trips checked. Needs two devices (SIMCUDA_DEVICES=2).
#include <vector>

#include "app_common.h"

int main() {
  int count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::fprintf(stderr, "peer_copies: needs two devices, found %d\n", count);
    return 3;
  }
  constexpr size_t kBytes = 1 << 20;
  int can01 = 0, can10 = 0;
  CHECK_CUDA(cudaDeviceCanAccessPeer(&can01, 0, 1));
  CHECK_CUDA(cudaDeviceCanAccessPeer(&can10, 1, 0));
  void* on0 = nullptr;
  void* on1 = nullptr;
  CHECK_CUDA(cudaSetDevice(1));
  CHECK_CUDA(cudaMalloc(&on1, kBytes));
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaMalloc(&on0, kBytes));
  if (can01) CHECK_CUDA(cudaDeviceEnablePeerAccess(1, 0));

  std::vector<unsigned char> out(kBytes), back(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) out[i] = static_cast<unsigned char>(i * 13 + 1);
  CHECK_CUDA(cudaMemcpy(on0, out.data(), kBytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpyPeer(on1, 1, on0, 0, kBytes));
  CHECK_CUDA(cudaMemset(on0, 0, kBytes));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaMemcpyPeerAsync(on0, 0, on1, 1, kBytes, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(back.data(), on0, kBytes, cudaMemcpyDeviceToHost));
  CHECK_TRUE(back == out);

  if (can01) CHECK_CUDA(cudaDeviceDisablePeerAccess(1));
  CHECK_TRUE(cudaDeviceDisablePeerAccess(1) == cudaErrorPeerAccessNotEnabled);
  CHECK_CUDA(cudaGetLastError() == cudaErrorPeerAccessNotEnabled ? cudaSuccess : cudaErrorUnknown);
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(on0));
  CHECK_CUDA(cudaSetDevice(1));
  CHECK_CUDA(cudaFree(on1));
  std::printf("peer_copies: 1 MiB device 0 -> 1 -> 0 round trip ok (peer access %d/%d)\n", can01, can10);
  return 0;
}
