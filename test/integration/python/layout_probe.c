/* Prints, from a CPython's own headers, the offsets and sizes the agent's
   table (agent/stacks/python_layouts.cpp) holds for that version, under the
   table's field names: the Python stacks test compiles it against each
   interpreter's headers and compares. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdio.h>
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_code.h"
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif

#define FIELD(name, value) printf("%s %d\n", name, (int)(value))

int main(void) {
#if PY_VERSION_HEX < 0x030B0000
  FIELD("tstate_frame", offsetof(PyThreadState, frame));
  FIELD("frame_previous", offsetof(PyFrameObject, f_back));
  FIELD("frame_code", offsetof(PyFrameObject, f_code));
  FIELD("frame_instruction", offsetof(PyFrameObject, f_lasti));
#else
#if PY_VERSION_HEX < 0x030D0000
  FIELD("tstate_cframe", offsetof(PyThreadState, cframe));
  FIELD("cframe_current_frame", offsetof(_PyCFrame, current_frame));
  FIELD("frame_code", offsetof(_PyInterpreterFrame, f_code));
  FIELD("frame_instruction", offsetof(_PyInterpreterFrame, prev_instr));
#else
  FIELD("tstate_frame", offsetof(PyThreadState, current_frame));
  FIELD("frame_code", offsetof(_PyInterpreterFrame, f_executable));
  FIELD("frame_instruction", offsetof(_PyInterpreterFrame, instr_ptr));
#endif
  FIELD("frame_previous", offsetof(_PyInterpreterFrame, previous));
  FIELD("frame_owner", offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX < 0x030C0000
  FIELD("frame_is_entry", offsetof(_PyInterpreterFrame, is_entry));
#endif
  FIELD("code_qualname", offsetof(PyCodeObject, co_qualname));
  FIELD("code_adaptive", offsetof(PyCodeObject, co_code_adaptive));
  FIELD("code_firsttraceable", offsetof(PyCodeObject, _co_firsttraceable));
#endif
  FIELD("code_filename", offsetof(PyCodeObject, co_filename));
  FIELD("code_name", offsetof(PyCodeObject, co_name));
  FIELD("code_firstlineno", offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX >= 0x030A0000
  FIELD("code_line_table", offsetof(PyCodeObject, co_linetable));
#else
  FIELD("code_line_table", offsetof(PyCodeObject, co_lnotab));
#endif
  FIELD("unicode_ascii_size", sizeof(PyASCIIObject));
  FIELD("unicode_compact_size", sizeof(PyCompactUnicodeObject));
  return 0;
}
