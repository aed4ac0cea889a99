#include "runtime_state.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace simcuda_rt {

struct FatBinary;

struct RegisteredKernel {
  std::string name;
  const void* stub;
  FatBinary* fatbin;
  CUfunction per_device[16] = {};
  CUkernel launch_handle[16] = {};
};

// One nvcc translation unit's device code. Its module is built from the names the
// stubs registered (simcuda cannot read real cubins) and loaded per device on the
// first launch of any of its kernels.
struct RegisteredVariable {
  std::string name;
  size_t bytes;
  FatBinary* fatbin;
};

struct FatBinary {
  std::vector<RegisteredKernel*> kernels;
  std::vector<RegisteredVariable*> variables;
  CUmodule per_device[16] = {};
};

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<FatBinary>> fatbins;
  std::vector<std::unique_ptr<RegisteredKernel>> kernels;
  std::unordered_map<const void*, RegisteredKernel*> by_stub;
  std::vector<std::unique_ptr<RegisteredVariable>> variables;
  std::unordered_map<const void*, RegisteredVariable*> by_shadow;  // host shadow -> variable
};

Registry& registry() {
  static Registry* instance = new Registry;  // outlives static destructors of apps
  return *instance;
}

std::once_flag g_init_once;
cudaError_t g_init_error = cudaSuccess;

thread_local int t_device = 0;
thread_local CUcontext t_bound_context = nullptr;
thread_local int t_bound_device = -1;
thread_local cudaError_t t_last_error = cudaSuccess;

std::string module_image(const FatBinary& fatbin) {
  std::string image = "// simcuda module listing (PTX .entry syntax)\n";
  for (const RegisteredKernel* kernel : fatbin.kernels) image += ".visible .entry " + kernel->name + "()\n";
  for (const RegisteredVariable* variable : fatbin.variables) {
    image += ".visible .global .b8 " + variable->name + "[" + std::to_string(variable->bytes) + "];\n";
  }
  return image;
}

// The module of `fatbin` on `device`, loaded on first use; `lock` holds the registry.
cudaError_t module_locked(FatBinary& fatbin, int device, CUmodule* out) {
  if (fatbin.per_device[device] == nullptr) {
    std::string image = module_image(fatbin);
    CUmodule module = nullptr;
    // Held across the driver calls so each module loads once; nothing they call back
    // (CUPTI callbacks of a tracer) launches kernels.
    if (CUresult error = cuModuleLoadData(&module, image.c_str())) return from_driver(error);
    fatbin.per_device[device] = module;
  }
  *out = fatbin.per_device[device];
  return cudaSuccess;
}

}  // namespace

void set_last_error(cudaError_t error) { t_last_error = error; }

cudaError_t take_last_error() {
  cudaError_t error = t_last_error;
  t_last_error = cudaSuccess;
  return error;
}

cudaError_t peek_last_error() { return t_last_error; }

cudaError_t from_driver(CUresult result) { return static_cast<cudaError_t>(result); }

cudaError_t ensure_driver() {
  std::call_once(g_init_once, [] { g_init_error = from_driver(cuInit(0)); });
  return g_init_error;
}

cudaError_t ensure_context() {
  if (cudaError_t error = ensure_driver()) return error;
  if (t_bound_context != nullptr && t_bound_device == t_device) return cudaSuccess;
  CUcontext context = nullptr;
  if (CUresult error = cuDevicePrimaryCtxRetain(&context, t_device)) return from_driver(error);
  if (CUresult error = cuCtxSetCurrent(context)) return from_driver(error);
  t_bound_context = context;
  t_bound_device = t_device;
  return cudaSuccess;
}

int current_device() { return t_device; }

cudaError_t set_current_device(int device) {
  if (cudaError_t error = ensure_driver()) return error;
  int count = 0;
  if (CUresult error = cuDeviceGetCount(&count)) return from_driver(error);
  if (device < 0 || device >= count) return cudaErrorInvalidDevice;
  t_device = device;
  return cudaSuccess;
}

void forget_context(int device) {
  if (t_bound_device == device) {
    t_bound_context = nullptr;
    t_bound_device = -1;
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& fatbin : r.fatbins) fatbin->per_device[device] = nullptr;
  for (auto& kernel : r.kernels) kernel->per_device[device] = nullptr;
  for (auto& kernel : r.kernels) kernel->launch_handle[device] = nullptr;
}

void register_variable(void* fatbin, const void* host_shadow, const char* device_name, size_t bytes) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto* owner = static_cast<FatBinary*>(fatbin);
  r.variables.push_back(std::make_unique<RegisteredVariable>(
      RegisteredVariable{device_name ? device_name : "", bytes, owner}));
  owner->variables.push_back(r.variables.back().get());
  r.by_shadow[host_shadow] = r.variables.back().get();
}

cudaError_t variable_address(const void* host_shadow, CUdeviceptr* address, size_t* bytes) {
  if (cudaError_t error = ensure_context()) return error;
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mutex);
  auto found = r.by_shadow.find(host_shadow);
  if (found == r.by_shadow.end()) return cudaErrorInvalidSymbol;
  RegisteredVariable& variable = *found->second;
  CUmodule module = nullptr;
  if (cudaError_t error = module_locked(*variable.fatbin, t_device, &module)) return error;
  return from_driver(cuModuleGetGlobal(address, bytes, module, variable.name.c_str()));
}

cudaError_t device_context(int device, CUcontext* out) {
  if (cudaError_t error = ensure_driver()) return error;
  static std::mutex mutex;
  static CUcontext retained[16] = {};
  std::lock_guard<std::mutex> lock(mutex);
  if (device < 0 || device >= 16) return cudaErrorInvalidDevice;
  if (retained[device] == nullptr) {
    if (CUresult error = cuDevicePrimaryCtxRetain(&retained[device], device)) return from_driver(error);
  }
  *out = retained[device];
  return cudaSuccess;
}

void* register_fatbinary() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.fatbins.push_back(std::make_unique<FatBinary>());
  return r.fatbins.back().get();
}

void register_function(void* fatbin, const void* host_stub, const char* device_name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto* owner = static_cast<FatBinary*>(fatbin);
  r.kernels.push_back(std::make_unique<RegisteredKernel>());
  RegisteredKernel* kernel = r.kernels.back().get();
  kernel->name = device_name ? device_name : "";
  kernel->stub = host_stub;
  kernel->fatbin = owner;
  owner->kernels.push_back(kernel);
  r.by_stub[host_stub] = kernel;
}

RegisteredKernel* kernel_for_stub(const void* host_stub) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_stub.find(host_stub);
  return it == r.by_stub.end() ? nullptr : it->second;
}

const char* kernel_name(const RegisteredKernel* kernel) { return kernel->name.c_str(); }

const void* kernel_stub(const RegisteredKernel* kernel) { return kernel->stub; }

const void* stub_of_function(CUfunction function) {
  if (function == nullptr) return nullptr;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (const auto& [stub, kernel] : r.by_stub) {
    for (CUfunction f : kernel->per_device) {
      if (f == function) return stub;
    }
  }
  return nullptr;
}

cudaError_t kernel_function(RegisteredKernel* kernel, CUfunction* out) {
  if (cudaError_t error = ensure_context()) return error;
  int device = t_device;
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mutex);
  if (kernel->per_device[device] != nullptr) {
    *out = kernel->per_device[device];
    return cudaSuccess;
  }
  CUmodule module = nullptr;
  if (cudaError_t error = module_locked(*kernel->fatbin, device, &module)) return error;
  CUfunction function = nullptr;
  if (CUresult error = cuModuleGetFunction(&function, module, kernel->name.c_str())) {
    return from_driver(error);
  }
  kernel->per_device[device] = function;
  *out = function;
  return cudaSuccess;
}

cudaError_t kernel_launch_handle(RegisteredKernel* kernel, CUkernel* out) {
  CUfunction function = nullptr;
  if (cudaError_t error = kernel_function(kernel, &function)) return error;
  const int device = t_device;
  Registry& r = registry();
  std::unique_lock<std::mutex> lock(r.mutex);
  if (kernel->launch_handle[device] == nullptr) {
    // simcuda's runtime loads modules, not libraries: its module stands for
    // the library the real runtime would load (cuLibraryLoadData).
    auto* library = reinterpret_cast<CUlibrary>(kernel->fatbin->per_device[device]);
    if (CUresult error = cuLibraryGetKernel(&kernel->launch_handle[device], library, kernel->name.c_str())) {
      return from_driver(error);
    }
  }
  *out = kernel->launch_handle[device];
  return cudaSuccess;
}

}  // namespace simcuda_rt
