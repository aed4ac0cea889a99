#include "stacks/python_layouts.h"

namespace prof {
namespace {

// 3.8, 3.9: PyFrameObject frames, co_lnotab, f_lasti in bytes.
constexpr PythonLayout layout_38_39(uint8_t minor) {
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

constexpr PythonLayout layout_310() {
  PythonLayout l = layout_38_39(10);
  l.frame_instruction = 96;
  l.lasti_in_code_units = true;
  l.line_table = LineTableFormat::linetable;
  return l;
}

constexpr PythonLayout layout_311() {
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

constexpr PythonLayout layout_312() {
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

constexpr PythonLayout layout_313() {
  PythonLayout l = layout_312();
  l.minor = 13;
  l.tstate_cframe = -1;
  l.cframe_current_frame = -1;
  l.tstate_frame = 72;
  l.code_adaptive = 200;
  l.code_firsttraceable = 184;
  return l;
}

constexpr PythonLayout kLayouts[] = {
    layout_38_39(8), layout_38_39(9), layout_310(), layout_311(), layout_312(), layout_313(),
};

}  // namespace

const PythonLayout* python_layout_for(int major, int minor) {
  for (const PythonLayout& layout : kLayouts) {
    if (layout.major == major && layout.minor == minor) return &layout;
  }
  return nullptr;
}

}  // namespace prof
