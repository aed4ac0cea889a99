// Host work in stream order: a stream callback (cudaStreamAddCallback) and a host
// function (cudaLaunchHostFunc) between kernels and copies. Each must run after the
// work before it and before the work after it, on a thread of the CUDA library.
#include <pthread.h>

#include <atomic>

#include "app_common.h"

__global__ void before_host_kernel(int* data) {
  if (threadIdx.x == 0) data[0] = 1;
}
__global__ void after_host_kernel(int* data) {
  if (threadIdx.x == 0) data[1] = 2;
}

struct Seen {
  std::atomic<int> calls{0};
  int copied_value = 0;       // what the host saw of the copy before it
  pthread_t thread{};
  int* host_buffer = nullptr;
};

void CUDART_CB on_callback(cudaStream_t, cudaError_t status, void* data) {
  auto* seen = static_cast<Seen*>(data);
  if (status == cudaSuccess) seen->copied_value = seen->host_buffer[0];
  seen->thread = pthread_self();
  seen->calls.fetch_add(1);
}

void CUDART_CB on_host_function(void* data) {
  auto* seen = static_cast<Seen*>(data);
  seen->calls.fetch_add(1);
}

int main() {
  int* device = nullptr;
  int* scratch = nullptr;  // what the kernels write (on a GPU), apart from the copied buffer
  int* pinned = nullptr;
  CHECK_CUDA(cudaMalloc(&device, 4 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&scratch, 4 * sizeof(int)));
  CHECK_CUDA(cudaMallocHost(&pinned, 4 * sizeof(int)));
  int values[4] = {41, 42, 43, 44};
  CHECK_CUDA(cudaMemcpy(device, values, sizeof values, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  Seen seen;
  seen.host_buffer = pinned;
  pinned[0] = 0;
  before_host_kernel<<<1, 32, 0, stream>>>(scratch);
  CHECK_CUDA(cudaMemcpyAsync(pinned, device, sizeof values, cudaMemcpyDeviceToHost, stream));
  CHECK_CUDA(cudaStreamAddCallback(stream, on_callback, &seen, 0));
  CHECK_CUDA(cudaLaunchHostFunc(stream, on_host_function, &seen));
  after_host_kernel<<<1, 32, 0, stream>>>(scratch);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(stream));

  CHECK_TRUE(seen.calls.load() == 2);
  CHECK_TRUE(seen.copied_value == 41);  // the copy before the callback had landed
  CHECK_TRUE(!pthread_equal(seen.thread, pthread_self()));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(pinned));
  CHECK_CUDA(cudaFree(scratch));
  CHECK_CUDA(cudaFree(device));
  std::printf("host_callbacks: a stream callback and a host function ran in stream order\n");
  return 0;
}
