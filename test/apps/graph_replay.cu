// A CUDA graph captured from a stream (kernel, copy, kernel, memset) and replayed in a
// loop. Usage: graph_replay [replays=20].
#include <vector>

#include "app_common.h"

__global__ void graph_step_a(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 0.5f;
}

__global__ void graph_step_b(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

int main(int argc, char** argv) {
  long replays = arg_count(argc, argv, 1, 20);
  constexpr int kElements = 1 << 16;
  float* work = nullptr;
  float* mirror = nullptr;
  unsigned char* flags = nullptr;
  CHECK_CUDA(cudaMalloc(&work, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&mirror, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&flags, 1024));
  std::vector<float> host(kElements, 3.0f);
  CHECK_CUDA(cudaMemcpy(mirror, host.data(), kElements * sizeof(float), cudaMemcpyHostToDevice));

  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  graph_step_a<<<kElements / 256, 256, 0, stream>>>(work, kElements);
  CHECK_CUDA(cudaMemcpyAsync(work, mirror, kElements * sizeof(float), cudaMemcpyDeviceToDevice, stream));
  graph_step_b<<<kElements / 256, 256, 0, stream>>>(work, kElements);
  CHECK_CUDA(cudaMemsetAsync(flags, 0x7f, 1024, stream));
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (long i = 0; i < replays; ++i) CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));

  unsigned char flag_back[1024];
  CHECK_CUDA(cudaMemcpy(flag_back, flags, sizeof flag_back, cudaMemcpyDeviceToHost));
  for (unsigned char f : flag_back) CHECK_TRUE(f == 0x7f);

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(work));
  CHECK_CUDA(cudaFree(mirror));
  CHECK_CUDA(cudaFree(flags));
  std::printf("graph_replay: 4-node graph replayed %ld times\n", replays);
  return 0;
}
