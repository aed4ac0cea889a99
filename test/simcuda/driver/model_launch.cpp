// Modules and kernel launches.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <regex>

#include "api_trace.h"
#include "model_internal.h"
#include "sim_clock.h"
#include "sim_config.h"

namespace simcuda {
namespace {

// A module image is PTX text (or simcuda's own listing, which uses the same syntax):
// every ".entry <name>" declares a function. Binary cubins/fatbins are not parsed.
std::vector<std::string> entry_names(const char* image) {
  std::vector<std::string> names;
  const char* p = image;
  while ((p = std::strstr(p, ".entry")) != nullptr) {
    p += 6;
    if (*p != ' ' && *p != '\t') continue;
    while (*p == ' ' || *p == '\t') ++p;
    const char* end = p;
    while (*end && *end != '(' && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') ++end;
    if (end > p) names.emplace_back(p, end);
    p = end;
  }
  return names;
}

// Every ".global ... name[size]" of a module image: its __device__ and __constant__
// variables (size in bytes; a declaration without one is a single byte).
std::vector<std::pair<std::string, size_t>> global_names(const char* image) {
  std::vector<std::pair<std::string, size_t>> globals;
  const char* p = image;
  while ((p = std::strstr(p, ".global")) != nullptr) {
    p += 7;
    if (*p != ' ' && *p != '\t') continue;
    for (;;) {  // skip the qualifiers (.align 4, .b8, .u32 ...) up to the name
      while (*p == ' ' || *p == '\t') ++p;
      if (*p == '.') {
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') ++p;
      } else if (*p >= '0' && *p <= '9') {
        while (*p >= '0' && *p <= '9') ++p;
      } else {
        break;
      }
    }
    const char* end = p;
    while (*end && *end != '[' && *end != ';' && *end != ' ' && *end != '\n') ++end;
    if (end == p) continue;
    size_t size = *end == '[' ? std::strtoull(end + 1, nullptr, 10) : 1;
    globals.emplace_back(std::string(p, end), size ? size : 1);
    p = end;
  }
  return globals;
}

bool faults(const std::string& name) {
  const std::string& pattern = config().fault_kernel_pattern;
  return !pattern.empty() && std::regex_search(name, std::regex(pattern));
}

}  // namespace

CUresult module_load(CUmodule* out, const void* image) {
  if (out == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::vector<std::string> names = entry_names(static_cast<const char*>(image));
  auto globals = global_names(static_cast<const char*>(image));
  if (names.empty() && globals.empty()) return CUDA_ERROR_INVALID_IMAGE;
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  CUctx_st* context = current_context_locked();
  if (context == nullptr) return CUDA_ERROR_INVALID_CONTEXT;
  auto module = std::make_unique<CUmod_st>();
  module->context = context;
  for (const std::string& name : names) {
    // Durations are looked up once here: a regex per launch would dominate the
    // launch-bound benchmark.
    auto function = std::make_unique<CUfunc_st>(
        CUfunc_st{name, config().kernel_duration_ns(name), faults(name), module.get()});
    function->kernel.function = function.get();  // not the temporary's address
    m.functions.insert(function.get());
    m.kernels.insert(&function->kernel);
    module->functions.push_back(std::move(function));
  }
  for (const auto& [name, size] : globals) {
    // Variables start zeroed (simcuda cannot read their initialisers from a cubin).
    size_t rounded = (size + 255) / 256 * 256;
    void* memory = std::aligned_alloc(256, rounded);
    if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    std::memset(memory, 0, rounded);
    module->globals[name] = {memory, size};
    m.allocations[reinterpret_cast<uintptr_t>(memory)] = {size, MemoryKind::Device, context->device, context->id,
                                                          false};
  }
  *out = module.get();
  m.modules.insert(module.get());
  m.all_modules.push_back(std::move(module));
  return CUDA_SUCCESS;
}

CUresult module_unload(CUmodule module) {
  Model& m = model();
  Lock lock(m.mutex);
  if (module == nullptr || !m.modules.count(module)) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& function : module->functions) {
    m.functions.erase(function.get());
    m.kernels.erase(&function->kernel);
  }
  m.modules.erase(module);
  return CUDA_SUCCESS;
}

CUresult module_global(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (module == nullptr || !m.modules.count(module)) return CUDA_ERROR_INVALID_HANDLE;
  auto found = module->globals.find(name);
  if (found == module->globals.end()) return CUDA_ERROR_NOT_FOUND;
  if (address) *address = reinterpret_cast<CUdeviceptr>(found->second.first);
  if (bytes) *bytes = found->second.second;
  return CUDA_SUCCESS;
}

CUresult module_function(CUfunction* out, CUmodule module, const char* name) {
  if (out == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  Model& m = model();
  Lock lock(m.mutex);
  if (module == nullptr || !m.modules.count(module)) return CUDA_ERROR_INVALID_HANDLE;
  for (auto& function : module->functions) {
    if (function->name == name) {
      *out = function.get();
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_NOT_FOUND;
}

const char* function_name(CUfunction function) {
  Model& m = model();
  Lock lock(m.mutex);
  // The name's storage lives as long as the (never freed) module object.
  return function != nullptr && m.functions.count(function) ? function->name.c_str() : nullptr;
}

CUkernel function_kernel(CUfunction function) { return function != nullptr ? &function->kernel : nullptr; }

const char* kernel_name(CUkernel kernel) {
  Model& m = model();
  Lock lock(m.mutex);
  return kernel != nullptr && m.kernels.count(kernel) ? kernel->function->name.c_str() : nullptr;
}

const char* launched_name(CUfunction handle) {
  const char* name = function_name(handle);
  return name != nullptr ? name : kernel_name(reinterpret_cast<CUkernel>(handle));
}

CUresult plan_kernel_locked(CUfunction handle, const unsigned grid[3], const unsigned block[3],
                            unsigned dynamic_shared_bytes, PlannedOperation* plan) {
  // A launch takes a CUfunction or a CUkernel passed as one.
  const Model& m = model();
  auto* as_kernel = reinterpret_cast<CUkern_st*>(handle);
  CUfunction function = m.functions.count(handle) ? handle : m.kernels.count(as_kernel) ? as_kernel->function : nullptr;
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  for (int i = 0; i < 3; ++i) {
    if (grid[i] == 0 || block[i] == 0) return CUDA_ERROR_INVALID_VALUE;
  }
  uint64_t threads = uint64_t{block[0]} * block[1] * block[2];
  if (threads > 1024 || block[2] > 64 || grid[1] > 65535 || grid[2] > 65535) return CUDA_ERROR_INVALID_VALUE;
  if (dynamic_shared_bytes > 227 * 1024) return CUDA_ERROR_INVALID_VALUE;
  SimOperation& op = plan->op;
  op = {};
  op.kind = SIM_OP_KERNEL;
  op.name = function->name.c_str();
  for (int i = 0; i < 3; ++i) {
    op.grid[i] = static_cast<int32_t>(grid[i]);
    op.block[i] = static_cast<int32_t>(block[i]);
  }
  op.dynamic_shared_memory = static_cast<int32_t>(dynamic_shared_bytes);
  op.is_async = 1;
  plan->function = function;
  plan->duration_ns = function->duration_ns;
  plan->faults = function->faults;
  return CUDA_SUCCESS;
}

CUresult enqueue_kernel(const LaunchRequest& request) {
  Model& m = model();
  Lock lock(m.mutex);
  if (!m.initialized) return CUDA_ERROR_NOT_INITIALIZED;
  PlannedOperation plan;
  if (CUresult bad = plan_kernel_locked(request.function, request.grid, request.block, request.dynamic_shared_bytes,
                                        &plan)) {
    return bad;
  }
  CUresult error;
  CUstream_st* stream = work_stream_locked(request.stream, request.per_thread, &error);
  if (stream == nullptr) return error;
  if (stream->context != plan.function->module->context) return CUDA_ERROR_INVALID_HANDLE;
  if (!schedule_locked(lock, stream, plan.op, plan.duration_ns, plan.faults, nullptr)) return CUDA_SUCCESS;
  lock.unlock();
  report_operation(plan.op);
  return CUDA_SUCCESS;
}

}  // namespace simcuda
