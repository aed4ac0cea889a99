// A CUDA program that leans on its own C++ runtime while the agent is
// loaded: strings, streams, a thread, exceptions thrown and caught, all
// around CUDA calls and NVTX ranges the agent records. Built twice by
// test/install: with clang -stdlib=libc++ (another C++ runtime in the
// process), and with g++ to run against an older libstdc++ than the one
// the agent was built with. Prints what it did, for the test to compare
// with the recording.
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

// One step: a copy there and back, under an NVTX range named step#N.
void run_step(int step, float* device, std::vector<float>& host) {
  std::ostringstream name;
  name << "step#" << step;
  nvtxRangePushA(name.str().c_str());
  check(cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice), "copy in");
  check(cudaMemcpy(host.data(), device, host.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  nvtxRangePop();
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 4;
  std::vector<float> host(1024, 1.0f);
  float* device = nullptr;
  int caught = 0;
  try {
    check(cudaMalloc(reinterpret_cast<void**>(&device), host.size() * sizeof(float)), "cudaMalloc");
    for (int step = 0; step < steps; ++step) {
      // A thread of the app's own runtime does each step.
      std::thread worker(run_step, step, device, std::ref(host));
      worker.join();
      try {
        throw std::out_of_range("step " + std::to_string(step));
      } catch (const std::out_of_range&) {
        ++caught;
      }
    }
    check(cudaFree(device), "cudaFree");
  } catch (const std::exception& error) {
    std::cerr << "foreign_runtime_app: " << error.what() << "\n";
    return 1;
  }
  std::cout << "foreign_runtime_app: " << steps << " steps, " << 2 * steps << " copies, " << caught
            << " exceptions caught" << std::endl;
  return 0;
}
