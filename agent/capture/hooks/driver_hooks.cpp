// The driver functions of hooked_functions.inc, exported under the driver's
// own (ABI) names, and cuGetProcAddress, which hands out the same wrappers.
//
// Each wrapper forwards to the definition it stands for: the one
// cuGetProcAddress or dlsym returned when it handed the wrapper out, else the
// next definition after the agent (RTLD_NEXT, or a libcuda loaded privately).
#include "capture/hooks/driver_hooks.h"

#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "capture/hooks/cuda_hook_params.h"
#include "capture/hooks/hooked_call.h"
#include "capture/hooks/real_symbols.h"
#include "capture/hooks/wrapper_definition.h"


namespace prof {
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

HookedFunction g_functions[kDriverHooks] = {
#define PROF_DRIVER_HOOK(name, params, decl, args) {#name, CUPTI_DRIVER_TRACE_CBID_##name, file::ApiDomain::driver},
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    {"cuGetProcAddress", CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress, file::ApiDomain::driver},
    {"cuGetProcAddress_v2", CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2, file::ApiDomain::driver},
};

// What each wrapper forwards to; nullptr until first needed.
std::atomic<void*> g_real[kDriverHooks];
std::atomic<bool> g_wrappers_on{false};

void* look_up_real(uint32_t i) {
  void* real = next_definition(g_functions[i].name, "libcuda.so");
  void* expected = nullptr;
  if (!g_real[i].compare_exchange_strong(expected, real)) real = expected;
  return real;
}

// The real function once known, else nullptr.
inline void* known_real(DriverHook hook) {
  return g_real[static_cast<uint32_t>(hook)].load(std::memory_order_acquire);
}

void* real_of(DriverHook hook) {
  void* real = known_real(hook);
  return real != nullptr ? real : look_up_real(static_cast<uint32_t>(hook));
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

namespace prof {
namespace {

struct Wrapper {
  const char* name;
  void* address;
};

const Wrapper g_wrappers[kDriverHooks] = {
#define PROF_DRIVER_HOOK(name, params, decl, args) {#name, reinterpret_cast<void*>(&prof_hook_##name)},
#define PROF_RUNTIME_HOOK(name, key, recorded, params, decl, args)
#include "capture/hooks/hooked_functions.inc"
#undef PROF_DRIVER_HOOK
#undef PROF_RUNTIME_HOOK
    {"cuGetProcAddress", nullptr},     // filled below: defined after this table
    {"cuGetProcAddress_v2", nullptr},
};

}  // namespace
}  // namespace prof

extern "C" PROF_EXPORT CUresult prof_hook_cuGetProcAddress(const char* symbol, void** pfn, int cuda_version,
                                                           cuuint64_t flags) __asm__("cuGetProcAddress");
extern "C" PROF_EXPORT CUresult prof_hook_cuGetProcAddress_v2(const char* symbol, void** pfn, int cuda_version,
                                                              cuuint64_t flags,
                                                              CUdriverProcAddressQueryResult* status)
    __asm__("cuGetProcAddress_v2");

namespace prof {

void enable_driver_wrappers() { g_wrappers_on.store(true, std::memory_order_release); }

void* wrap_driver_function(const char* name, void* real) {
  if (real == nullptr || !g_wrappers_on.load(std::memory_order_acquire)) return real;
  // A wrapper of ours already (RTLD_DEFAULT finds them first).
  for (uint32_t i = 0; i < kDriverHooks; ++i) {
    void* wrapper = i == static_cast<uint32_t>(DriverHook::hook_cuGetProcAddress)
                        ? reinterpret_cast<void*>(&prof_hook_cuGetProcAddress)
                    : i == static_cast<uint32_t>(DriverHook::hook_cuGetProcAddress_v2)
                        ? reinterpret_cast<void*>(&prof_hook_cuGetProcAddress_v2)
                        : g_wrappers[i].address;
    if (wrapper == real) return real;
  }
  // cuGetProcAddress names the base function ("cuMemcpyHtoD") and returns an
  // ABI variant (cuMemcpyHtoD_v2_ptds) chosen by version and flags: the
  // driver's symbol at that address says which one.
  Dl_info info{};
  const char* exact = nullptr;
  if (dladdr(real, &info) != 0 && info.dli_saddr == real && info.dli_sname != nullptr) exact = info.dli_sname;
  if (exact == nullptr) exact = name;
  if (exact == nullptr) return real;
  for (uint32_t i = 0; i < kDriverHooks; ++i) {
    if (strcmp(g_functions[i].name, exact) != 0) continue;
    void* expected = nullptr;
    g_real[i].compare_exchange_strong(expected, real);
    if (expected != nullptr && expected != real) return real;  // another libcuda's: not ours to wrap
    if (i == static_cast<uint32_t>(DriverHook::hook_cuGetProcAddress)) {
      return reinterpret_cast<void*>(&prof_hook_cuGetProcAddress);
    }
    if (i == static_cast<uint32_t>(DriverHook::hook_cuGetProcAddress_v2)) {
      return reinterpret_cast<void*>(&prof_hook_cuGetProcAddress_v2);
    }
    return g_wrappers[i].address;
  }
  return real;
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
