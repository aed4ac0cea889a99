// One kernel launch from a known, non-inlined function, launch_from_here(), called
// via a second named frame, for stack symbolization tests. Built with -g and frame
// pointers. Usage: launch_site [launches=3].
#include "app_common.h"

__global__ void symbolized_kernel(int* out) {
  if (threadIdx.x == 0) out[0] = 42;
}

extern "C" __attribute__((noinline)) void launch_from_here(int* out) {
  symbolized_kernel<<<1, 1>>>(out);
  // Keeps the call from becoming a tail call that would drop this frame.
  asm volatile("" ::: "memory");
}

__attribute__((noinline)) void run_launches(int* out, long launches) {
  for (long i = 0; i < launches; ++i) launch_from_here(out);
  asm volatile("" ::: "memory");
}

int main(int argc, char** argv) {
  long launches = arg_count(argc, argv, 1, 3);
  int* out = nullptr;
  CHECK_CUDA(cudaMalloc(&out, sizeof(int)));
  run_launches(out, launches);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaFree(out));
  std::printf("launch_site: %ld launches from launch_from_here\n", launches);
  return 0;
}
