// Large kernels on two streams ordered by events: stream A produces, stream B waits on
// A's event before consuming. Prints only deterministic facts.
#include "app_common.h"

__global__ void produce_kernel(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * static_cast<float>(i);
}

__global__ void consume_kernel(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

int main() {
  constexpr int kElements = 1 << 20;
  float* produced = nullptr;
  float* consumed = nullptr;
  CHECK_CUDA(cudaMalloc(&produced, kElements * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&consumed, kElements * sizeof(float)));
  cudaStream_t stream_a, stream_b;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream_a, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream_b, cudaStreamNonBlocking));
  cudaEvent_t start, produced_event, done;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&produced_event));
  CHECK_CUDA(cudaEventCreate(&done));

  dim3 block(256), grid((kElements + 255) / 256);
  CHECK_CUDA(cudaEventRecord(start, stream_a));
  for (int i = 0; i < 3; ++i) produce_kernel<<<grid, block, 0, stream_a>>>(produced, kElements);
  CHECK_CUDA(cudaEventRecord(produced_event, stream_a));
  CHECK_CUDA(cudaStreamWaitEvent(stream_b, produced_event, 0));
  for (int i = 0; i < 2; ++i) consume_kernel<<<grid, block, 0, stream_b>>>(produced, consumed, kElements);
  CHECK_CUDA(cudaEventRecord(done, stream_b));
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventSynchronize(done));
  CHECK_TRUE(cudaEventQuery(done) == cudaSuccess);
  CHECK_CUDA(cudaStreamSynchronize(stream_a));

  float produce_ms = 0, total_ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&produce_ms, start, produced_event));
  CHECK_CUDA(cudaEventElapsedTime(&total_ms, start, done));
  CHECK_TRUE(produce_ms > 0 && total_ms > produce_ms);

  CHECK_CUDA(cudaEventDestroy(start));
  CHECK_CUDA(cudaEventDestroy(produced_event));
  CHECK_CUDA(cudaEventDestroy(done));
  CHECK_CUDA(cudaStreamDestroy(stream_a));
  CHECK_CUDA(cudaStreamDestroy(stream_b));
  CHECK_CUDA(cudaFree(produced));
  CHECK_CUDA(cudaFree(consumed));
  std::printf("two_streams: 3 produce + 2 consume kernels, consumer after producer\n");
  return 0;
}
