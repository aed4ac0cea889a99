// Cooperative and cluster launches: a grid sized by the occupancy API launched
// with cudaLaunchCooperativeKernel (one block more than fits is refused), the
// same through cudaLaunchKernelExC's cooperative attribute, and a launch with
// a thread block cluster dimension (Hopper). Usage: cooperative_launch.
// Prints one line.
#include "app_common.h"

constexpr int kBlock = 256;

__global__ void cooperative_kernel(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

__global__ void cluster_kernel(int* counter) {
  if (threadIdx.x == 0) atomicAdd(counter, 1);
}

int main() {
  int device = 0, cooperative = 0, multiprocessors = 0, major = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CHECK_TRUE(cooperative == 1);

  int* counter = nullptr;
  CHECK_CUDA(cudaMalloc(&counter, sizeof(int)));
  CHECK_CUDA(cudaMemset(counter, 0, sizeof(int)));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  int per_sm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cooperative_kernel, kBlock, 0));
  CHECK_TRUE(per_sm > 0);
  dim3 grid(per_sm * multiprocessors);
  void* args[] = {&counter};
  CHECK_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(cooperative_kernel), grid, dim3(kBlock), args, 0,
                                         stream));
  // A grid that cannot be resident all at once is refused.
  cudaError_t too_large = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(cooperative_kernel),
                                                      dim3(grid.x + 1), dim3(kBlock), args, 0, stream);
  CHECK_TRUE(too_large == cudaErrorCooperativeLaunchTooLarge);
  CHECK_TRUE(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);

  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeCooperative;
  attribute.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(kBlock);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  CHECK_CUDA(cudaLaunchKernelExC(&config, reinterpret_cast<void*>(cooperative_kernel), args));

  int launches = 2;
  if (major >= 9) {  // thread block clusters: compute capability 9.0 and later
    attribute = {};
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = 2;
    attribute.val.clusterDim.y = 1;
    attribute.val.clusterDim.z = 1;
    config.gridDim = dim3(8);
    CHECK_CUDA(cudaLaunchKernelExC(&config, reinterpret_cast<void*>(cluster_kernel), args));
    ++launches;
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(counter));
  std::printf("cooperative_launch: %d launches, cooperative grid of %u blocks\n", launches, grid.x);
  return 0;
}
