#pragma once
// Where CPython keeps what a stack walk reads, per minor version (3.8-3.13).
//
// The agent reads a thread's interpreter frames as plain memory: it never
// calls into Python, so it cannot ask Python where a field is. The offsets
// below are facts of each release's x86-64 non-debug build, taken from its
// own headers (Include/cpython/pystate.h, frameobject.h, code.h,
// unicodeobject.h, Include/internal/pycore_frame.h) with offsetof, and checked
// against the headers of every CPython on the machine by the Python stacks
// test (test/integration/python/layout_probe.c).
// They hold across patch releases of a minor version (CPython keeps those
// structs ABI-stable within one). A debug build (Py_DEBUG, Py_TRACE_REFS)
// moves every object field, so it is refused, not guessed.
#include <cstdint>

namespace prof {

// How a frame maps its instruction to a source line (FORMAT of co_lnotab /
// co_linetable; see python_line_table.h).
enum class LineTableFormat : uint8_t {
  lnotab,      // 3.8, 3.9: co_lnotab, (byte delta, signed line delta) pairs
  linetable,   // 3.10: co_linetable, (byte delta, signed line delta or -128)
  locations,   // 3.11+: co_linetable, the location table of varint entries
};

struct PythonLayout {
  uint8_t major = 0;
  uint8_t minor = 0;

  // Thread state. <= 3.10: tstate->frame is the current PyFrameObject.
  // 3.11, 3.12: tstate->cframe->current_frame. 3.13: tstate->current_frame.
  int tstate_frame = -1;           // PyFrameObject* or _PyInterpreterFrame*
  int tstate_cframe = -1;          // _PyCFrame*, -1 when the version has none
  int cframe_current_frame = -1;   // _PyInterpreterFrame* in _PyCFrame

  // Frames. interpreter_frames: _PyInterpreterFrame (3.11+), else
  // PyFrameObject, of which each is run by its own _PyEval_EvalFrameDefault.
  bool interpreter_frames = false;
  int frame_previous = -1;  // f_back / previous
  int frame_code = -1;      // f_code / f_executable
  // <= 3.10: f_lasti, an int (bytes before 3.10, code units in 3.10).
  // 3.11+: prev_instr (3.11, 3.12) or instr_ptr (3.13), a _Py_CODEUNIT*.
  int frame_instruction = -1;
  bool lasti_in_code_units = false;  // 3.10
  int frame_owner = -1;     // char owner (3.11+)
  int frame_is_entry = -1;  // bool is_entry (3.11 only)

  // Code objects.
  int code_filename = -1;
  int code_name = -1;
  int code_qualname = -1;  // 3.11+; co_name before
  int code_firstlineno = -1;
  int code_line_table = -1;  // co_lnotab / co_linetable, a bytes object
  int code_adaptive = -1;    // co_code_adaptive: the instructions (3.11+)
  int code_firsttraceable = -1;  // _co_firsttraceable (3.11+)
  LineTableFormat line_table = LineTableFormat::lnotab;

  // str: PyASCIIObject / PyCompactUnicodeObject sizes (the data follows
  // them in a compact string); the state bitfield and length are fixed.
  int unicode_ascii_size = -1;
  int unicode_compact_size = -1;
};

// _PyInterpreterFrame.owner values (pycore_frame.h).
inline constexpr uint8_t kFrameOwnedByGenerator = 1;
inline constexpr uint8_t kFrameOwnedByCStack = 3;  // 3.12+: the eval loop's entry shim

// 3.8, 3.9: PyFrameObject frames, co_lnotab, f_lasti in bytes.
constexpr PythonLayout python_layout_38_39(uint8_t minor) {
  PythonLayout l;
  l.major = 3;
  l.minor = minor;
  l.tstate_frame = 24;
  l.frame_previous = 24;
  l.frame_code = 32;
  l.frame_instruction = 104;
  l.code_filename = 104;
  l.code_name = 112;
  l.code_firstlineno = 40;
  l.code_line_table = 120;
  l.line_table = LineTableFormat::lnotab;
  l.unicode_ascii_size = 48;
  l.unicode_compact_size = 72;
  return l;
}

constexpr PythonLayout python_layout_310() {
  PythonLayout l = python_layout_38_39(10);
  l.frame_instruction = 96;
  l.lasti_in_code_units = true;
  l.line_table = LineTableFormat::linetable;
  return l;
}

constexpr PythonLayout python_layout_311() {
  PythonLayout l;
  l.major = 3;
  l.minor = 11;
  l.tstate_cframe = 56;
  l.cframe_current_frame = 8;
  l.interpreter_frames = true;
  l.frame_previous = 48;
  l.frame_code = 32;
  l.frame_instruction = 56;
  l.frame_owner = 69;
  l.frame_is_entry = 68;
  l.code_filename = 112;
  l.code_name = 120;
  l.code_qualname = 128;
  l.code_firstlineno = 72;
  l.code_line_table = 136;
  l.code_adaptive = 184;
  l.code_firsttraceable = 168;
  l.line_table = LineTableFormat::locations;
  l.unicode_ascii_size = 48;
  l.unicode_compact_size = 72;
  return l;
}

constexpr PythonLayout python_layout_312() {
  PythonLayout l;
  l.major = 3;
  l.minor = 12;
  l.tstate_cframe = 56;
  l.cframe_current_frame = 0;
  l.interpreter_frames = true;
  l.frame_previous = 8;
  l.frame_code = 0;
  l.frame_instruction = 56;
  l.frame_owner = 70;
  l.code_filename = 112;
  l.code_name = 120;
  l.code_qualname = 128;
  l.code_firstlineno = 68;
  l.code_line_table = 136;
  l.code_adaptive = 192;
  l.code_firsttraceable = 176;
  l.line_table = LineTableFormat::locations;
  l.unicode_ascii_size = 40;
  l.unicode_compact_size = 56;
  return l;
}

constexpr PythonLayout python_layout_313() {
  PythonLayout l = python_layout_312();
  l.minor = 13;
  l.tstate_cframe = -1;
  l.cframe_current_frame = -1;
  l.tstate_frame = 72;
  l.code_adaptive = 200;
  l.code_firsttraceable = 184;
  return l;
}

// Constants, so that the frame walk can be compiled once per layout with
// its offsets as immediates (python_frames.cpp).
inline constexpr PythonLayout kPython38 = python_layout_38_39(8);
inline constexpr PythonLayout kPython39 = python_layout_38_39(9);
inline constexpr PythonLayout kPython310 = python_layout_310();
inline constexpr PythonLayout kPython311 = python_layout_311();
inline constexpr PythonLayout kPython312 = python_layout_312();
inline constexpr PythonLayout kPython313 = python_layout_313();

// The layout of CPython major.minor, or nullptr when the agent does not know
// it (before 3.8, after 3.13).
const PythonLayout* python_layout_for(int major, int minor);

}  // namespace prof
