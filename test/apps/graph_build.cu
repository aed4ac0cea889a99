// Graphs beyond simple capture. (1) A graph built node by node: memory allocation,
// memset, copy in, kernel, copy out, host node and memory free, uploaded, replayed
// in a loop, then its kernel node changed in the executable. A second graph without
// memory nodes (CUDA does not clone or update those) is cloned and its executable
// updated from the clone. (2) A captured graph with stream-ordered
// allocation (cudaMallocAsync / cudaFreeAsync) and a second stream joined to the
// capture by an event: nothing runs at capture time, everything at each launch.
// usage: graph_build [replays]
#include <atomic>
#include <vector>

#include "app_common.h"

__global__ void graph_node_kernel(unsigned char* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i];
}

__global__ void capture_fork_kernel(unsigned char* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i];
}

std::atomic<int> g_host_calls{0};
void CUDART_CB count_host_call(void*) { g_host_calls.fetch_add(1); }

int main(int argc, char** argv) {
  int replays = static_cast<int>(arg_count(argc, argv, 1, 5));
  constexpr int kBytes = 1 << 16;
  unsigned char* in = nullptr;
  unsigned char* out = nullptr;
  CHECK_CUDA(cudaMallocHost(&in, kBytes));
  CHECK_CUDA(cudaMallocHost(&out, kBytes));
  for (int i = 0; i < kBytes; ++i) in[i] = static_cast<unsigned char>(i * 3 + 1);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // (1) Built node by node, each after the one before it.
  cudaGraph_t graph;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaMemAllocNodeParams alloc{};
  alloc.poolProps.allocType = cudaMemAllocationTypePinned;
  alloc.poolProps.location = {cudaMemLocationTypeDevice, device};
  alloc.bytesize = kBytes;
  cudaGraphNode_t alloc_node, memset_node, copy_in, kernel_node, copy_out, host_node, free_node;
  CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc_node, graph, nullptr, 0, &alloc));
  auto* buffer = static_cast<unsigned char*>(alloc.dptr);
  cudaMemsetParams fill{};
  fill.dst = buffer;
  fill.value = 0x11;
  fill.elementSize = 1;
  fill.width = kBytes;
  fill.height = 1;
  CHECK_CUDA(cudaGraphAddMemsetNode(&memset_node, graph, &alloc_node, 1, &fill));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_in, graph, &memset_node, 1, buffer, in, kBytes, cudaMemcpyHostToDevice));
  int n = kBytes;
  void* args[] = {&buffer, &n};
  cudaKernelNodeParams kernel{};
  kernel.func = reinterpret_cast<void*>(graph_node_kernel);
  kernel.gridDim = dim3(kBytes / 256);
  kernel.blockDim = dim3(256);
  kernel.kernelParams = args;
  CHECK_CUDA(cudaGraphAddKernelNode(&kernel_node, graph, &copy_in, 1, &kernel));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_out, graph, &kernel_node, 1, out, buffer, kBytes, cudaMemcpyDeviceToHost));
  cudaHostNodeParams host{count_host_call, nullptr};
  CHECK_CUDA(cudaGraphAddHostNode(&host_node, graph, &copy_out, 1, &host));
  CHECK_CUDA(cudaGraphAddMemFreeNode(&free_node, graph, &host_node, 1, buffer));
  size_t node_count = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &node_count));
  CHECK_TRUE(node_count == 7);

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphUpload(exec, stream));
  for (int r = 0; r < replays; ++r) {
    std::fill(out, out + kBytes, 0);
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    for (int i = 0; i < kBytes; i += 97) CHECK_TRUE(out[i] == in[i]);
  }
  CHECK_TRUE(g_host_calls.load() == replays);
  kernel.gridDim = dim3(kBytes / 128);
  kernel.blockDim = dim3(128);
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, kernel_node, &kernel));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(g_host_calls.load() == replays + 1);

  // A kernel and a host node on ordinary memory: cloned, and the executable of
  // the original updated from the clone.
  unsigned char* plain = nullptr;
  CHECK_CUDA(cudaMalloc(&plain, kBytes));
  cudaGraph_t small, clone;
  CHECK_CUDA(cudaGraphCreate(&small, 0));
  void* plain_args[] = {&plain, &n};
  kernel.gridDim = dim3(kBytes / 256);
  kernel.blockDim = dim3(256);
  kernel.kernelParams = plain_args;
  cudaGraphNode_t small_kernel, small_host;
  CHECK_CUDA(cudaGraphAddKernelNode(&small_kernel, small, nullptr, 0, &kernel));
  CHECK_CUDA(cudaGraphAddHostNode(&small_host, small, &small_kernel, 1, &host));
  CHECK_CUDA(cudaGraphClone(&clone, small));
  cudaGraphExec_t small_exec;
  CHECK_CUDA(cudaGraphInstantiate(&small_exec, small, 0));
  CHECK_CUDA(cudaGraphLaunch(small_exec, stream));
  cudaGraphExecUpdateResultInfo update{};
  CHECK_CUDA(cudaGraphExecUpdate(small_exec, clone, &update));
  CHECK_TRUE(update.result == cudaGraphExecUpdateSuccess);
  CHECK_CUDA(cudaGraphLaunch(small_exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(g_host_calls.load() == replays + 3);

  // (2) Captured, with graph memory and a forked stream.
  cudaStream_t side;
  CHECK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t forked, joined;
  CHECK_CUDA(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
  cudaGraph_t captured;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  unsigned char* scratch = nullptr;
  CHECK_CUDA(cudaMallocAsync(&scratch, kBytes, stream));
  CHECK_CUDA(cudaMemsetAsync(scratch, 0x5c, kBytes, stream));
  CHECK_CUDA(cudaEventRecord(forked, stream));
  CHECK_CUDA(cudaStreamWaitEvent(side, forked, 0));
  cudaStreamCaptureStatus status;
  CHECK_CUDA(cudaStreamIsCapturing(side, &status));
  CHECK_TRUE(status == cudaStreamCaptureStatusActive);
  capture_fork_kernel<<<kBytes / 256, 256, 0, side>>>(scratch, kBytes);
  CHECK_CUDA(cudaMemcpyAsync(out, scratch, kBytes, cudaMemcpyDeviceToHost, side));
  CHECK_CUDA(cudaEventRecord(joined, side));
  CHECK_CUDA(cudaStreamWaitEvent(stream, joined, 0));
  CHECK_CUDA(cudaFreeAsync(scratch, stream));
  CHECK_CUDA(cudaStreamEndCapture(stream, &captured));
  CHECK_CUDA(cudaStreamIsCapturing(side, &status));
  CHECK_TRUE(status == cudaStreamCaptureStatusNone);
  cudaGraphExec_t captured_exec;
  CHECK_CUDA(cudaGraphInstantiate(&captured_exec, captured, 0));
  for (int r = 0; r < replays; ++r) {
    std::fill(out, out + kBytes, 0);
    CHECK_CUDA(cudaGraphLaunch(captured_exec, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_TRUE(out[0] == 0x5c && out[kBytes - 1] == 0x5c);
  }

  CHECK_CUDA(cudaGraphExecDestroy(captured_exec));
  CHECK_CUDA(cudaGraphDestroy(captured));
  CHECK_CUDA(cudaGraphExecDestroy(small_exec));
  CHECK_CUDA(cudaGraphDestroy(small));
  CHECK_CUDA(cudaGraphDestroy(clone));
  CHECK_CUDA(cudaFree(plain));
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaEventDestroy(forked));
  CHECK_CUDA(cudaEventDestroy(joined));
  CHECK_CUDA(cudaStreamDestroy(side));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(in));
  CHECK_CUDA(cudaFreeHost(out));
  std::printf("graph_build: a 7-node graph replayed %d times, a cloned and updated one, a captured fork with "
              "graph memory\n",
              replays);
  return 0;
}
