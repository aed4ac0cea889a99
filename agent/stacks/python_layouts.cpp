#include "stacks/python_layouts.h"

namespace prof {

const PythonLayout* python_layout_for(int major, int minor) {
  static constexpr const PythonLayout* kLayouts[] = {&kPython38,  &kPython39,  &kPython310,
                                                     &kPython311, &kPython312, &kPython313};
  for (const PythonLayout* layout : kLayouts) {
    if (layout->major == major && layout->minor == minor) return layout;
  }
  return nullptr;
}

}  // namespace prof
