// Host<->device copies, pageable and pinned, sync and async, 1D and 2D, plus memsets;
// every byte read back is checked.
#include <vector>

#include "app_common.h"

namespace {

constexpr size_t kBytes = 4 << 20;

void fill_pattern(unsigned char* data, size_t bytes, unsigned seed) {
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>((i * 31 + seed) & 0xff);
}

bool has_pattern(const unsigned char* data, size_t bytes, unsigned seed) {
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] != static_cast<unsigned char>((i * 31 + seed) & 0xff)) return false;
  }
  return true;
}

}  // namespace

int main() {
  unsigned char* device = nullptr;
  unsigned char* device_copy = nullptr;
  CHECK_CUDA(cudaMalloc(&device, kBytes));
  CHECK_CUDA(cudaMalloc(&device_copy, kBytes));

  // Pageable, synchronous.
  std::vector<unsigned char> pageable(kBytes), pageable_back(kBytes);
  fill_pattern(pageable.data(), kBytes, 1);
  CHECK_CUDA(cudaMemcpy(device, pageable.data(), kBytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(pageable_back.data(), device, kBytes, cudaMemcpyDeviceToHost));
  CHECK_TRUE(has_pattern(pageable_back.data(), kBytes, 1));

  // Pinned, asynchronous on a stream, then device-to-device.
  unsigned char* pinned = nullptr;
  unsigned char* pinned_back = nullptr;
  CHECK_CUDA(cudaMallocHost(&pinned, kBytes));
  CHECK_CUDA(cudaMallocHost(&pinned_back, kBytes));
  fill_pattern(pinned, kBytes, 2);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_CUDA(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream));
  CHECK_CUDA(cudaMemcpyAsync(device_copy, device, kBytes, cudaMemcpyDeviceToDevice, stream));
  CHECK_CUDA(cudaMemcpyAsync(pinned_back, device_copy, kBytes, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(has_pattern(pinned_back, kBytes, 2));

  // Memset, synchronous and asynchronous.
  CHECK_CUDA(cudaMemset(device, 0x5a, kBytes));
  CHECK_CUDA(cudaMemsetAsync(device, 0x3c, 4096, stream));
  CHECK_CUDA(cudaMemcpyAsync(pinned_back, device, kBytes, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(pinned_back[0] == 0x3c && pinned_back[4095] == 0x3c && pinned_back[4096] == 0x5a &&
             pinned_back[kBytes - 1] == 0x5a);

  // 2D: copy a 64x32 window out of a pitched 256-byte-wide host image.
  constexpr size_t kWidth = 64, kHeight = 32, kHostPitch = 256;
  std::vector<unsigned char> image(kHostPitch * kHeight), window(kWidth * kHeight);
  fill_pattern(image.data(), image.size(), 3);
  unsigned char* pitched = nullptr;
  size_t device_pitch = 0;
  CHECK_CUDA(cudaMallocPitch(reinterpret_cast<void**>(&pitched), &device_pitch, kWidth, kHeight));
  CHECK_CUDA(cudaMemcpy2D(pitched, device_pitch, image.data(), kHostPitch, kWidth, kHeight,
                          cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy2D(window.data(), kWidth, pitched, device_pitch, kWidth, kHeight,
                          cudaMemcpyDeviceToHost));
  for (size_t row = 0; row < kHeight; ++row) {
    CHECK_TRUE(std::memcmp(&window[row * kWidth], &image[row * kHostPitch], kWidth) == 0);
  }

  // A wrong direction is an error, not a crash.
  CHECK_TRUE(cudaMemcpy(device, pinned, 16, static_cast<cudaMemcpyKind>(42)) == cudaErrorInvalidMemcpyDirection);
  CHECK_TRUE(cudaGetLastError() == cudaErrorInvalidMemcpyDirection);
  CHECK_TRUE(cudaGetLastError() == cudaSuccess);

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(pitched));
  CHECK_CUDA(cudaFreeHost(pinned));
  CHECK_CUDA(cudaFreeHost(pinned_back));
  CHECK_CUDA(cudaFree(device));
  CHECK_CUDA(cudaFree(device_copy));
  std::printf("copies: pageable, pinned, device-to-device, memset and 2D round trips ok\n");
  return 0;
}
