#pragma once
// How a stack frame is named in the Source Location column. One small
// interface so that a symbolizer (analyzer/symbols/) can replace the
// default without the views knowing.
#include <string>

#include "model/run.h"

namespace prof::analyzer {

class FrameNamer {
 public:
  virtual ~FrameNamer() = default;
  virtual std::string name(const Run& run, const Frame& frame) const = 0;
};

// Without symbols: native frames as "libfoo.so+0x1a2b" (address - bias, the
// file's virtual address, which is what addr2line and a later symbolizer
// take) or "0x7f..." outside every known module; Python frames as torch
// prints them, "file.py(12): function".
class ModuleOffsetFrameNamer final : public FrameNamer {
 public:
  std::string name(const Run& run, const Frame& frame) const override;
};

}  // namespace prof::analyzer
