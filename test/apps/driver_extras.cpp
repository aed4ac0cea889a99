// More of the driver API: a module variable (cuModuleGetGlobal) written and read,
// function attributes and the occupancy calculators, a host function and a peer
// copy reached through cuGetProcAddress (the peer copy when two devices exist).
// Linked against the toolkit's stub libcuda.so, like driver_api.
#include <cuda.h>

#include "driver_app_common.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

const char kModulePtx[] = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .global .align 4 .b8 driver_table[64];

.visible .entry driver_extra_kernel(.param .u64 data)
{
  ret;
}
)";

std::atomic<int> g_host_calls{0};
void CUDA_CB count_call(void*) { g_host_calls.fetch_add(1); }

template <typename Fn>
Fn proc(const char* name) {
  void* pointer = nullptr;
  CUdriverProcAddressQueryResult status;
  CHECK_CU(cuGetProcAddress(name, &pointer, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  CHECK_TRUE(status == CU_GET_PROC_ADDRESS_SUCCESS && pointer != nullptr);
  return reinterpret_cast<Fn>(pointer);
}

}  // namespace

int main() {
  CHECK_CU(cuInit(0));
  int device_count = 0;
  CHECK_CU(cuDeviceGetCount(&device_count));
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));

  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, kModulePtx));
  CUdeviceptr table;
  size_t table_bytes = 0;
  CHECK_CU(cuModuleGetGlobal(&table, &table_bytes, module, "driver_table"));
  CHECK_TRUE(table_bytes == 64);
  unsigned char values[64], back[64] = {};
  for (int i = 0; i < 64; ++i) values[i] = static_cast<unsigned char>(i + 100);
  CHECK_CU(cuMemcpyHtoD(table, values, sizeof values));
  CHECK_CU(cuMemcpyDtoH(back, table, sizeof back));
  CHECK_TRUE(std::memcmp(values, back, sizeof values) == 0);

  CUfunction kernel;
  CHECK_CU(cuModuleGetFunction(&kernel, module, "driver_extra_kernel"));
  int max_threads = 0;
  CHECK_CU(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel));
  CHECK_TRUE(max_threads > 0 && max_threads <= 1024);
  int min_grid = 0, block = 0, blocks_per_sm = 0;
  CHECK_CU(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel, nullptr, 0, 0));
  CHECK_TRUE(block > 0 && block <= max_threads && min_grid > 0);
  CHECK_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, block, 0));
  CHECK_TRUE(blocks_per_sm > 0);

  CUstream stream;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  void* args[] = {&table};
  CHECK_CU(cuLaunchKernel(kernel, min_grid, 1, 1, block, 1, 1, 0, stream, args, nullptr));
  using HostFunc = CUresult(CUDAAPI*)(CUstream, CUhostFn, void*);
  CHECK_CU(proc<HostFunc>("cuLaunchHostFunc")(stream, count_call, nullptr));
  CHECK_CU(cuStreamSynchronize(stream));
  CHECK_TRUE(g_host_calls.load() == 1);

  int peer_copies = 0;
  if (device_count >= 2) {
    CUdevice other;
    CHECK_CU(cuDeviceGet(&other, 1));
    CUcontext other_context;
    CHECK_CU(cuDevicePrimaryCtxRetain(&other_context, other));
    CHECK_CU(cuCtxSetCurrent(other_context));
    CUdeviceptr remote;
    CHECK_CU(cuMemAlloc(&remote, sizeof values));
    CHECK_CU(cuCtxSetCurrent(context));
    using PeerCopy = CUresult(CUDAAPI*)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t);
    CHECK_CU(proc<PeerCopy>("cuMemcpyPeer")(remote, other_context, table, context, sizeof values));
    std::memset(back, 0, sizeof back);
    CHECK_CU(cuCtxSetCurrent(other_context));
    CHECK_CU(cuMemcpyDtoH(back, remote, sizeof back));
    CHECK_TRUE(std::memcmp(values, back, sizeof values) == 0);
    CHECK_CU(cuMemFree(remote));
    CHECK_CU(cuCtxSetCurrent(context));
    peer_copies = 1;
  }

  CHECK_CU(cuStreamDestroy(stream));
  CHECK_CU(cuModuleUnload(module));
  std::printf("driver_extras: module variable, occupancy, host function, %d peer copy\n", peer_copies);
  return 0;
}
