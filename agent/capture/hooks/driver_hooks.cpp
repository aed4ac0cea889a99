// The driver functions of hooked_functions.inc, exported under the driver's
// own (ABI) names, and cuGetProcAddress, which hands out the same wrappers.
//
// Each wrapper forwards to the definition it stands for: the one
// cuGetProcAddress or dlsym returned when it handed the wrapper out, else the
// next definition after the agent (RTLD_NEXT, or a libcuda loaded privately).
#include "capture/hooks/driver_hooks.h"
#include "common/large_zeroed.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <string_view>

#include "capture/hooks/context_teardown.h"
#include "capture/hooks/cuda_hook_params.h"
#include "capture/hooks/hooked_call.h"
#include "capture/hooks/name_text.h"
#include "capture/hooks/real_symbols.h"
#include "capture/hooks/wrapper_definition.h"
#include "capture/hooks/wrapper_table.h"

namespace prof {

// In DriverHook's order (hooked_call.h).
constexpr char kDriverHookNames[] =
#define PROF_DRIVER_HOOK(name, params, decl, args) #name "\0"
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    "cuGetProcAddress\0"
    "cuGetProcAddress_v2\0";

namespace {

enum class DriverHook : uint32_t {
#define PROF_DRIVER_HOOK(name, params, decl, args) hook_##name,
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
  hook_cuGetProcAddress,
  hook_cuGetProcAddress_v2,
  count
};
constexpr uint32_t kDriverHooks = static_cast<uint32_t>(DriverHook::count);

// The driver's names of the hooked functions, by DriverHook: the names they
// are exported, looked up and recorded under (name_text.h).
constexpr auto kNameOffsets = name_offsets<kDriverHooks>(kDriverHookNames);
static_assert(std::string_view(kDriverHookNames + kNameOffsets[static_cast<uint32_t>(DriverHook::hook_cuInit)]) ==
              "cuInit");
static_assert(std::string_view(kDriverHookNames + kNameOffsets[kDriverHooks - 1]) == "cuGetProcAddress_v2");

// Not in AgentState: the generated table of what is hooked, and
// (g_real, g_wrappers_on) what each wrapper forwards to and whether it
// records, read by the wrappers' fast path.
HookedFunction g_functions[kDriverHooks] = {
#define PROF_DRIVER_HOOK(name, params, decl, args)                                           \
  {kNameOffsets[static_cast<uint32_t>(DriverHook::hook_##name)], CUPTI_DRIVER_TRACE_CBID_##name, \
   file::ApiDomain::driver},
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    {kNameOffsets[static_cast<uint32_t>(DriverHook::hook_cuGetProcAddress)], CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
     file::ApiDomain::driver},
    {kNameOffsets[static_cast<uint32_t>(DriverHook::hook_cuGetProcAddress_v2)],
     CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2, file::ApiDomain::driver},
};

// What each wrapper forwards to; nullptr until first needed. Not in
// AgentState: as the runtime's (runtime_hooks.cpp). The assembly wrappers
// read it by its assembler name (wrapper_definition.h).
PROF_LARGE_ZEROED std::atomic<void*> g_real[kDriverHooks] __asm__("prof_driver_real");
std::atomic<bool> g_wrappers_on{false};

void* real_of(DriverHook hook) {
  const auto i = static_cast<uint32_t>(hook);
  return resolve_real(g_real[i], g_functions[i].name(), "libcuda.so");
}

// The calls that destroy a context wait for the GPU work timed in it.
inline void before_real_call(DriverHook hook) {
  if (hook == DriverHook::hook_cuCtxDestroy_v2 || hook == DriverHook::hook_cuDevicePrimaryCtxReset_v2 ||
      hook == DriverHook::hook_cuDevicePrimaryCtxRelease_v2) {
    before_context_teardown();
  }
}

}  // namespace
}  // namespace prof

// The wrappers (wrapper_definition.h).
#define PROF_DRIVER_HOOK(name, params, decl, args)                                                \
  PROF_DEFINE_WRAPPER(CUresult, CUDA_ERROR_NOT_FOUND, prof::DriverHook::hook_##name, prof_record_##name, \
                      prof_hook_##name, #name, params, decl, args)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK

extern "C" PROF_EXPORT CUresult prof_hook_cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                                           cuuint64_t flags) __asm__("cuGetProcAddress");
extern "C" PROF_EXPORT CUresult prof_hook_cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                                              cuuint64_t flags,
                                                              CUdriverProcAddressQueryResult* status)
    __asm__("cuGetProcAddress_v2");
PROF_WRAPPER_HERE(CUresult, prof_hook_cuGetProcAddress, "cuGetProcAddress",
                  (const char* symbol, void** pfn, int cuda_version, cuuint64_t flags))
PROF_WRAPPER_HERE(CUresult, prof_hook_cuGetProcAddress_v2, "cuGetProcAddress_v2",
                  (const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                   CUdriverProcAddressQueryResult* status))

#if PROF_PASS_THROUGH_IN_ASM
// The exported wrappers, by DriverHook (wrapper_definition.h); the two
// cuGetProcAddress wrappers below are C++.
asm(PROF_PASS_THROUGHS_BEGIN
#define PROF_DRIVER_HOOK(name, params, decl, args) \
  PROF_PASS_THROUGH("prof_driver_real", #name, "prof_hook_" #name "_here", "prof_record_" #name)
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    PROF_PASS_THROUGHS_END);
#endif

// Our wrappers, by DriverHook (wrapper_offsets.h).
asm(PROF_WRAPPER_OFFSETS_BEGIN("prof_driver_wrapper_offsets")
#define PROF_DRIVER_HOOK(name, params, decl, args) PROF_WRAPPER_OFFSET("prof_hook_" #name "_here")
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    PROF_WRAPPER_OFFSET("prof_hook_cuGetProcAddress_here")
    PROF_WRAPPER_OFFSET("prof_hook_cuGetProcAddress_v2_here")
    PROF_WRAPPER_OFFSETS_END);
extern "C" PROF_WRAPPER_OFFSETS_DECLARE(prof_driver_wrapper_offsets);

namespace prof {
namespace {

WrapperTable wrappers() {
  return {kDriverHookNames, kNameOffsets.data(), prof_driver_wrapper_offsets, g_real, kDriverHooks};
}

// cuGetProcAddress names the base function ("cuMemcpyHtoD") and returns an
// ABI variant (cuMemcpyHtoD_v2_ptds) chosen by version and flags: the
// driver's symbol at that address says which one.
const char* driver_name(const char* name, void* real) {
  Dl_info info{};
  if (dladdr(real, &info) != 0 && info.dli_saddr == real && info.dli_sname != nullptr) return info.dli_sname;
  return name;
}

}  // namespace

void enable_driver_wrappers() { g_wrappers_on.store(true, std::memory_order_release); }

void* wrap_driver_function(const char* name, void* real) {
  if (real == nullptr || !g_wrappers_on.load(std::memory_order_acquire)) return real;
  return hand_out_wrapper(wrappers(), driver_name(name, real), real);
}

bool is_driver_wrapper_name(const char* name) {
  return wrapper_index_by_name(wrappers(), name) >= 0;
}

bool driver_wrapper_lacks_definition(const void* address) {
  const int i = wrapper_index_by_address(wrappers(), address);
  return i >= 0 && resolve_real(g_real[i], g_functions[i].name(), "libcuda.so") == nullptr;
}

}  // namespace prof

// The runtime asks for cuGetProcAddress through cuGetProcAddress itself
// before anything else; that lookup returns our wrapper too, so every later
// lookup passes here.
extern "C" CUresult prof_hook_cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                               cuuint64_t flags) {
  using Real = CUresult (*)(const char*, void**, int, cuuint64_t);
  auto real = reinterpret_cast<Real>(prof::real_of(prof::DriverHook::hook_cuGetProcAddress));
  if (real == nullptr) return CUDA_ERROR_NOT_FOUND;
  prof::HookedCall call;
  const cuGetProcAddress_params params{symbol, pfn, cuda_version, flags};
  const bool recorded =
      call.begin(prof::g_functions[static_cast<uint32_t>(prof::DriverHook::hook_cuGetProcAddress)], &params);
  const CUresult result = real(symbol, pfn, cuda_version, flags);
  if (result == CUDA_SUCCESS && pfn != nullptr) *pfn = prof::wrap_driver_function(nullptr, *pfn);
  if (recorded) call.end(result);
  return result;
}

extern "C" CUresult prof_hook_cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                                  cuuint64_t flags, CUdriverProcAddressQueryResult* status) {
  using Real = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
  auto real = reinterpret_cast<Real>(prof::real_of(prof::DriverHook::hook_cuGetProcAddress_v2));
  if (real == nullptr) return CUDA_ERROR_NOT_FOUND;
  prof::HookedCall call;
  const cuGetProcAddress_v2_params params{symbol, pfn, cuda_version, flags, status};
  const bool recorded =
      call.begin(prof::g_functions[static_cast<uint32_t>(prof::DriverHook::hook_cuGetProcAddress_v2)], &params);
  const CUresult result = real(symbol, pfn, cuda_version, flags, status);
  if (result == CUDA_SUCCESS && pfn != nullptr) *pfn = prof::wrap_driver_function(nullptr, *pfn);
  if (recorded) call.end(result);
  return result;
}
