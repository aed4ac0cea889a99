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
//
// `memo`, when given, is the calling thread's record of its previous walk
// (NativeWalkMemo below): the same answer, for a stack that repeats, at a
// few instructions per frame instead of a rule lookup.
struct NativeWalkMemo;
uint32_t capture_native_stack(uint64_t* frames, uint32_t max_depth, uint32_t skip_frames,
                              NativeWalkMemo* memo = nullptr);

// One thread's previous walk, as the chain of register states it stepped
// through. A step is a pure function of its state (the address whose rule
// applies, rsp, rbp), the rule kept for that address (published once, never
// changed) and the two stack slots the rule reads (the return address, the
// saved rbp). So when a walk reaches a state of the chain, the rest of the
// chain is its answer as long as each of those slots still holds what the
// chain read there: checking that is a load and a compare per frame, where
// the walk itself hashes, looks up and decodes a rule (about 30 instructions
// per frame; a training loop launches from a few call sites, each stack
// repeating). Only steps by a kept, plain rule are remembered. Owned by one
// thread (its ThreadBuffer holds it); a walk in a signal handler that
// interrupts another finds it busy and walks without it.
struct NativeWalkMemo {
  struct State {  // where a step starts
    uint64_t lookup;  // the address whose rule applies
    uint64_t sp;
    uint64_t bp;
  };
  struct Step {  // what the step from the state of the same index read
    uint64_t ra_address;
    uint64_t return_address;
    uint64_t bp_address;  // 0: rbp unchanged
    uint64_t caller_bp;
  };
  static constexpr uint32_t kMaxStates = kMaxNativeStackDepth + kMaxNativeSkipFrames + 8 + 1;
  uint32_t count = 0;  // states[0..count) are valid, steps[0..count - 1)
  // The walk ended at the last state by a kept rule that has no caller
  // (_start's), so that it ends there again.
  bool ends_at_last = false;
  bool busy = false;
  State states[kMaxStates];
  Step steps[kMaxStates];
};

}  // namespace prof
