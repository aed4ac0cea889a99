// The explicit graph API beyond graph_build: an allocation node with no free
// node (the program frees the memory with cudaFree between launches, as
// NVIDIA's graphMemoryNodes sample does), an empty node, a child graph node,
// a kernel node's parameters changed before instantiation
// (cudaGraphKernelNodeSetParams), event wait and record nodes, a copy node
// from a 3D copy description (cudaGraphAddMemcpyNode),
// cudaGraphInstantiateWithFlags, and the device's graph memory read back
// (cudaDeviceGetGraphMemAttribute).
// Usage: graph_api. Prints one line.
#include <cstdint>

#include "app_common.h"

constexpr size_t kBytes = 1 << 20;

__global__ void graph_api_kernel(unsigned char* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

__global__ void child_kernel(unsigned char* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] ^= 3;
}

cudaKernelNodeParams kernel_params(void* func, unsigned blocks, void** args) {
  cudaKernelNodeParams params{};
  params.func = func;
  params.gridDim = dim3(blocks);
  params.blockDim = dim3(256);
  params.kernelParams = args;
  return params;
}

int main() {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  unsigned char* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch, kBytes));
  int n = static_cast<int>(kBytes);

  cudaEvent_t ready, done;
  CHECK_CUDA(cudaEventCreate(&ready));
  CHECK_CUDA(cudaEventCreate(&done));
  unsigned char* host = nullptr;
  CHECK_CUDA(cudaMallocHost(&host, kBytes));
  cudaGraph_t graph, child;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  CHECK_CUDA(cudaGraphCreate(&child, 0));

  cudaMemAllocNodeParams alloc{};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location.type = cudaMemLocationTypeDevice;
  alloc.poolProps.location.id = 0;
  alloc.bytesize = kBytes;
  cudaGraphNode_t alloc_node, memset_node, empty_node, kernel_node, child_node;
  CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc_node, graph, nullptr, 0, &alloc));
  auto* data = static_cast<unsigned char*>(alloc.dptr);
  cudaMemsetParams memset{};
  memset.dst = data;
  memset.value = 1;
  memset.elementSize = 1;
  memset.width = kBytes;
  memset.height = 1;
  CHECK_CUDA(cudaGraphAddMemsetNode(&memset_node, graph, &alloc_node, 1, &memset));
  CHECK_CUDA(cudaGraphAddEmptyNode(&empty_node, graph, &memset_node, 1));
  void* args[] = {&data, &n};
  cudaKernelNodeParams params = kernel_params(reinterpret_cast<void*>(graph_api_kernel), 1, args);
  CHECK_CUDA(cudaGraphAddKernelNode(&kernel_node, graph, &empty_node, 1, &params));
  params.gridDim = dim3(kBytes / 256);  // the whole buffer, set before instantiation
  CHECK_CUDA(cudaGraphKernelNodeSetParams(kernel_node, &params));

  void* child_args[] = {&scratch, &n};
  cudaKernelNodeParams child_params = kernel_params(reinterpret_cast<void*>(child_kernel), kBytes / 256, child_args);
  cudaGraphNode_t child_kernel_node;
  CHECK_CUDA(cudaGraphAddKernelNode(&child_kernel_node, child, nullptr, 0, &child_params));
  CHECK_CUDA(cudaGraphAddChildGraphNode(&child_node, graph, &kernel_node, 1, child));
  cudaGraphNode_t wait_node, copy_node, record_node;
  CHECK_CUDA(cudaGraphAddEventWaitNode(&wait_node, graph, &child_node, 1, ready));
  cudaMemcpy3DParms copy{};
  copy.srcPtr = make_cudaPitchedPtr(data, kBytes, kBytes, 1);
  copy.dstPtr = make_cudaPitchedPtr(host, kBytes, kBytes, 1);
  copy.extent = make_cudaExtent(kBytes, 1, 1);
  copy.kind = cudaMemcpyDeviceToHost;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&copy_node, graph, &wait_node, 1, &copy));
  CHECK_CUDA(cudaGraphAddEventRecordNode(&record_node, graph, &copy_node, 1, done));

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiateWithFlags(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {
    CHECK_CUDA(cudaEventRecord(ready, stream));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaEventSynchronize(done));  // recorded by the graph, after its copy
    CHECK_CUDA(cudaStreamSynchronize(stream));
    uint64_t reserved = 0;
    CHECK_CUDA(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    CHECK_TRUE(reserved >= kBytes);
    // The graph has no free node: its allocation is freed outside it, before
    // the next launch allocates it again.
    CHECK_CUDA(cudaFree(data));
  }
  uint64_t high = 0;
  CHECK_CUDA(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &high));
  CHECK_TRUE(high >= kBytes);
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(child));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaFree(scratch));
  CHECK_CUDA(cudaFreeHost(host));
  CHECK_CUDA(cudaEventDestroy(ready));
  CHECK_CUDA(cudaEventDestroy(done));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("graph_api: 2 launches of a graph with an allocation freed outside it, empty, child, event and copy"
              " nodes\n");
  return 0;
}
