#include "stacks/call_stack.h"

#include <string>

#include "common/log.h"

namespace prof {
namespace {

CallStackSettings choose(StackMode mode, uint32_t depth) {
  CallStackSettings settings;
  if (mode == StackMode::none) return settings;
  if (mode != StackMode::native) {
    const PythonRuntime& python = init_python_frames();
    if (python.supported) {
      if (mode == StackMode::automatic) mode = StackMode::mixed;
      log_debug("reading the frames of CPython %s (PROF_STACKS=%s)", python.version.c_str(), stack_mode_name(mode));
    } else {
      if (python.present) {
        log_info("%s; recording native stacks", python.why.c_str());
      } else if (mode != StackMode::automatic) {
        log_info("PROF_STACKS=%s: this process runs no CPython; recording native stacks", stack_mode_name(mode));
      }
      mode = StackMode::native;
    }
  }
  std::string why;
  settings.native = init_native_stacks(why);
  if (!settings.native) log_error("%s; native call stacks are not recorded", why.c_str());
  settings.python = mode == StackMode::python || mode == StackMode::mixed;
  settings.mixed = mode == StackMode::mixed;
  static_assert(kMaxPythonStackDepth == kMaxNativeStackDepth, "one depth limit for both kinds");
  settings.depth = depth < kMaxNativeStackDepth ? depth : kMaxNativeStackDepth;
  return settings;
}

}  // namespace

const CallStackSettings& call_stack_settings(StackMode mode, uint32_t depth) {
  static const CallStackSettings settings = choose(mode, depth);
  return settings;
}

}  // namespace prof
