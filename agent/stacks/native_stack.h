#pragma once
// Native call stacks of app threads, taken inside CUPTI API callbacks.
//
// On x86-64 the agent walks the stack itself with the DWARF call-frame
// information every binary carries for C++ exceptions (.eh_frame, found
// through .eh_frame_hdr and glibc's lock-free _dl_find_object), and keeps each
// return address's rule in a lock-free table: the app's own exception
// unwinding and backtrace() are untouched, and the agent needs no libunwind.
// Elsewhere it uses libgcc's _Unwind_Backtrace (statically linked, private).
#include <cstdint>
#include <string>

namespace prof {

// Depth limits of one capture: what the ApiCallRecord payload can carry, and
// how many leading frames a caller may ask to drop.
inline constexpr uint32_t kMaxNativeStackDepth = 128;
inline constexpr uint32_t kMaxNativeSkipFrames = 32;

// Prepares the walker (resolves _dl_find_object where glibc has it).
// Idempotent and thread-safe; call it once at agent start, off the hot path.
// False, with `why` filled in, when stacks are unavailable.
bool init_native_stacks(std::string& why);

// True once init_native_stacks succeeded.
bool native_stacks_available();

// Fills `frames` with up to `max_depth` return addresses, leaf first: frames[0]
// is the return address into the function that called capture_native_stack,
// after `skip_frames` more callers are dropped (the agent's own callback
// frames). Every address is a return address (the instruction after a call):
// symbolize address - 1. Returns the number written; 0 before init.
//
// Safe on any thread: no malloc, no lock. The first time a return address is
// seen (by any thread) its rule is read from .eh_frame, about a microsecond;
// on glibc older than 2.35 that lookup takes the loader lock (dl_iterate_phdr).
// A library unloaded and another loaded at the same addresses would meet the
// first one's rules, as with libunwind's cache.
uint32_t capture_native_stack(uint64_t* frames, uint32_t max_depth, uint32_t skip_frames);

}  // namespace prof
