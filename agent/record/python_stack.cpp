#include "record/python_stack.h"

namespace prof {

uint32_t merge_python_stack(const uint64_t* native, uint32_t native_depth, const PythonFrame* python,
                            uint32_t python_depth, uint64_t eval_begin, uint64_t eval_end, uint64_t* out) {
  uint32_t depth = 0;
  uint32_t next = 0;  // the next Python frame to place
  for (uint32_t i = 0; i < native_depth; ++i) {
    // Return addresses: the call instruction is the byte before.
    const uint64_t call_site = native[i] - 1;
    if (next < python_depth && call_site >= eval_begin && call_site < eval_end) {
      bool entry = false;
      while (next < python_depth && !entry) {
        entry = python[next].entry();
        out[depth++] = python_frame_key(python[next++]);
      }
      continue;
    }
    out[depth++] = native[i];
  }
  while (next < python_depth) out[depth++] = python_frame_key(python[next++]);
  return depth;
}

}  // namespace prof
