// A launch loop far ahead of the GPU: N slow kernels on one stream, launched as
// fast as the host can. A real GPU's stream holds about a thousand pending
// operations and then blocks the launching thread; the host must not run more
// than that ahead, nor hold an unbounded backlog in memory.
// usage: launch_queue [launches]
#include <sys/resource.h>

#include "app_common.h"

__global__ void queued_kernel(int* out) {
  if (threadIdx.x == 0 && out) out[0] = 1;
}

int main(int argc, char** argv) {
  long launches = arg_count(argc, argv, 1, 3000);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (long i = 0; i < launches; ++i) queued_kernel<<<1, 32, 0, stream>>>(nullptr);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  // The peak resident size goes to stderr: it varies run to run.
  std::fprintf(stderr, "launch_queue: max rss %ld KiB\n", usage.ru_maxrss);
  std::printf("launch_queue: %ld launches on one stream\n", launches);
  return 0;
}
