// Calls a runtime function the loaded runtime may lack
// (cudaLaunchCooperativeKernel: simcuda has none, nor has an old runtime).
// Linked lazily: without the agent, the loader stops the program at the
// call (exit 127); with it, the agent's wrapper answers with the error the
// runtime gives for an entry point it cannot reach. Prints that error.
#include <cuda_runtime_api.h>

#include <cstdio>

static void not_a_kernel() {}

int main() {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  printf("calling\n");
  const cudaError_t result =
      cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&not_a_kernel), dim3(1), dim3(1), nullptr, 0, nullptr);
  printf("cudaLaunchCooperativeKernel %d\n", static_cast<int>(result));
  return 0;
}
