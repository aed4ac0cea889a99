// Measures how many operations a stream holds before a launch blocks the
// host: a kernel that spins for a fixed time, then tiny launches timed one by
// one; the first launch that takes over a millisecond found the queue full.
// simcuda models this depth (SIMCUDA_QUEUE_DEPTH); this program gives the real
// GPU's number. usage: queue_depth [max_launches]
#include <chrono>
#include <cstdio>
#include <cstdlib>

__global__ void spin_kernel(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void tiny_kernel() {}

int main(int argc, char** argv) {
  const int max_launches = argc > 1 ? std::atoi(argv[1]) : 20000;
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  tiny_kernel<<<1, 1, 0, stream>>>();  // module load and first-launch costs out of the way
  cudaStreamSynchronize(stream);
  spin_kernel<<<1, 1, 0, stream>>>(2000LL * 1000 * 1000);  // about a second at 2 GHz
  int blocked_at = -1;
  double blocked_ms = 0;
  for (int i = 0; i < max_launches; ++i) {
    auto before = std::chrono::steady_clock::now();
    tiny_kernel<<<1, 1, 0, stream>>>();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - before).count();
    if (ms > 1.0) {
      blocked_at = i;
      blocked_ms = ms;
      break;
    }
  }
  cudaStreamSynchronize(stream);
  if (blocked_at < 0) {
    std::printf("queue_depth: no launch blocked in %d launches behind a spinning kernel\n", max_launches);
  } else {
    std::printf("queue_depth: launch %d blocked for %.1f ms: %d pending launches fit behind the running kernel\n",
                blocked_at, blocked_ms, blocked_at);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
