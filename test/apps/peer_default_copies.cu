// Copies between two devices without cudaMemcpyPeer: with unified addressing a
// cudaMemcpy(..., cudaMemcpyDefault) or a device-to-device copy whose ends lie
// on two devices is a peer copy. Asks the link's attributes first
// (cudaDeviceGetP2PAttribute). Needs two devices (SIMCUDA_DEVICES=2); exits 3
// with fewer. Prints one line.
#include <vector>

#include "app_common.h"

int main() {
  int count = 0;
  CHECK_CUDA(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::fprintf(stderr, "peer_default_copies: needs two devices, found %d\n", count);
    return 3;
  }
  int access = 0, rank = -1, atomics = -1;
  CHECK_CUDA(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, 0, 1));
  CHECK_CUDA(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, 0, 1));
  CHECK_CUDA(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, 0, 1));
  CHECK_TRUE(rank >= 0 && (atomics == 0 || atomics == 1));
  // A device is no peer of itself.
  CHECK_TRUE(cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, 0, 0) == cudaErrorInvalidDevice);
  CHECK_TRUE(cudaGetLastError() == cudaErrorInvalidDevice);

  constexpr size_t kBytes = 1 << 20;
  void* on0 = nullptr;
  void* on1 = nullptr;
  CHECK_CUDA(cudaSetDevice(1));
  CHECK_CUDA(cudaMalloc(&on1, kBytes));
  CHECK_CUDA(cudaSetDevice(0));
  CHECK_CUDA(cudaMalloc(&on0, kBytes));
  std::vector<unsigned char> out(kBytes), back(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) out[i] = static_cast<unsigned char>(i * 7 + 3);
  CHECK_CUDA(cudaMemcpy(on0, out.data(), kBytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(on1, on0, kBytes, cudaMemcpyDefault));  // device 0 -> 1
  CHECK_CUDA(cudaMemset(on0, 0, kBytes));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaMemcpyAsync(on0, on1, kBytes, cudaMemcpyDeviceToDevice, stream));  // device 1 -> 0
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(back.data(), on0, kBytes, cudaMemcpyDefault));
  CHECK_TRUE(back == out);
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(on0));
  CHECK_CUDA(cudaSetDevice(1));
  CHECK_CUDA(cudaFree(on1));
  std::printf("peer_default_copies: 1 MiB device 0 -> 1 -> 0 without cudaMemcpyPeer ok (access %d)\n", access);
  return 0;
}
