// Zero-copy and managed memory: a mapped pinned buffer reached through its device
// pointer, and a managed buffer attached to a stream and prefetched to the device
// and back, with copies in between checked on the host.
#include "app_common.h"

__global__ void touch_kernel(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

int main() {
  constexpr int kElements = 1 << 16;
  constexpr size_t kBytes = kElements * sizeof(int);
  CHECK_CUDA(cudaSetDeviceFlags(cudaDeviceMapHost));
  int* mapped = nullptr;
  CHECK_CUDA(cudaHostAlloc(&mapped, kBytes, cudaHostAllocMapped));
  int* mapped_on_device = nullptr;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&mapped_on_device), mapped, 0));
  CHECK_TRUE(mapped_on_device != nullptr);
  for (int i = 0; i < kElements; ++i) mapped[i] = i;
  touch_kernel<<<kElements / 256, 256>>>(mapped_on_device, kElements);
  // The stream below does not wait for the legacy stream: finish this kernel first.
  CHECK_CUDA(cudaDeviceSynchronize());

  int* managed = nullptr;
  CHECK_CUDA(cudaMallocManaged(&managed, kBytes));
  for (int i = 0; i < kElements; ++i) managed[i] = 3 * i;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamAttachMemAsync(stream, managed, 0, cudaMemAttachSingle));
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaMemLocation on_device{cudaMemLocationTypeDevice, device};
  cudaMemLocation on_host{cudaMemLocationTypeHost, 0};
  CHECK_CUDA(cudaMemPrefetchAsync(managed, kBytes, on_device, 0, stream));
  touch_kernel<<<kElements / 256, 256, 0, stream>>>(managed, kElements);
  // Managed memory copies like device memory: into a mapped buffer, then read.
  CHECK_CUDA(cudaMemcpyAsync(mapped, managed, kBytes, cudaMemcpyDefault, stream));
  CHECK_CUDA(cudaMemPrefetchAsync(managed, kBytes, on_host, 0, stream));
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaDeviceSynchronize());
  // Kernels do not run on simcuda, so the check is on what the copy moved; on a
  // GPU the kernel added one.
  bool as_copied = true, as_touched = true;
  for (int i = 0; i < kElements; ++i) {
    as_copied = as_copied && mapped[i] == 3 * i;
    as_touched = as_touched && mapped[i] == 3 * i + 1;
  }
  CHECK_TRUE(as_copied || as_touched);

  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(managed));
  CHECK_CUDA(cudaFreeHost(mapped));
  std::printf("managed_memory: mapped and managed buffers, prefetched and copied\n");
  return 0;
}
