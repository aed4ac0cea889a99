// Eight host threads launching concurrently, each on its own stream, plus each thread's
// per-thread default stream (cudaStreamPerThread). Usage: multithread_launch [per_thread=100].
#include <thread>
#include <vector>

#include "app_common.h"

constexpr int kThreads = 8;

__global__ void worker_kernel(int* scratch, int thread_index) {
  if (threadIdx.x == 0) scratch[thread_index] += 1;
}

int main(int argc, char** argv) {
  long launches = arg_count(argc, argv, 1, 100);
  int* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch, kThreads * sizeof(int)));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, launches, scratch] {
      cudaStream_t stream;
      CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      for (long i = 0; i < launches; ++i) worker_kernel<<<1, 64, 0, stream>>>(scratch, t);
      worker_kernel<<<1, 64, 0, cudaStreamPerThread>>>(scratch, t);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaStreamSynchronize(stream));
      CHECK_CUDA(cudaStreamSynchronize(cudaStreamPerThread));
      CHECK_CUDA(cudaStreamDestroy(stream));
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(scratch));
  std::printf("multithread_launch: %d threads x %ld launches\n", kThreads, launches + 1);
  return 0;
}
