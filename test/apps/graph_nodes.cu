// The explicit graph API beyond graph_api: dependencies added after the
// nodes (cudaGraphAddDependencies, cudaGraphRemoveDependencies,
// cudaGraphGetEdges) that decide the launch order; node parameters read and
// changed in the graph and in its executable graph (kernel, memset, copy);
// 3D and array copy nodes; and conditional nodes (cudaGraphAddNode): an IF
// body, an IF/ELSE whose ELSE body runs, and a WHILE loop whose body kernel
// ends it with cudaGraphSetConditional after three iterations.
//
// On simcuda device code never runs: SIMCUDA_GRAPH_CONDITIONS
// (while_body_kernel=1:1:0) stands for what the body kernel sets, and the
// check of the loop's counter is skipped there (the app is told by argv[1]
// "simulated").
// Usage: graph_nodes [simulated]. Prints one line.
#include <cstdint>
#include <cstring>

#include "app_common.h"

constexpr size_t kBytes = 1 << 16;
constexpr int kLaunches = 2;
constexpr unsigned kWhileIterations = 3;
// The 3D copies: a float array of 64 x 8 x 4 and a pitched buffer of the same shape.
constexpr size_t kWidth = 64, kHeight = 8, kDepth = 4;

__global__ void order_kernel(unsigned char* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

__global__ void if_body_kernel(unsigned* hits) { atomicAdd(hits, 1u); }
__global__ void else_body_kernel(unsigned* hits) { atomicAdd(hits + 1, 1u); }

__global__ void while_body_kernel(unsigned* counter, cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    unsigned left = --*counter;
    if (left == 0) cudaGraphSetConditional(handle, 0);
  }
}

cudaKernelNodeParams kernel_params(void* func, unsigned blocks, void** args) {
  cudaKernelNodeParams params{};
  params.func = func;
  params.gridDim = dim3(blocks);
  params.blockDim = dim3(blocks > 1 ? 256 : 1);
  params.kernelParams = args;
  return params;
}

cudaMemsetParams memset_params(void* dst, unsigned value, unsigned element_size, size_t width) {
  cudaMemsetParams params{};
  params.dst = dst;
  params.value = value;
  params.elementSize = element_size;
  params.width = width;
  params.height = 1;
  return params;
}

// A conditional node of `type` with `size` bodies on `handle`; returns the bodies.
cudaGraphNode_t add_conditional(cudaGraph_t graph, const cudaGraphNode_t* after, cudaGraphConditionalHandle handle,
                                cudaGraphConditionalNodeType type, unsigned size, cudaGraph_t* bodies) {
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = type;
  params.conditional.size = size;
  cudaGraphNode_t node;
  CHECK_CUDA(cudaGraphAddNode(&node, graph, after, nullptr, after ? 1 : 0, &params));
  for (unsigned i = 0; i < size; ++i) bodies[i] = params.conditional.phGraph_out[i];
  return node;
}

int main(int argc, char** argv) {
  bool simulated = argc > 1 && std::strcmp(argv[1], "simulated") == 0;
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  unsigned char *data = nullptr, *scratch = nullptr, *host = nullptr, *host_again = nullptr;
  CHECK_CUDA(cudaMalloc(&data, kBytes));
  CHECK_CUDA(cudaMalloc(&scratch, kBytes));
  CHECK_CUDA(cudaMallocHost(&host, kBytes));
  CHECK_CUDA(cudaMallocHost(&host_again, kBytes));
  unsigned* counters = nullptr;  // [0] IF hits, [1] ELSE hits, [2] the WHILE loop's counter
  CHECK_CUDA(cudaMalloc(&counters, 3 * sizeof(unsigned)));
  CHECK_CUDA(cudaMemset(counters, 0, 3 * sizeof(unsigned)));
  int n = static_cast<int>(kBytes);

  cudaGraph_t graph;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  // Added in the reverse of their launch order, and ordered by dependencies
  // added afterwards: fill, then the kernel, then the copy out.
  cudaGraphNode_t copy_node, kernel_node, fill_node;
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_node, graph, nullptr, 0, host, data, kBytes, cudaMemcpyDeviceToHost));
  void* kernel_args[] = {&scratch, &n};
  cudaKernelNodeParams kernel = kernel_params(reinterpret_cast<void*>(order_kernel), 1, kernel_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&kernel_node, graph, nullptr, 0, &kernel));
  cudaMemsetParams fill = memset_params(data, 7, 1, kBytes);
  CHECK_CUDA(cudaGraphAddMemsetNode(&fill_node, graph, nullptr, 0, &fill));
  cudaGraphNode_t from[] = {fill_node, kernel_node, fill_node};
  cudaGraphNode_t to[] = {kernel_node, copy_node, copy_node};
  CHECK_CUDA(cudaGraphAddDependencies(graph, from, to, nullptr, 3));
  CHECK_CUDA(cudaGraphRemoveDependencies(graph, &from[2], &to[2], nullptr, 1));  // implied by the other two
  size_t edges = 0;
  CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  CHECK_TRUE(edges == 2);
  cudaGraphNode_t edge_from[2], edge_to[2];
  CHECK_CUDA(cudaGraphGetEdges(graph, edge_from, edge_to, nullptr, &edges));
  CHECK_TRUE(edge_from[0] == fill_node && edge_to[0] == kernel_node && edge_to[1] == copy_node);

  // Parameters read back and changed before instantiation.
  cudaMemsetParams read_fill{};
  CHECK_CUDA(cudaGraphMemsetNodeGetParams(fill_node, &read_fill));
  CHECK_TRUE(read_fill.value == 7 && read_fill.width == kBytes);
  fill.value = 9;
  CHECK_CUDA(cudaGraphMemsetNodeSetParams(fill_node, &fill));
  cudaKernelNodeParams read_kernel{};
  CHECK_CUDA(cudaGraphKernelNodeGetParams(kernel_node, &read_kernel));
  CHECK_TRUE(read_kernel.func == reinterpret_cast<void*>(order_kernel) && read_kernel.gridDim.x == 1);
  read_kernel.gridDim = dim3(kBytes / 256);
  read_kernel.blockDim = dim3(256);
  CHECK_CUDA(cudaGraphKernelNodeSetParams(kernel_node, &read_kernel));
  cudaGraphNodeType type;
  CHECK_CUDA(cudaGraphNodeGetType(kernel_node, &type));
  CHECK_TRUE(type == cudaGraphNodeTypeKernel);

  // 3D copies: a pitched buffer of kDepth slices into a 3D float array, and
  // the array back out to host memory.
  cudaArray_t array;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  CHECK_CUDA(cudaMalloc3DArray(&array, &desc, make_cudaExtent(kWidth, kHeight, kDepth)));
  size_t pitch = 0;
  float* volume = nullptr;
  CHECK_CUDA(cudaMallocPitch(reinterpret_cast<void**>(&volume), &pitch, kWidth * sizeof(float), kHeight * kDepth));
  size_t volume_bytes = kWidth * kHeight * kDepth * sizeof(float);
  float *volume_in = nullptr, *volume_out = nullptr;
  CHECK_CUDA(cudaMallocHost(&volume_in, volume_bytes));
  CHECK_CUDA(cudaMallocHost(&volume_out, volume_bytes));
  for (size_t i = 0; i < kWidth * kHeight * kDepth; ++i) volume_in[i] = static_cast<float>(i);
  CHECK_CUDA(cudaMemcpy2D(volume, pitch, volume_in, kWidth * sizeof(float), kWidth * sizeof(float), kHeight * kDepth,
                          cudaMemcpyHostToDevice));
  cudaMemcpy3DParms to_array{};
  to_array.srcPtr = make_cudaPitchedPtr(volume, pitch, kWidth, kHeight);
  to_array.dstArray = array;
  to_array.extent = make_cudaExtent(kWidth, kHeight, kDepth);
  to_array.kind = cudaMemcpyDeviceToDevice;
  cudaGraphNode_t to_array_node, from_array_node;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&to_array_node, graph, &copy_node, 1, &to_array));
  cudaMemcpy3DParms from_array{};
  from_array.srcArray = array;
  from_array.dstPtr = make_cudaPitchedPtr(volume_out, kWidth * sizeof(float), kWidth, kHeight);
  from_array.extent = make_cudaExtent(kWidth, kHeight, kDepth);
  from_array.kind = cudaMemcpyDeviceToHost;
  CHECK_CUDA(cudaGraphAddMemcpyNode(&from_array_node, graph, &to_array_node, 1, &from_array));

  // Conditional nodes: IF (taken), IF/ELSE (ELSE taken), and a WHILE loop.
  cudaGraphConditionalHandle taken, not_taken, loop;
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&taken, graph, 1, cudaGraphCondAssignDefault));
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&not_taken, graph, 0, cudaGraphCondAssignDefault));
  CHECK_CUDA(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault));
  cudaGraph_t bodies[2];
  cudaGraphNode_t if_node = add_conditional(graph, &from_array_node, taken, cudaGraphCondTypeIf, 1, bodies);
  cudaGraphNode_t body_node;
  void* if_args[] = {&counters};
  cudaKernelNodeParams if_kernel = kernel_params(reinterpret_cast<void*>(if_body_kernel), 1, if_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&body_node, bodies[0], nullptr, 0, &if_kernel));
  cudaGraphNode_t else_node = add_conditional(graph, &if_node, not_taken, cudaGraphCondTypeIf, 2, bodies);
  cudaKernelNodeParams else_kernel = kernel_params(reinterpret_cast<void*>(else_body_kernel), 1, if_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&body_node, bodies[0], nullptr, 0, &if_kernel));  // not run
  CHECK_CUDA(cudaGraphAddKernelNode(&body_node, bodies[1], nullptr, 0, &else_kernel));
  cudaGraphNode_t counter_node;
  unsigned* loop_counter = counters + 2;
  cudaMemsetParams start_count = memset_params(loop_counter, kWhileIterations, sizeof(unsigned), 1);
  CHECK_CUDA(cudaGraphAddMemsetNode(&counter_node, graph, &else_node, 1, &start_count));
  add_conditional(graph, &counter_node, loop, cudaGraphCondTypeWhile, 1, bodies);
  void* while_args[] = {&loop_counter, &loop};
  cudaKernelNodeParams while_kernel = kernel_params(reinterpret_cast<void*>(while_body_kernel), 1, while_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&body_node, bodies[0], nullptr, 0, &while_kernel));
  size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK_TRUE(nodes == 9);

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < kLaunches; ++launch) {
    if (launch == 1) {
      // The executable graph's own parameters: another fill value, the whole
      // buffer's kernel again, and the copy into the second host buffer.
      cudaMemsetParams refill = memset_params(data, 5, 1, kBytes);
      CHECK_CUDA(cudaGraphExecMemsetNodeSetParams(exec, fill_node, &refill));
      CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, kernel_node, &read_kernel));
      CHECK_CUDA(cudaGraphExecMemcpyNodeSetParams1D(exec, copy_node, host_again, data, kBytes,
                                                    cudaMemcpyDeviceToHost));
    }
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }
  for (size_t i = 0; i < kBytes; ++i) CHECK_TRUE(host[i] == 9 && host_again[i] == 5);
  CHECK_TRUE(std::memcmp(volume_in, volume_out, volume_bytes) == 0);
  unsigned hits[3] = {};
  CHECK_CUDA(cudaMemcpy(hits, counters, sizeof hits, cudaMemcpyDeviceToHost));
  // Kernels do not run on simcuda: the counters stay as the memsets left them.
  CHECK_TRUE(simulated ? hits[0] == 0 && hits[1] == 0 && hits[2] == kWhileIterations
                       : hits[0] == kLaunches && hits[1] == kLaunches && hits[2] == 0);

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaFreeArray(array));
  CHECK_CUDA(cudaFree(volume));
  CHECK_CUDA(cudaFree(counters));
  CHECK_CUDA(cudaFree(data));
  CHECK_CUDA(cudaFree(scratch));
  CHECK_CUDA(cudaFreeHost(volume_in));
  CHECK_CUDA(cudaFreeHost(volume_out));
  CHECK_CUDA(cudaFreeHost(host));
  CHECK_CUDA(cudaFreeHost(host_again));
  CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("graph_nodes: %d launches of a graph ordered by added dependencies, with changed parameters, 3D and"
              " array copies, IF, IF/ELSE and a WHILE loop of %u iterations\n", kLaunches, kWhileIterations);
  return 0;
}
