// The explicit graph API's node parameters not covered by graph_nodes: a host
// node's function read and replaced (in the graph and in its executable
// graph), event record and wait nodes' events read and replaced, a copy
// node's parameters read back, and a node removed (cudaGraphDestroyNode)
// before instantiation, whose kernel never runs. The graph: host node ->
// event record node -> kernel -> event wait node -> copy out; launched twice,
// the host node's function changed in the executable graph in between.
// Usage: graph_setters. Prints one line.
#include <atomic>

#include "app_common.h"

constexpr size_t kBytes = 1 << 16;

__global__ void setters_kernel(unsigned char* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = 3;
}

__global__ void removed_kernel(unsigned char* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = 4;
}

// Which host function ran how often: [0] first, [1] set in the graph, [2] set in the executable graph.
std::atomic<int> g_host_runs[3];
void CUDART_CB host_first(void*) { ++g_host_runs[0]; }
void CUDART_CB host_in_graph(void* runs) { ++*static_cast<std::atomic<int>*>(runs); }

int main() {
  unsigned char *data = nullptr, *host = nullptr;
  CHECK_CUDA(cudaMalloc(&data, kBytes));
  CHECK_CUDA(cudaMallocHost(&host, kBytes));
  int n = static_cast<int>(kBytes);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t first_record, record, waited;
  CHECK_CUDA(cudaEventCreate(&first_record));
  CHECK_CUDA(cudaEventCreate(&record));
  CHECK_CUDA(cudaEventCreate(&waited));
  CHECK_CUDA(cudaEventRecord(waited, stream));  // complete before the graph runs

  cudaGraph_t graph;
  CHECK_CUDA(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t host_node, record_node, kernel_node, wait_node, copy_node, removed_node;
  cudaHostNodeParams host_params{host_first, nullptr};
  CHECK_CUDA(cudaGraphAddHostNode(&host_node, graph, nullptr, 0, &host_params));
  CHECK_CUDA(cudaGraphAddEventRecordNode(&record_node, graph, &host_node, 1, first_record));
  void* args[] = {&data, &n};
  cudaKernelNodeParams kernel{};
  kernel.func = reinterpret_cast<void*>(setters_kernel);
  kernel.gridDim = dim3(kBytes / 256);
  kernel.blockDim = dim3(256);
  kernel.kernelParams = args;
  CHECK_CUDA(cudaGraphAddKernelNode(&kernel_node, graph, &record_node, 1, &kernel));
  CHECK_CUDA(cudaGraphAddEventWaitNode(&wait_node, graph, &kernel_node, 1, first_record));
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_node, graph, &wait_node, 1, host, data, kBytes, cudaMemcpyDeviceToHost));
  kernel.func = reinterpret_cast<void*>(removed_kernel);
  CHECK_CUDA(cudaGraphAddKernelNode(&removed_node, graph, &copy_node, 1, &kernel));

  // The host node: read, then replaced in the graph.
  cudaHostNodeParams read_host{};
  CHECK_CUDA(cudaGraphHostNodeGetParams(host_node, &read_host));
  CHECK_TRUE(read_host.fn == host_first && read_host.userData == nullptr);
  host_params = {host_in_graph, &g_host_runs[1]};
  CHECK_CUDA(cudaGraphHostNodeSetParams(host_node, &host_params));
  CHECK_CUDA(cudaGraphHostNodeGetParams(host_node, &read_host));
  CHECK_TRUE(read_host.fn == host_in_graph && read_host.userData == &g_host_runs[1]);
  // The event nodes: read, then given other events.
  cudaEvent_t event = nullptr;
  CHECK_CUDA(cudaGraphEventRecordNodeGetEvent(record_node, &event));
  CHECK_TRUE(event == first_record);
  CHECK_CUDA(cudaGraphEventRecordNodeSetEvent(record_node, record));
  CHECK_CUDA(cudaGraphEventRecordNodeGetEvent(record_node, &event));
  CHECK_TRUE(event == record);
  CHECK_CUDA(cudaGraphEventWaitNodeGetEvent(wait_node, &event));
  CHECK_TRUE(event == first_record);
  CHECK_CUDA(cudaGraphEventWaitNodeSetEvent(wait_node, waited));
  CHECK_CUDA(cudaGraphEventWaitNodeGetEvent(wait_node, &event));
  CHECK_TRUE(event == waited);
  // The copy node, read back as the runtime's 3D description.
  cudaMemcpy3DParms copy{};
  CHECK_CUDA(cudaGraphMemcpyNodeGetParams(copy_node, &copy));
  CHECK_TRUE(copy.srcPtr.ptr == data && copy.dstPtr.ptr == host && copy.extent.width == kBytes &&
             copy.extent.height == 1 && copy.extent.depth == 1 && copy.kind == cudaMemcpyDeviceToHost);
  // A node removed: the graph has one node fewer, and its kernel never runs.
  size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK_TRUE(nodes == 6);
  CHECK_CUDA(cudaGraphDestroyNode(removed_node));
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK_TRUE(nodes == 5);
  size_t edges = 0;
  CHECK_CUDA(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
  CHECK_TRUE(edges == 4);

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(cudaEventQuery(record) == cudaSuccess);
  CHECK_TRUE(g_host_runs[0] == 0 && g_host_runs[1] == 1);
  // The executable graph's own: another host function, the first events again.
  host_params = {host_in_graph, &g_host_runs[2]};
  CHECK_CUDA(cudaGraphExecHostNodeSetParams(exec, host_node, &host_params));
  CHECK_CUDA(cudaGraphExecEventRecordNodeSetEvent(exec, record_node, first_record));
  CHECK_CUDA(cudaGraphExecEventWaitNodeSetEvent(exec, wait_node, first_record));
  CHECK_CUDA(cudaGraphLaunch(exec, stream));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_TRUE(cudaEventQuery(first_record) == cudaSuccess);
  CHECK_TRUE(g_host_runs[0] == 0 && g_host_runs[1] == 1 && g_host_runs[2] == 1);

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaEventDestroy(first_record));
  CHECK_CUDA(cudaEventDestroy(record));
  CHECK_CUDA(cudaEventDestroy(waited));
  CHECK_CUDA(cudaStreamDestroy(stream));
  CHECK_CUDA(cudaFreeHost(host));
  CHECK_CUDA(cudaFree(data));
  std::printf("graph_setters: host, event and copy node parameters read and set, a node removed, 2 launches\n");
  return 0;
}
