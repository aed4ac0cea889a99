// The runtime functions of hooked_functions.inc, exported under the
// runtime's names: a program linked against libcudart.so (nvcc -cudart
// shared, PyTorch, JAX) binds to these first and they forward to the next
// definition. A program with the static runtime never reaches them; its
// calls reach the hooks as the driver calls the runtime makes.
#include <cuda_runtime_api.h>
#include <cupti.h>

#include <atomic>
#include <string_view>

#include "capture/hooks/runtime_hooks.h"
#include "capture/hooks/context_teardown.h"
#include "capture/hooks/cuda_hook_params.h"
#include "capture/hooks/hooked_call.h"
#include "capture/hooks/name_text.h"
#include "capture/hooks/real_symbols.h"
#include "capture/hooks/wrapper_definition.h"
#include "capture/hooks/wrapper_table.h"
#include "common/large_zeroed.h"

namespace prof {

// In RuntimeHook's order (hooked_call.h).
constexpr char kRuntimeRecordedNames[] =
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) recorded "\0"
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    ;

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

// By RuntimeHook (name_text.h): the names the wrappers are exported and
// forward to, and those they are recorded under.
constexpr char kExportedNames[] =
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) #name "\0"
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    ;
constexpr auto kExportedNameOffsets = name_offsets<kRuntimeHooks>(kExportedNames);
constexpr auto kRecordedNameOffsets = name_offsets<kRuntimeHooks>(kRuntimeRecordedNames);
constexpr uint32_t kLaunchKernel = static_cast<uint32_t>(RuntimeHook::hook_cudaLaunchKernel);
static_assert(std::string_view(kExportedNames + kExportedNameOffsets[kLaunchKernel]) == "cudaLaunchKernel" &&
              std::string_view(kRuntimeRecordedNames + kRecordedNameOffsets[kLaunchKernel]) == "cudaLaunchKernel");

// Not in AgentState: the generated table of what is hooked, and
// (g_real) what each wrapper forwards to, read by the wrappers' fast path.
HookedFunction g_functions[kRuntimeHooks] = {
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)                                    \
  {kRecordedNameOffsets[static_cast<uint32_t>(RuntimeHook::hook_##name)], CUPTI_RUNTIME_TRACE_CBID_##key, \
   file::ApiDomain::runtime},
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
};

const char* exported_name(uint32_t i) { return kExportedNames + kExportedNameOffsets[i]; }

// What each wrapper forwards to; nullptr until first needed. Not in
// AgentState: the wrappers load it inline on every call, and a program
// calls them before the agent's constructor has run. The assembly wrappers
// read it by its assembler name (wrapper_definition.h).
PROF_LARGE_ZEROED std::atomic<void*> g_real[kRuntimeHooks] __asm__("prof_runtime_real");

void* real_of(RuntimeHook hook) {
  const auto i = static_cast<uint32_t>(hook);
  return resolve_real(g_real[i], exported_name(i), "libcudart.so");
}

// cudaDeviceReset destroys the device's primary context: it waits for the
// GPU work timed in it.
inline void before_real_call(RuntimeHook hook) {
  if (hook == RuntimeHook::hook_cudaDeviceReset) before_context_teardown();
}

}  // namespace
}  // namespace prof

// The wrappers (wrapper_definition.h).
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)                                  \
  PROF_DEFINE_WRAPPER(cudaError_t, cudaErrorCallRequiresNewerDriver, prof::RuntimeHook::hook_##name,     \
                      prof_record_##name, prof_hook_##name, #name, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK

#if PROF_PASS_THROUGH_IN_ASM
// The exported wrappers, by RuntimeHook (wrapper_definition.h).
asm(PROF_PASS_THROUGHS_BEGIN
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) \
  PROF_PASS_THROUGH("prof_runtime_real", #name, "prof_hook_" #name "_here", "prof_record_" #name)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    PROF_PASS_THROUGHS_END);
#endif

// Our wrappers, by RuntimeHook (wrapper_offsets.h).
asm(PROF_WRAPPER_OFFSETS_BEGIN("prof_runtime_wrapper_offsets")
#define PROF_DRIVER_HOOK(name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args) PROF_WRAPPER_OFFSET("prof_hook_" #name "_here")
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    PROF_WRAPPER_OFFSETS_END);
extern "C" PROF_WRAPPER_OFFSETS_DECLARE(prof_runtime_wrapper_offsets);

namespace prof {
namespace {

WrapperTable wrappers() {
  return {kExportedNames, kExportedNameOffsets.data(), prof_runtime_wrapper_offsets, g_real, kRuntimeHooks};
}

}  // namespace

void* wrap_runtime_function(const char* name, void* real) {
  if (real == nullptr) return real;
  return hand_out_wrapper(wrappers(), name, real);
}

bool is_runtime_wrapper_name(const char* name) {
  return wrapper_index_by_name(wrappers(), name) >= 0;
}

bool runtime_wrapper_lacks_definition(const void* address) {
  const int i = wrapper_index_by_address(wrappers(), address);
  return i >= 0 && resolve_real(g_real[i], exported_name(i), "libcudart.so") == nullptr;
}

}  // namespace prof
