#pragma once
// The call stack an API call carries, the same whichever path recorded the
// call (CUPTI's callback or the hooks): Python frames, native frames or both,
// as PROF_STACKS asks and the process allows.
#include <cstdint>
#include <cstring>

#include "stacks/native_stack.h"
#include "stacks/python_frames.h"
#include "stacks/stack_mode.h"

namespace prof {

struct CallStackSettings {
  bool native = false;  // the unwinder works, and the mode wants native frames
  bool python = false;  // PROF_STACKS python or mixed, and CPython is readable
  bool mixed = false;   // both kinds on every call (else native only where no Python)
  uint32_t depth = 0;   // PROF_STACK_DEPTH, at most the capture limits
  bool any() const { return native || python; }
};

// Chosen once, by the first caller, when the first call is recorded: Python
// is looked for then (a Python program has long been running by the time it
// starts CUDA), and what was chosen or refused is said once.
const CallStackSettings& call_stack_settings(StackMode mode, uint32_t depth);

struct CallStack {
  uint64_t native[kMaxNativeStackDepth];
  PythonFrame python[kMaxPythonStackDepth];
  uint32_t native_depth = 0;
  uint32_t python_depth = 0;

  uint32_t payload_bytes() const {
    return native_depth * static_cast<uint32_t>(sizeof(uint64_t)) +
           python_depth * static_cast<uint32_t>(sizeof(PythonFrame));
  }
  // The record's payload layout: native frames, then Python frames.
  // The tests spare the calls without a stack two calls of memcpy.
  char* write(char* out) const {
    if (native_depth != 0) memcpy(out, native, native_depth * sizeof(uint64_t));
    out += native_depth * sizeof(uint64_t);
    if (python_depth != 0) memcpy(out, python, python_depth * sizeof(PythonFrame));
    return out + python_depth * sizeof(PythonFrame);
  }
};

// Always inlined, so that `agent_frames` (the agent's own frames at the
// leaf, which the native walk skips) counts the caller's frames only.
// `memo`: the calling thread's previous native walk (native_stack.h), or null.
[[gnu::always_inline]] inline void capture_call_stack(const CallStackSettings& settings, uint32_t agent_frames,
                                                      NativeWalkMemo* memo, CallStack& stack) {
  stack.python_depth = settings.python ? capture_python_frames(stack.python, settings.depth) : 0;
  // PROF_STACKS=python: native frames only for a thread without Python
  // frames (a C++ worker thread), rather than no stack at all.
  stack.native_depth = settings.native && (settings.mixed || stack.python_depth == 0)
                           ? capture_native_stack(stack.native, settings.depth, agent_frames, memo)
                           : 0;
}

}  // namespace prof
