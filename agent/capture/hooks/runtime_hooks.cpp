// The runtime functions of hooked_functions.inc, exported under the
// runtime's names: a program linked against libcudart.so (nvcc -cudart
// shared, PyTorch, JAX) binds to these first and they forward to the next
// definition. A program with the static runtime never reaches them; its
// calls reach the hooks as the driver calls the runtime makes.
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <atomic>

#include "capture/hooks/runtime_hooks.h"
#include "capture/hooks/cuda_hook_params.h"
#include "capture/hooks/hooked_call.h"
#include "capture/hooks/real_symbols.h"
#include "capture/hooks/wrapper_definition.h"
#include "capture/hooks/wrapper_table.h"

namespace prof {
namespace {

enum class RuntimeHook : uint32_t {
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) hook_##name,
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
  count
};
constexpr uint32_t kRuntimeHooks = static_cast<uint32_t>(RuntimeHook::count);

HookedFunction g_functions[kRuntimeHooks] = {
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) {recorded, CUPTI_RUNTIME_TRACE_CBID_##key, file::ApiDomain::runtime},
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
};

// The names we export and forward to (g_functions has the recorded ones).
const char* const kExportedNames[kRuntimeHooks] = {
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) #name,
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
};

std::atomic<void*> g_real[kRuntimeHooks];

void* real_of(RuntimeHook hook) {
  const auto i = static_cast<uint32_t>(hook);
  return resolve_real(g_real[i], kExportedNames[i], "libcudart.so");
}

}  // namespace
}  // namespace prof

// The wrappers (wrapper_definition.h).
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)                                  \
  PROF_DEFINE_WRAPPER(cudaError_t, cudaErrorSharedObjectSymbolNotFound, prof::RuntimeHook::hook_##name,     \
                      prof_record_##name, prof_hook_##name, #name, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK

namespace prof {
namespace {

void* const kWrappers[kRuntimeHooks] = {
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) reinterpret_cast<void*>(&prof_hook_##name),
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
};

}  // namespace

void* wrap_runtime_function(const char* name, void* real) {
  if (real == nullptr) return real;
  return hand_out_wrapper({kExportedNames, kWrappers, g_real, kRuntimeHooks}, name, real);
}

}  // namespace prof
