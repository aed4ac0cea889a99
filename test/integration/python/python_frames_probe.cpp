// A library a Python test script loads with ctypes to see what the agent's
// Python frame reader reads on the calling thread (no CUDA involved): each
// frame as "file\tline\tname\tentry" lines, leaf first, and how many native
// frames of that stack lie in the eval loop (what mixed stacks replace).
#include <pthread.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "stacks/native_stack.h"
#include "stacks/python_frames.h"
#include "stacks/python_layouts.h"

namespace {

std::string code_line(uint32_t id, std::vector<prof::PythonCode>& codes) {
  if (id > codes.size()) codes = prof::python_codes_from(0);
  if (id == 0 || id > codes.size()) return "?\t?";
  return codes[id - 1].file + "\t" + codes[id - 1].name;
}

int describe(char* out, int size) {
  const prof::PythonRuntime& runtime = prof::init_python_frames();
  if (!runtime.supported) {
    std::snprintf(out, static_cast<size_t>(size), "unsupported\t%s\t%s", runtime.version.c_str(),
                  runtime.why.c_str());
    return -1;
  }
  prof::PythonFrame frames[prof::kMaxPythonStackDepth];
  const uint32_t depth = prof::capture_python_frames(frames, prof::kMaxPythonStackDepth);

  uint32_t eval_frames = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
  std::string why;
  if (prof::init_native_stacks(why) && prof::python_eval_range(begin, end)) {
    uint64_t native[prof::kMaxNativeStackDepth];
    const uint32_t native_depth = prof::capture_native_stack(native, prof::kMaxNativeStackDepth, 0);
    for (uint32_t i = 0; i < native_depth; ++i) {
      if (native[i] - 1 >= begin && native[i] - 1 < end) ++eval_frames;
    }
  }
  std::vector<prof::PythonCode> codes;
  std::string text = "version\t" + runtime.version + "\neval_frames\t" + std::to_string(eval_frames) + "\n";
  for (uint32_t i = 0; i < depth; ++i) {
    const std::string where = code_line(frames[i].code_id(), codes);
    const size_t tab = where.find('\t');
    text += where.substr(0, tab) + "\t" + std::to_string(frames[i].line) + "\t" + where.substr(tab + 1) +
            "\t" + (frames[i].entry() ? "entry" : "-") + "\n";
  }
  std::snprintf(out, static_cast<size_t>(size), "%s", text.c_str());
  return static_cast<int>(depth);
}

struct ThreadArgs {
  char* out;
  int size;
  int result;
};

}  // namespace

extern "C" [[gnu::visibility("default")]] int probe_frames(char* out, int size) {
  return describe(out, size);
}

// The agent's layout table for major.minor, as "field offset" lines (the
// fields it uses); -1 when it has none.
extern "C" [[gnu::visibility("default")]] int probe_layout(int major, int minor, char* out, int size) {
  const prof::PythonLayout* l = prof::python_layout_for(major, minor);
  if (l == nullptr) return -1;
  const std::pair<const char*, int> fields[] = {
      {"tstate_frame", l->tstate_frame},
      {"tstate_cframe", l->tstate_cframe},
      {"cframe_current_frame", l->cframe_current_frame},
      {"frame_previous", l->frame_previous},
      {"frame_code", l->frame_code},
      {"frame_instruction", l->frame_instruction},
      {"frame_owner", l->frame_owner},
      {"frame_is_entry", l->frame_is_entry},
      {"code_filename", l->code_filename},
      {"code_name", l->code_name},
      {"code_qualname", l->code_qualname},
      {"code_firstlineno", l->code_firstlineno},
      {"code_line_table", l->code_line_table},
      {"code_adaptive", l->code_adaptive},
      {"code_firsttraceable", l->code_firsttraceable},
      {"unicode_ascii_size", l->unicode_ascii_size},
      {"unicode_compact_size", l->unicode_compact_size},
  };
  std::string text;
  for (const auto& [name, value] : fields) {
    if (value >= 0) text += std::string(name) + " " + std::to_string(value) + "\n";
  }
  std::snprintf(out, static_cast<size_t>(size), "%s", text.c_str());
  return 0;
}

// From a thread Python never ran on: no thread state, so no Python frames.
extern "C" [[gnu::visibility("default")]] int probe_frames_in_c_thread(char* out, int size) {
  ThreadArgs args{out, size, -2};
  pthread_t thread;
  if (pthread_create(
          &thread, nullptr,
          [](void* raw) -> void* {
            auto* a = static_cast<ThreadArgs*>(raw);
            a->result = describe(a->out, a->size);
            return nullptr;
          },
          &args) != 0) {
    return -2;
  }
  pthread_join(thread, nullptr);
  return args.result;
}
