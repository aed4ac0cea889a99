// Finds the driver the way nvcc's static runtime does: dlopen("libcuda.so.1"),
// dlsym(cuGetProcAddress_v2), then cuGetProcAddress asked for itself and for
// every function by base name, version and flags; plus the runtime's
// fallback, dlsym of a suffixed name. Linked against no CUDA library.
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using GetProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

template <typename Fn>
Fn lookup(GetProcAddress get, const char* name, cuuint64_t flags) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status;
  if (get(name, &fn, 12000, flags, &status) != CUDA_SUCCESS || fn == nullptr) {
    std::fprintf(stderr, "driver_by_dlsym: no %s\n", name);
    std::exit(3);
  }
  return reinterpret_cast<Fn>(fn);
}

void check(CUresult result, const char* what) {
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "driver_by_dlsym: %s failed with %d\n", what, static_cast<int>(result));
    std::exit(2);
  }
}

}  // namespace

int main() {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) {
    std::fprintf(stderr, "driver_by_dlsym: no libcuda.so.1\n");
    return 2;
  }
  auto first = reinterpret_cast<GetProcAddress>(dlsym(driver, "cuGetProcAddress_v2"));
  if (first == nullptr) return 3;
  // The runtime's re-query: from here on every lookup goes through the
  // cuGetProcAddress the driver hands out.
  auto get = lookup<GetProcAddress>(first, "cuGetProcAddress", CU_GET_PROC_ADDRESS_DEFAULT);

  auto init = lookup<CUresult (*)(unsigned)>(get, "cuInit", 0);
  auto device_get = lookup<CUresult (*)(CUdevice*, int)>(get, "cuDeviceGet", 0);
  auto ctx_create = lookup<CUresult (*)(CUcontext*, unsigned, CUdevice)>(get, "cuCtxCreate", 0);
  auto ctx_destroy = lookup<CUresult (*)(CUcontext)>(get, "cuCtxDestroy", 0);
  auto mem_alloc = lookup<CUresult (*)(CUdeviceptr*, size_t)>(get, "cuMemAlloc", 0);
  // Per-thread default stream: the _ptds variant.
  auto copy_in = lookup<CUresult (*)(CUdeviceptr, const void*, size_t)>(
      get, "cuMemcpyHtoD", CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
  auto copy_out = lookup<CUresult (*)(void*, CUdeviceptr, size_t)>(get, "cuMemcpyDtoH", 0);
  // The fallback to suffixed names.
  auto mem_free = reinterpret_cast<CUresult (*)(CUdeviceptr)>(dlsym(driver, "cuMemFree_v2"));
  if (mem_free == nullptr) return 3;

  check(init(0), "cuInit");
  CUdevice device;
  check(device_get(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(ctx_create(&context, 0, device), "cuCtxCreate");
  constexpr size_t kBytes = 1 << 20;
  std::vector<unsigned char> host(kBytes, 7), back(kBytes, 0);
  CUdeviceptr data;
  check(mem_alloc(&data, kBytes), "cuMemAlloc");
  check(copy_in(data, host.data(), kBytes), "cuMemcpyHtoD");
  check(copy_out(back.data(), data, kBytes), "cuMemcpyDtoH");
  check(mem_free(data), "cuMemFree");
  check(ctx_destroy(context), "cuCtxDestroy");
  if (back != host) return 1;
  std::printf("driver_by_dlsym: 1 MiB round trip through cuGetProcAddress\n");
  return 0;
}
