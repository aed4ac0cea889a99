#include "stacks/python_code_frees.h"

#include "common/large_zeroed.h"

namespace prof {

PROF_LARGE_ZEROED std::atomic<uint64_t> g_python_code_frees[kCodeFreeSlots];
std::atomic<uint64_t> g_python_code_frees_total{0};

namespace {

// PyTypeObject.tp_dealloc: after the PyVarObject header, tp_name,
// tp_basicsize and tp_itemsize; the same in 3.8-3.13 (non-debug builds,
// which are the only ones the reader accepts).
constexpr uintptr_t kTypeDealloc = 48;

using DeallocFn = void (*)(void*);
// CPython's code_dealloc (or whoever put theirs there before us). Not in
// AgentState: as g_python_code_frees.
std::atomic<DeallocFn> g_next_dealloc{nullptr};

// Runs on the thread that frees, holding the GIL, inside Py_DECREF: a count
// and a jump, nothing that could fail or re-enter Python.
void on_code_dealloc(void* code) {
  g_python_code_frees[python_code_free_slot(reinterpret_cast<uintptr_t>(code))].fetch_add(
      1, std::memory_order_release);
  g_python_code_frees_total.fetch_add(1, std::memory_order_release);
  g_next_dealloc.load(std::memory_order_relaxed)(code);
}

}  // namespace

bool watch_python_code_frees(uintptr_t code_type) {
  auto* slot = reinterpret_cast<DeallocFn*>(code_type + kTypeDealloc);
  const DeallocFn current = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (current == nullptr) return false;
  if (current == &on_code_dealloc) return true;
  g_next_dealloc.store(current, std::memory_order_relaxed);
  // One aligned pointer store: a thread freeing a code object meanwhile
  // calls either function, and a code object freed through the old one was
  // never cached (nothing is until this returns).
  __atomic_store_n(slot, &on_code_dealloc, __ATOMIC_RELEASE);
  return true;
}

}  // namespace prof
