// C++ exceptions thrown and caught through several frames, in a CUDA process
// (so that the agent has started CUDA capture and loaded its private
// libunwind). The output must be the same with and without the agent.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

[[gnu::noinline]] void deep_throw(int depth) {
  if (depth == 0) throw std::runtime_error("from depth 0");
  deep_throw(depth - 1);
}

[[gnu::noinline]] int catch_at(int depth) {
  try {
    deep_throw(depth);
  } catch (const std::runtime_error& e) {
    return static_cast<int>(std::string(e.what()).size()) + depth;
  }
  return -1;
}

}  // namespace

int main() {
  void* buffer = nullptr;
  const cudaError_t status = cudaMalloc(&buffer, 1 << 20);  // starts CUDA (and the agent's capture)
  printf("cudaMalloc: %d\n", static_cast<int>(status));
  int total = 0;
  for (int i = 0; i < 1000; ++i) total += catch_at(i % 20);
  printf("caught 1000 exceptions, total %d\n", total);
  try {
    throw 42;
  } catch (int value) {
    printf("caught int %d\n", value);
  }
  if (status == cudaSuccess) cudaFree(buffer);
  return 0;
}
