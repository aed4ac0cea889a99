// How close event-timed kernel durations (PROF_GPU_TIMING=events) come to the
// kernels' own: each kernel spins for a fixed time on the GPU's global timer
// and writes down when it started and ended. Run under the agent with CUPTI
// and with PROF_BACKEND=hooks, then compare each recorded kernel with its own
// numbers (scripts/gpu-check.sh prints the table). Two shapes, as the hooks
// see them: a kernel on an idle stream (the host waited for the GPU before
// launching it) and one queued behind a long kernel on the same stream.
// usage: event_timing [repeats]   (prints one line per timed kernel)
#include <cstdio>
#include <cstdlib>
#include <vector>

__device__ unsigned long long global_timer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_for(unsigned long long ns, unsigned long long* span) {
  const unsigned long long start = global_timer();
  unsigned long long now = start;
  while (now - start < ns) now = global_timer();
  span[0] = start;
  span[1] = now;
}

__global__ void hold_stream(unsigned long long ns) {
  const unsigned long long start = global_timer();
  while (global_timer() - start < ns) {
  }
}

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  const unsigned long long durations_us[] = {10, 30, 100, 300};
  const int kinds = 2 * 4 * repeats;
  unsigned long long* spans = nullptr;
  if (cudaMalloc(&spans, sizeof(unsigned long long) * 2 * kinds) != cudaSuccess) return 1;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  hold_stream<<<1, 1, 0, stream>>>(1000);  // module load out of the way
  cudaStreamSynchronize(stream);
  int n = 0;
  std::vector<const char*> shape;
  std::vector<unsigned long long> wanted;
  for (int r = 0; r < repeats; ++r) {
    for (unsigned long long us : durations_us) {
      spin_for<<<1, 1, 0, stream>>>(us * 1000, spans + 2 * n);  // idle stream
      shape.push_back("idle");
      wanted.push_back(us);
      ++n;
      cudaStreamSynchronize(stream);
      hold_stream<<<1, 1, 0, stream>>>(200 * 1000);
      spin_for<<<1, 1, 0, stream>>>(us * 1000, spans + 2 * n);  // queued behind 200 us
      shape.push_back("queued");
      wanted.push_back(us);
      ++n;
      cudaStreamSynchronize(stream);
    }
  }
  std::vector<unsigned long long> host(2 * n);
  if (cudaMemcpy(host.data(), spans, sizeof(unsigned long long) * 2 * n, cudaMemcpyDeviceToHost) != cudaSuccess) {
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    std::printf("%d %s %llu %llu\n", i, shape[i], wanted[i], host[2 * i + 1] - host[2 * i]);
  }
  return 0;
}
