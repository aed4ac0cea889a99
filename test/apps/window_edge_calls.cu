// CUDA calls in flight on another thread as a capture window ends: steps are
// "ProfilerStep#N" ranges on the main thread; a worker thread is blocked in
// cudaStreamSynchronize (on a kernel named long_kernel, which the caller
// makes long with SIMCUDA_KERNEL_NS) across the end of the step BLOCK, and
// launches `worker_kernel` 5 times during step LAUNCH_STEP.
// Usage: window_edge_calls [steps=10] [block=3] [launch_step=6]
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "app_common.h"

__global__ void main_kernel(int* data) {
  if (threadIdx.x == 0) data[0] += 1;
}
__global__ void long_kernel(int* data) {
  if (threadIdx.x == 0) data[1] += 1;
}
__global__ void worker_kernel(int* data) {
  if (threadIdx.x == 0) data[2] += 1;
}

namespace {

// What the main thread asks of the worker, and the worker's progress.
enum Stage : int { kIdle, kBlock, kBlocking, kReturned, kLaunch, kLaunched, kQuit };
std::atomic<int> g_stage{kIdle};

void wait_for(int stage) {
  while (g_stage.load() != stage) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void worker(int* data) {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (;;) {
    const int stage = g_stage.load();
    if (stage == kQuit) break;
    if (stage == kBlock) {
      long_kernel<<<1, 32, 0, stream>>>(data);
      g_stage.store(kBlocking);
      CHECK_CUDA(cudaStreamSynchronize(stream));
      g_stage.store(kReturned);
    } else if (stage == kLaunch) {
      for (long i = 0; i < 5; ++i) worker_kernel<<<1, 32, 0, stream>>>(data);
      CHECK_CUDA(cudaStreamSynchronize(stream));
      g_stage.store(kLaunched);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK_CUDA(cudaStreamDestroy(stream));
}

}  // namespace

int main(int argc, char** argv) {
  const long steps = arg_count(argc, argv, 1, 10);
  const long block = arg_count(argc, argv, 2, 3);
  const long launch_step = arg_count(argc, argv, 3, 6);
  int* data = nullptr;
  CHECK_CUDA(cudaMalloc(&data, 3 * sizeof(int)));
  CHECK_CUDA(cudaMemset(data, 0, 3 * sizeof(int)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::thread thread(worker, data);
  for (long step = 0; step < steps; ++step) {
    char name[48];
    std::snprintf(name, sizeof name, "ProfilerStep#%ld", step);
    nvtxRangePushA(name);
    main_kernel<<<1, 32, 0, stream>>>(data);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    if (step == block) {
      // The worker is inside cudaStreamSynchronize when this step ends.
      g_stage.store(kBlock);
      wait_for(kBlocking);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } else if (step == block + 1) {
      wait_for(kReturned);
    } else if (step == launch_step) {
      g_stage.store(kLaunch);
      wait_for(kLaunched);
    }
    nvtxRangePop();
  }
  g_stage.store(kQuit);
  thread.join();
  CHECK_CUDA(cudaFree(data));
  std::printf("window_edge_calls: %ld steps\n", steps);
  return 0;
}
