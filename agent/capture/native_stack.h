#pragma once
// Native call stacks of app threads, taken inside CUPTI API callbacks.
//
// libunwind is dlopened privately (RTLD_LOCAL) and never linked:
// libunwind.so.8 exports the C++ exception ABI (`_Unwind_*`, 36 symbols) and a
// weak `backtrace`; in the global scope of the app (where a linked dependency
// of a preloaded library lands) it would take over the app's exception
// unwinding from libgcc_s. Loaded RTLD_LOCAL, only dlsym on its handle sees it.
#include <cstdint>
#include <string>

namespace prof {

// Depth limits of one capture: what the ApiCallRecord payload can carry, and
// how many leading frames a caller may ask to drop.
inline constexpr uint32_t kMaxNativeStackDepth = 128;
inline constexpr uint32_t kMaxNativeSkipFrames = 32;

// Loads libunwind.so.8 (soname through the loader's search path) and resolves
// unw_backtrace. Idempotent and thread-safe; call it once at agent start, off
// the hot path. False, with `why` filled in, when stacks are unavailable.
bool init_native_stacks(std::string& why);

// True once init_native_stacks succeeded.
bool native_stacks_available();

// Fills `frames` with up to `max_depth` return addresses, leaf first: frames[0]
// is the return address into the function that called capture_native_stack,
// after `skip_frames` more callers are dropped (the agent's own callback
// frames). Every address is a return address (the instruction after a call):
// symbolize address - 1. Returns the number written; 0 when libunwind is
// unavailable.
//
// Safe on any thread, no malloc, no lock in steady state. The first capture on
// a thread, and the first time a return address is seen, take libunwind's slow
// path (it mmaps its per-thread trace cache and reads .eh_frame, which takes
// the loader lock through dl_iterate_phdr).
uint32_t capture_native_stack(uint64_t* frames, uint32_t max_depth, uint32_t skip_frames);

}  // namespace prof
