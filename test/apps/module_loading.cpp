// Modules from what nvcc makes, as NVIDIA's matrixMulDrv, ptxjit and the
// library samples load them: a cubin (cuModuleLoadData), a fatbin
// (cuModuleLoadFatBinary), PTX linked with cuLinkCreate/AddData/Complete, and
// a fatbin as a library (cuLibraryLoadData). A kernel of each is launched and
// a module variable reached. The images are files next to the program
// (module_kernels.cubin, .fatbin, .ptx, made by the build).
// Usage: module_loading. Prints one line.
#include <cuda.h>

#include "driver_app_common.h"
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

constexpr int kCount = 1024;

// The bytes of `name` in this program's folder (NUL-terminated, for PTX).
std::vector<char> image(const char* name) {
  std::vector<char> self(4096, 0);
  ssize_t length = readlink("/proc/self/exe", self.data(), self.size() - 1);
  CHECK_TRUE(length > 0);
  std::string path(self.data(), static_cast<size_t>(length));
  path = path.substr(0, path.rfind('/') + 1) + name;
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "module_loading: cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  bytes.push_back('\0');
  return bytes;
}

void launch(CUfunction function, CUdeviceptr data, CUstream stream) {
  int n = kCount;
  void* args[] = {&data, &n};
  CHECK_CU(cuLaunchKernel(function, kCount / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
}

}  // namespace

int main() {
  CHECK_CU(cuInit(0));
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK_CU(cuDevicePrimaryCtxRetain(&context, device));
  CHECK_CU(cuCtxSetCurrent(context));
  CUstream stream;
  CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUdeviceptr data;
  CHECK_CU(cuMemAlloc(&data, kCount * sizeof(float)));

  std::vector<char> cubin = image("module_kernels.cubin");
  CUmodule from_cubin;
  CHECK_CU(cuModuleLoadData(&from_cubin, cubin.data()));
  CUfunction scale;
  CHECK_CU(cuModuleGetFunction(&scale, from_cubin, "module_scale_kernel"));
  launch(scale, data, stream);
  CUdeviceptr counter;
  size_t counter_bytes = 0;
  CHECK_CU(cuModuleGetGlobal(&counter, &counter_bytes, from_cubin, "module_counter"));
  CHECK_TRUE(counter_bytes == 4 * sizeof(int));
  int zeros[4] = {1, 1, 1, 1};
  CHECK_CU(cuMemcpyDtoH(zeros, counter, sizeof zeros));
  CHECK_TRUE(zeros[0] == 0 && zeros[3] == 0);

  std::vector<char> fatbin = image("module_kernels.fatbin");
  CUmodule from_fatbin;
  CHECK_CU(cuModuleLoadFatBinary(&from_fatbin, fatbin.data()));
  CUfunction fill;
  CHECK_CU(cuModuleGetFunction(&fill, from_fatbin, "module_fill_kernel"));
  launch(fill, data, stream);

  std::vector<char> ptx = image("module_kernels.ptx");
  CUlinkState link;
  CHECK_CU(cuLinkCreate(0, nullptr, nullptr, &link));
  CHECK_CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx.data(), ptx.size(), "module_kernels.ptx", 0, nullptr, nullptr));
  void* linked = nullptr;
  size_t linked_size = 0;
  CHECK_CU(cuLinkComplete(link, &linked, &linked_size));
  CUmodule from_link;
  CHECK_CU(cuModuleLoadData(&from_link, linked));
  CHECK_CU(cuLinkDestroy(link));  // the module keeps what it needs
  CUfunction linked_scale;
  CHECK_CU(cuModuleGetFunction(&linked_scale, from_link, "module_scale_kernel"));
  launch(linked_scale, data, stream);

  CUlibrary library;
  CHECK_CU(cuLibraryLoadData(&library, fatbin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel kernel;
  CHECK_CU(cuLibraryGetKernel(&kernel, library, "module_fill_kernel"));
  launch(reinterpret_cast<CUfunction>(kernel), data, stream);

  // Not an image: refused as the real driver refuses it.
  CUmodule bad;
  char garbage[64] = "not a module image";
  CHECK_TRUE(cuModuleLoadData(&bad, garbage) != CUDA_SUCCESS);

  CHECK_CU(cuStreamSynchronize(stream));
  CHECK_CU(cuLibraryUnload(library));
  CHECK_CU(cuModuleUnload(from_link));
  CHECK_CU(cuModuleUnload(from_fatbin));
  CHECK_CU(cuModuleUnload(from_cubin));
  CHECK_CU(cuMemFree(data));
  CHECK_CU(cuStreamDestroy(stream));
  CHECK_CU(cuDevicePrimaryCtxRelease(device));
  std::printf("module_loading: 4 launches from a cubin, a fatbin, linked PTX and a library\n");
  return 0;
}
