// cuGetProcAddress(_v2): the driver's (base name, CUDA version, flags) lookup.
//
// A caller asks for a base name ("cuMemcpyHtoD") as of a CUDA version (e.g. 12000);
// the driver returns the newest ABI variant introduced at or before that version
// ("cuMemcpyHtoD_v2", introduced in 3020). With CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
// it returns the _ptds/_ptsz variant where one exists. Entries below are only the
// variants simcuda implements (the rows of driver_entry_points.h); an older variant
// it lacks reads as "version not sufficient".
#include <dlfcn.h>

#include <cstring>

#include "driver_impl.h"

namespace {

struct ProcEntry {
  const char* base;
  int version;             // CUDA version that introduced this variant
  const char* symbol;      // exported symbol
  const char* per_thread;  // its per-thread-default-stream form, or nullptr
};

#define SIM_FN(base, since, symbol, params, args) {#base, since, #symbol, nullptr},
#define SIM_FN_PT(base, since, symbol, suffix, params, args) {#base, since, #symbol, #symbol "_" #suffix},
#define SIM_FN_NOARGS(base, since, symbol) {#base, since, #symbol, nullptr},
#define SIM_LAUNCH_PT(base, since, symbol, suffix, params, args, function) \
  {#base, since, #symbol, #symbol "_" #suffix},
#define SIM_PROC_ALIAS(base, since, symbol) {#base, since, #symbol, nullptr},
constexpr ProcEntry kProcs[] = {
#include "driver_entry_points.h"
};

// Resolves our own exports through this library's handle, so an LD_PRELOADed
// definition of the same name is not returned (the real driver hands out its own
// entry points too).
void* own_symbol(const char* name) {
  static void* self = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&own_symbol), &info);
    return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  }();
  return self ? dlsym(self, name) : nullptr;
}

CUresult lookup(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                CUdriverProcAddressQueryResult* status) {
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  bool known = false;
  const ProcEntry* best = nullptr;
  for (const ProcEntry& entry : kProcs) {
    if (std::strcmp(entry.base, symbol) != 0) continue;
    known = true;
    if (entry.version <= cuda_version && (best == nullptr || entry.version > best->version)) best = &entry;
  }
  // As driver 580 answers (H100, 2026-11-22): a name it lacks, or a version
  // too old for it, is not an error: CUDA_SUCCESS, a null pointer and the
  // reason in the status.
  if (best == nullptr) {
    if (status) *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_SUCCESS;
  }
  bool per_thread = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
  const char* name = per_thread && best->per_thread ? best->per_thread : best->symbol;
  *pfn = own_symbol(name);
  if (status) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_SUCCESS;
}

}  // namespace

namespace simcuda::impl {

CUresult cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags) {
  return lookup(symbol, pfn, cudaVersion, flags, nullptr);
}

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* symbolStatus) {
  return lookup(symbol, pfn, cudaVersion, flags, symbolStatus);
}

}  // namespace simcuda::impl
