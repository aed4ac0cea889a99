#pragma once
// How a recorded API call's Python frames join its native ones (on the
// writer thread, off the app's path).
//
// In the writer, a stack is a leaf-first sequence of 64-bit keys: a native
// return address, or a Python frame tagged with bit 63 (no user-space
// address has it) holding (code id, line). The stack table interns both
// kinds alike.
#include <cstdint>

#include "stacks/python_frames.h"

namespace prof {

inline constexpr uint64_t kPythonFrameTag = uint64_t{1} << 63;

inline uint64_t python_frame_key(const PythonFrame& frame) {
  return kPythonFrameTag | (uint64_t{frame.code_id()} << 32) | static_cast<uint32_t>(frame.line);
}
inline bool is_python_frame_key(uint64_t key) { return (key & kPythonFrameTag) != 0; }
inline uint32_t python_key_code_id(uint64_t key) { return static_cast<uint32_t>(key >> 32) & ~PythonFrame::kEntryBit; }
inline int32_t python_key_line(uint64_t key) { return static_cast<int32_t>(static_cast<uint32_t>(key)); }

// Writes the stack of one call into `out` (room for native_depth +
// python_depth keys), leaf first; returns its depth.
//
// With no native frames: the Python frames alone (PROF_STACKS=python).
// Otherwise (mixed): each native frame inside the eval loop
// [eval_begin, eval_end) is replaced by the run of Python frames that loop
// call ran (up to the next frame marked entry), in order, so the stack reads
// main -> interpreter -> Python code -> C extension -> CUDA call. Python
// frames left over (an eval loop frame not recognised, or the native stack
// cut at its depth limit) go at the root end, where they came from.
uint32_t merge_python_stack(const uint64_t* native, uint32_t native_depth, const PythonFrame* python,
                            uint32_t python_depth, uint64_t eval_begin, uint64_t eval_end, uint64_t* out);

}  // namespace prof
