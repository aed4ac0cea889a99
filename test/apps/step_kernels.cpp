// Kernels named three ways, for step rules (PROF_STEP=kernel:..., --step
// kernel:...): a C++ kernel by its Itanium mangling (_Z5scalePfi, which users
// know as `scale(float*, int)`), a C-linkage kernel (c_step_kernel), and,
// when asked, one with a very long C name (LONG_NAME_BYTES of 'a'), on which
// a backtracking regex engine recurses once per character. Driver API with a
// PTX module, so the names are exactly these; one launch of each per step,
// then a synchronization.
// Usage: step_kernels STEPS [LONG_NAME_BYTES]
#include <cstdlib>
#include <string>

#include "driver_app_common.h"

namespace {

std::string entry(const std::string& name) {
  return ".visible .entry " + name + "(.param .u64 data, .param .u32 n)\n{\n  ret;\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 5;
  const size_t long_name_bytes = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 0;
  const std::string long_name(long_name_bytes, 'a');
  std::string ptx = ".version 8.0\n.target sm_75\n.address_size 64\n\n";
  ptx += entry("_Z5scalePfi") + entry("c_step_kernel") + entry("_Z4workPfi");
  if (!long_name.empty()) ptx += entry(long_name);

  CHECK_CU(cuInit(0));
  CUdevice device;
  CHECK_CU(cuDeviceGet(&device, 0));
  CUcontext context;
  CHECK_CU(cuCtxCreate(&context, nullptr, 0, device));
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, ptx.c_str()));
  CUfunction scale, c_step, work, long_kernel = nullptr;
  CHECK_CU(cuModuleGetFunction(&scale, module, "_Z5scalePfi"));
  CHECK_CU(cuModuleGetFunction(&c_step, module, "c_step_kernel"));
  CHECK_CU(cuModuleGetFunction(&work, module, "_Z4workPfi"));
  if (!long_name.empty()) CHECK_CU(cuModuleGetFunction(&long_kernel, module, long_name.c_str()));

  constexpr unsigned kElements = 1 << 12;
  CUdeviceptr data;
  CHECK_CU(cuMemAlloc(&data, kElements * sizeof(float)));
  unsigned n = kElements;
  void* args[] = {&data, &n};
  auto launch = [&](CUfunction f) { CHECK_CU(cuLaunchKernel(f, kElements / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr)); };

  launch(work);  // set-up, before the first step
  CHECK_CU(cuCtxSynchronize());
  for (int step = 0; step < steps; ++step) {
    launch(c_step);
    launch(work);
    launch(scale);
    launch(work);
    if (long_kernel != nullptr) launch(long_kernel);
    CHECK_CU(cuCtxSynchronize());
  }
  CHECK_CU(cuMemFree(data));
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuCtxDestroy(context));
  std::printf("step_kernels: %d steps\n", steps);
  return 0;
}
