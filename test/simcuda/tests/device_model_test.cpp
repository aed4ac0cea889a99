// Semantics of the simulated device that the apps do not pin down: errors, sticky
// errors, legacy-stream synchronisation, real-time waits, several devices and
// cuGetProcAddress. Runs against simcuda's libraries (linked directly).
#include <catch2/catch.hpp>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <ctime>

extern "C" {
// nvcc's generated code calls these; the test registers kernels the same way.
void** __cudaRegisterFatBinary(void* fatCubin);
void __cudaRegisterFatBinaryEnd(void** handle);
void __cudaRegisterFunction(void** handle, const char* hostFun, char* deviceFun, const char* deviceName,
                            int threadLimit, uint3* tid, uint3* bid, dim3* bDim, dim3* gDim, int* wSize);
}

namespace {

// Host stubs: only their addresses matter.
void slow_kernel_stub() {}
void fast_kernel_stub() {}
void faulty_kernel_stub() {}
void stall_kernel_stub() {}

struct RegisterKernels {
  RegisterKernels() {
    void** fatbin = __cudaRegisterFatBinary(nullptr);
    __cudaRegisterFunction(fatbin, reinterpret_cast<const char*>(&slow_kernel_stub), nullptr, "slow_kernel", -1,
                           nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFunction(fatbin, reinterpret_cast<const char*>(&fast_kernel_stub), nullptr, "fast_kernel", -1,
                           nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFunction(fatbin, reinterpret_cast<const char*>(&faulty_kernel_stub), nullptr, "faulty_kernel",
                           -1, nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFunction(fatbin, reinterpret_cast<const char*>(&stall_kernel_stub), nullptr, "stall_kernel", -1,
                           nullptr, nullptr, nullptr, nullptr, nullptr);
    __cudaRegisterFatBinaryEnd(fatbin);
  }
} const registered;

uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t now_ns() { return clock_ns(CLOCK_MONOTONIC); }

cudaError_t launch(void (*stub)(), cudaStream_t stream = nullptr) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(stub), dim3(1), dim3(32), nullptr, 0, stream);
}

}  // namespace

// The ctest entries set SIMCUDA_KERNEL_NS="slow=50000000,fast=1000,stall=1000000000",
// SIMCUDA_PINNED_GBPS=2 and SIMCUDA_DEVICES=2.

TEST_CASE("a launch loop ahead of the device blocks at the stream's queue depth", "[queue]") {
  constexpr int kDepth = 1024;  // simcuda's default, as documented
  constexpr uint64_t kStallNs = 1000000000;  // long enough for a loaded machine to fill the queue
  cudaStream_t stream;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  uint64_t start = now_ns();
  REQUIRE(launch(stall_kernel_stub, stream) == cudaSuccess);
  for (int i = 1; i < kDepth; ++i) REQUIRE(launch(fast_kernel_stub, stream) == cudaSuccess);
  uint64_t filled = now_ns();
  // The queue holds kDepth operations behind the stalled kernel: the next launch
  // waits until that kernel has completed, not longer.
  REQUIRE(launch(fast_kernel_stub, stream) == cudaSuccess);
  uint64_t blocked = now_ns();
  CHECK(filled - start < kStallNs);
  CHECK(blocked - start >= kStallNs);
  CHECK(blocked - start < kStallNs + 500000000ull);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("a large asynchronous copy returns at once and its bytes are there after the sync", "[copies]") {
  constexpr size_t kBytes = 128u << 20;
  unsigned char* pinned = nullptr;
  unsigned char* device = nullptr;
  REQUIRE(cudaMallocHost(reinterpret_cast<void**>(&pinned), kBytes) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&device), kBytes) == cudaSuccess);
  for (size_t i = 0; i < kBytes; ++i) pinned[i] = static_cast<unsigned char>(i % 251);
  cudaStream_t stream;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t before, after;
  REQUIRE(cudaEventCreate(&before) == cudaSuccess);
  REQUIRE(cudaEventCreate(&after) == cudaSuccess);
  REQUIRE(cudaEventRecord(before, stream) == cudaSuccess);
  uint64_t call_start = now_ns();
  uint64_t call_cpu_start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  REQUIRE(cudaMemcpyAsync(device, pinned, kBytes, cudaMemcpyHostToDevice, stream) == cudaSuccess);
  uint64_t call_ns = now_ns() - call_start;
  uint64_t call_cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - call_cpu_start;
  REQUIRE(cudaEventRecord(after, stream) == cudaSuccess);
  // Not complete yet: the copy takes 67 ms of simulated time at the test's 2 GB/s.
  CHECK(cudaStreamQuery(stream) == cudaErrorNotReady);
  REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  float copy_ms = 0;
  REQUIRE(cudaEventElapsedTime(&copy_ms, before, after) == cudaSuccess);
  CHECK(copy_ms > 60.0f);
  // The host did not move the bytes: the call took little of this thread's
  // time, and returned well before the copy's end. Under ThreadSanitizer the
  // device thread's copy of 128 MiB (every byte checked) takes the cores
  // from this thread on a loaded machine (the call measured 51 ms of wall
  // time in one of the first two full runs), so there only this thread's
  // CPU time counts.
  CHECK(static_cast<double>(call_cpu_ns) < copy_ms * 1e6 / 2);
#ifndef __SANITIZE_THREAD__
  CHECK(static_cast<double>(call_ns) < copy_ms * 1e6 / 2);
#else
  (void)call_ns;
#endif
  bool same = true;  // simcuda's device memory is host memory
  for (size_t i = 0; i < kBytes && same; ++i) same = device[i] == static_cast<unsigned char>(i % 251);
  CHECK(same);
  REQUIRE(cudaFree(device) == cudaSuccess);
  REQUIRE(cudaFreeHost(pinned) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("device properties agree with the attributes they mirror", "[devices]") {
  cudaDeviceProp prop{};
  REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  auto attr = [](cudaDeviceAttr a) {
    int value = -1;
    REQUIRE(cudaDeviceGetAttribute(&value, a, 0) == cudaSuccess);
    return value;
  };
  CHECK(attr(cudaDevAttrGpuOverlap) == (prop.asyncEngineCount > 0 ? 1 : 0));
  CHECK(prop.asyncEngineCount == attr(cudaDevAttrAsyncEngineCount));
  CHECK(prop.concurrentKernels == attr(cudaDevAttrConcurrentKernels));
  CHECK(prop.canMapHostMemory == attr(cudaDevAttrCanMapHostMemory));
  CHECK(prop.unifiedAddressing == attr(cudaDevAttrUnifiedAddressing));
  CHECK(prop.managedMemory == attr(cudaDevAttrManagedMemory));
  CHECK(prop.concurrentManagedAccess == attr(cudaDevAttrConcurrentManagedAccess));
  CHECK(prop.memoryPoolsSupported == attr(cudaDevAttrMemoryPoolsSupported));
  CHECK(prop.multiProcessorCount == attr(cudaDevAttrMultiProcessorCount));
  CHECK(prop.maxThreadsPerMultiProcessor == attr(cudaDevAttrMaxThreadsPerMultiProcessor));
  CHECK(prop.sharedMemPerBlock <= prop.sharedMemPerBlockOptin);
  CHECK(prop.sharedMemPerBlockOptin <= prop.sharedMemPerMultiprocessor);
  CHECK(prop.cooperativeLaunch == attr(cudaDevAttrCooperativeLaunch));
  CHECK(prop.hostRegisterSupported == attr(cudaDevAttrHostRegisterSupported));
  CHECK(prop.texturePitchAlignment == static_cast<size_t>(attr(cudaDevAttrTexturePitchAlignment)));
  // Managed memory without unified addressing cannot exist.
  CHECK((prop.managedMemory == 0 || prop.unifiedAddressing == 1));
  CHECK((prop.concurrentManagedAccess == 0 || prop.managedMemory == 1));
}

TEST_CASE("a synchronisation returns only after the simulated end of the work", "[timing]") {
  uint64_t before = now_ns();
  REQUIRE(launch(slow_kernel_stub) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(now_ns() - before >= 50000000ull);
}

TEST_CASE("events time the simulated work exactly", "[timing]") {
  cudaEvent_t start, stop;
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
  const uint64_t before_start = now_ns();
  REQUIRE(cudaEventRecord(start) == cudaSuccess);
  REQUIRE(launch(slow_kernel_stub) == cudaSuccess);
  const uint64_t host_gap_ns = now_ns() - before_start;
  REQUIRE(cudaEventRecord(stop) == cudaSuccess);
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorNotReady);
  REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
  REQUIRE(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
  // The 50 ms kernel, plus the host's time from the start event to the
  // launch (bounded by host_gap_ns: under a sanitizer or on a loaded machine
  // it is not a fixed 0.1 ms) and simcuda's launch latency (2 us, its
  // default). 1 us more for the float's rounding.
  constexpr uint64_t kLaunchLatencyNs = 2000, kRoundingNs = 1000;
  CHECK(ms >= 50.0f);
  CHECK(static_cast<double>(ms) * 1e6 <= static_cast<double>(50000000 + host_gap_ns + kLaunchLatencyNs + kRoundingNs));
}

TEST_CASE("the legacy default stream waits for blocking streams, not for non-blocking ones", "[streams]") {
  cudaStream_t blocking, non_blocking;
  REQUIRE(cudaStreamCreate(&blocking) == cudaSuccess);
  REQUIRE(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking) == cudaSuccess);
  REQUIRE(launch(slow_kernel_stub, blocking) == cudaSuccess);
  REQUIRE(launch(slow_kernel_stub, non_blocking) == cudaSuccess);
  REQUIRE(launch(fast_kernel_stub, nullptr) == cudaSuccess);  // legacy: after `blocking`'s kernel
  REQUIRE(cudaStreamSynchronize(nullptr) == cudaSuccess);
  CHECK(cudaStreamQuery(blocking) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaStreamQuery(non_blocking) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(blocking) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(non_blocking) == cudaSuccess);
}

TEST_CASE("errors are reported as the real runtime reports them", "[errors]") {
  int count = 0;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 2);
  CHECK(cudaSetDevice(2) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(std::string(cudaGetErrorName(cudaErrorInvalidResourceHandle)) == "cudaErrorInvalidResourceHandle");
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument");

  cudaStream_t stream;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  CHECK(cudaStreamSynchronize(stream) == cudaErrorInvalidResourceHandle);
  cudaEvent_t never_recorded, recorded;
  REQUIRE(cudaEventCreate(&never_recorded) == cudaSuccess);
  REQUIRE(cudaEventCreate(&recorded) == cudaSuccess);
  REQUIRE(cudaEventRecord(recorded) == cudaSuccess);
  float ms;
  CHECK(cudaEventElapsedTime(&ms, never_recorded, recorded) == cudaErrorInvalidResourceHandle);
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&now_ns), dim3(1), dim3(1), nullptr, 0, nullptr) ==
        cudaErrorInvalidDeviceFunction);
  CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(&fast_kernel_stub), dim3(1), dim3(2048), nullptr, 0,
                         nullptr) == cudaErrorInvalidConfiguration);
  void* p = nullptr;
  CHECK(cudaMalloc(&p, 0) == cudaSuccess);
  CHECK(p == nullptr);
  CHECK(cudaMemset(reinterpret_cast<void*>(&count), 0, sizeof count) == cudaErrorInvalidValue);
}

TEST_CASE("each device has its own memory and contexts", "[devices]") {
  REQUIRE(cudaSetDevice(1) == cudaSuccess);
  void* on_one = nullptr;
  REQUIRE(cudaMalloc(&on_one, 1024) == cudaSuccess);
  cudaPointerAttributes attributes{};
  REQUIRE(cudaPointerGetAttributes(&attributes, on_one) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeDevice);
  CHECK(attributes.device == 1);
  cudaDeviceProp prop{};
  REQUIRE(cudaGetDeviceProperties(&prop, 1) == cudaSuccess);
  CHECK(prop.major == 9);
  CHECK(prop.multiProcessorCount == 132);
  REQUIRE(cudaFree(on_one) == cudaSuccess);
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
}

TEST_CASE("cuGetProcAddress resolves by base name, version and stream flags", "[driver]") {
  REQUIRE(cuInit(0) == CUDA_SUCCESS);
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(driver != nullptr);
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  REQUIRE(cuGetProcAddress("cuMemcpyHtoD", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status) == CUDA_SUCCESS);
  CHECK(fn == dlsym(driver, "cuMemcpyHtoD_v2"));
  REQUIRE(cuGetProcAddress("cuMemcpyHtoD", &fn, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status) ==
          CUDA_SUCCESS);
  CHECK(fn == dlsym(driver, "cuMemcpyHtoD_v2_ptds"));
  REQUIRE(cuGetProcAddress("cuLaunchKernel", &fn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &status) ==
          CUDA_SUCCESS);
  CHECK(fn == dlsym(driver, "cuLaunchKernel_ptsz"));
  REQUIRE(cuGetProcAddress("cuCtxCreate", &fn, 12000, 0, &status) == CUDA_SUCCESS);
  CHECK(fn == dlsym(driver, "cuCtxCreate_v2"));
  REQUIRE(cuGetProcAddress("cuCtxCreate", &fn, 13000, 0, &status) == CUDA_SUCCESS);
  CHECK(fn == dlsym(driver, "cuCtxCreate_v4"));
  // Driver 580 returns CUDA_SUCCESS for these, with a null pointer and the reason.
  CHECK(cuGetProcAddress("cuMemAlloc", &fn, 2000, 0, &status) == CUDA_SUCCESS);
  CHECK(status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  CHECK(fn == nullptr);
  CHECK(cuGetProcAddress("cuMemAlloc_v2", &fn, 13000, 0, &status) == CUDA_SUCCESS);
  CHECK(status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  CHECK(fn == nullptr);
}

TEST_CASE("a faulting kernel makes the context's error sticky", "[sticky]") {
  REQUIRE(launch(faulty_kernel_stub) == cudaSuccess);  // reported later, like a real fault
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  int value = 0;
  void* device = nullptr;
  REQUIRE(cudaMalloc(&device, sizeof value) == cudaSuccess);
  CHECK(cudaMemcpy(device, &value, sizeof value, cudaMemcpyHostToDevice) == cudaErrorIllegalAddress);
  CHECK(launch(fast_kernel_stub) == cudaErrorIllegalAddress);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
}
