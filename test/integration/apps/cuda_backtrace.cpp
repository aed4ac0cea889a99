// glibc's backtrace() and backtrace_symbols() in a CUDA process. libunwind
// exports a weak `backtrace`; if the agent loaded it into the global scope,
// this program would call libunwind's instead of glibc's. The output (frame
// count and this program's own function names) must not change.
#include <cuda_runtime_api.h>
#include <execinfo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// Not static: backtrace_symbols names only symbols in the dynamic table.
[[gnu::noinline]] int frames_from_here(int depth) {
  if (depth > 0) {
    volatile int keep_frame = depth;  // no tail call: each level stays on the stack
    const int own = frames_from_here(depth - 1);
    return own + (keep_frame < 0 ? 1 : 0);
  }
  void* frames[64];
  const int n = backtrace(frames, 64);
  char** names = backtrace_symbols(frames, n);
  int own = 0;
  for (int i = 0; names != nullptr && i < n; ++i) {
    if (strstr(names[i], "frames_from_here") != nullptr) ++own;
  }
  free(names);
  return own;
}

int main() {
  void* buffer = nullptr;
  const cudaError_t status = cudaMalloc(&buffer, 4096);
  printf("cudaMalloc: %d\n", static_cast<int>(status));
  printf("own frames seen by backtrace(): %d\n", frames_from_here(5));
  if (status == cudaSuccess) cudaFree(buffer);
  return 0;
}
