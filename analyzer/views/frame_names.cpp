#include "views/frame_names.h"

#include <cstdio>

namespace prof::analyzer {
namespace {
std::string hex(uint64_t value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}
}  // namespace

std::string ModuleOffsetFrameNamer::name(const Run& run, const Frame& frame) const {
  if (frame.kind == FrameKind::kPython) {
    // The agent's mark where a deep stack's middle was left out: "...", as
    // flame graphs write it (no file, no line).
    if (run.name(frame.file).empty() && run.name(frame.function) == "...") return "...";
    return run.name(frame.file) + "(" + std::to_string(frame.line) + "): " + run.name(frame.function);
  }
  if (frame.module < 0 || static_cast<size_t>(frame.module) >= run.modules.size()) return hex(frame.address);
  const Module& m = run.modules[static_cast<size_t>(frame.module)];
  const size_t slash = m.path.rfind('/');
  const std::string base = slash == std::string::npos ? m.path : m.path.substr(slash + 1);
  return base + "+" + hex(frame.address - m.bias);
}

}  // namespace prof::analyzer
