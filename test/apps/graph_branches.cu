// Graphs whose branches have no dependency between them, which a GPU may run
// at the same time: an explicit graph (a memset, then two kernels that both
// follow it and not each other, then a kernel that follows both) and the same
// shape captured from two streams forked and joined by events. Each graph is
// launched twice. On simcuda the two branch kernels start together and the
// join kernel starts when the longer of them ends (test/simcuda/tests/
// check_app.py); on a GPU this app checks only that the work ran.
// Usage: graph_branches. Prints one line.
#include <cstring>

#include "app_common.h"

constexpr int kElements = 1 << 14;
constexpr int kLaunches = 2;

__global__ void branch_a_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}

__global__ void branch_b_kernel(float* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 2.0f;
}

__global__ void join_kernel(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

cudaKernelNodeParams kernel_node(void* func, void** args) {
  cudaKernelNodeParams params{};
  params.func = func;
  params.gridDim = dim3(kElements / 256);
  params.blockDim = dim3(256);
  params.kernelParams = args;
  return params;
}

int main() {
  float *a = nullptr, *b = nullptr, *out = nullptr;
  size_t bytes = kElements * sizeof(float);
  CHECK_CUDA(cudaMalloc(&a, bytes));
  CHECK_CUDA(cudaMalloc(&b, bytes));
  CHECK_CUDA(cudaMalloc(&out, bytes));
  int n = kElements;
  cudaStream_t stream, side;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));

  // Explicit: clear a and b (one memset node each, in a chain), then the branches, then the join.
  cudaGraph_t explicit_graph;
  CHECK_CUDA(cudaGraphCreate(&explicit_graph, 0));
  cudaMemsetParams clear{};
  clear.dst = a;
  clear.elementSize = 1;
  clear.width = bytes;
  clear.height = 1;
  cudaGraphNode_t clear_a, clear_b, branch_a, branch_b, join;
  CHECK_CUDA(cudaGraphAddMemsetNode(&clear_a, explicit_graph, nullptr, 0, &clear));
  clear.dst = b;
  CHECK_CUDA(cudaGraphAddMemsetNode(&clear_b, explicit_graph, &clear_a, 1, &clear));
  void* a_args[] = {&a, &n};
  void* b_args[] = {&b, &n};
  void* join_args[] = {&a, &b, &out, &n};
  cudaKernelNodeParams params = kernel_node(reinterpret_cast<void*>(branch_a_kernel), a_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&branch_a, explicit_graph, &clear_b, 1, &params));
  params = kernel_node(reinterpret_cast<void*>(branch_b_kernel), b_args);
  CHECK_CUDA(cudaGraphAddKernelNode(&branch_b, explicit_graph, &clear_b, 1, &params));
  params = kernel_node(reinterpret_cast<void*>(join_kernel), join_args);
  cudaGraphNode_t both[] = {branch_a, branch_b};
  CHECK_CUDA(cudaGraphAddKernelNode(&join, explicit_graph, both, 2, &params));

  // Captured: the same branches on two streams, forked and joined by events.
  cudaEvent_t fork, joined;
  CHECK_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
  cudaGraph_t captured_graph;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemsetAsync(a, 0, bytes, stream));
  CHECK_CUDA(cudaMemsetAsync(b, 0, bytes, stream));
  CHECK_CUDA(cudaEventRecord(fork, stream));
  CHECK_CUDA(cudaStreamWaitEvent(side, fork, 0));
  branch_a_kernel<<<kElements / 256, 256, 0, stream>>>(a, n);
  branch_b_kernel<<<kElements / 256, 256, 0, side>>>(b, n);
  CHECK_CUDA(cudaEventRecord(joined, side));
  CHECK_CUDA(cudaStreamWaitEvent(stream, joined, 0));
  join_kernel<<<kElements / 256, 256, 0, stream>>>(a, b, out, n);
  CHECK_CUDA(cudaStreamEndCapture(stream, &captured_graph));
  size_t edges = 0;
  CHECK_CUDA(cudaGraphGetEdges(captured_graph, nullptr, nullptr, nullptr, &edges));
  CHECK_TRUE(edges == 5);  // clear a -> clear b -> each branch -> the join

  float* host = nullptr;
  CHECK_CUDA(cudaMallocHost(&host, bytes));
  for (cudaGraph_t graph : {explicit_graph, captured_graph}) {
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < kLaunches; ++launch) CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
  }
  CHECK_CUDA(cudaMemcpy(host, out, bytes, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFreeHost(host));
  CHECK_CUDA(cudaEventDestroy(fork));
  CHECK_CUDA(cudaEventDestroy(joined));
  CHECK_CUDA(cudaStreamDestroy(side));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFree(a));
  CHECK_CUDA(cudaFree(b));
  CHECK_CUDA(cudaFree(out));
  std::printf("graph_branches: an explicit and a captured graph of two independent branches and a join, %d launches"
              " each\n", kLaunches);
  return 0;
}
