#pragma once
// Which code objects may have been freed: what lets a reader cache facts
// about a code object by its address.
//
// A code object's address alone does not name it: once freed, its memory
// holds the next one allocated there (pymalloc hands a freed block out
// first), often with the same file name, line table and name objects'
// addresses too, since those were freed with it (an exec of generated
// functions in a loop does exactly this). No field of a code object before
// 3.12 tells two of them apart, and the reader may not take a reference
// (that needs the GIL). So the agent watches frees instead: it puts its own
// function in PyCode_Type's tp_dealloc, which counts the free in a slot
// chosen by the address and then runs CPython's own. A fact cached with a
// slot's count stays true while the count is unchanged: the code object at
// that address is still the one it was read from.
//
// Ordering: the count is raised (release) before CPython frees the memory.
// A reader that meets another code object at the address reached it
// through the GIL (its thread ran that code), which the freeing thread held
// and released after the free, so its acquire load sees the raised count.
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace prof {

// Starts counting frees of code objects: PyCode_Type at `code_type`. Call
// once, before any count is read (init_python_frames does); a second call
// does nothing. False when the type has no tp_dealloc (nothing to watch:
// then no fact about a code object may be cached).
bool watch_python_code_frees(uintptr_t code_type);

inline constexpr size_t kCodeFreeSlots = 4096;  // a power of two
// Not in AgentState: stacks/ also runs without the agent (the frames probe,
// unit tests), and the hook that writes it runs on whichever thread frees.
extern std::atomic<uint64_t> g_python_code_frees[kCodeFreeSlots];

inline size_t python_code_free_slot(uintptr_t code) {
  // Objects are 16-byte aligned; the bits above mix in nearby pages.
  return static_cast<size_t>((code >> 4) ^ (code >> 16)) & (kCodeFreeSlots - 1);
}

// The number of frees counted in `code`'s slot so far.
inline uint64_t python_code_frees_at(uintptr_t code) {
  return g_python_code_frees[python_code_free_slot(code)].load(std::memory_order_acquire);
}

// Every slot's frees together: a reader that saw this unchanged since it
// last checked a fact needs no slot's count (one load per walk, not one per
// frame). Raised after the slot's count.
extern std::atomic<uint64_t> g_python_code_frees_total;

inline uint64_t python_code_frees_total() { return g_python_code_frees_total.load(std::memory_order_acquire); }

}  // namespace prof
