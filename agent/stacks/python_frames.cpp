#include "stacks/python_frames.h"

#include <dlfcn.h>
#include <pthread.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "stacks/python_code_frees.h"
#include "stacks/python_layouts.h"
#include "stacks/python_line_table.h"
#include "stacks/python_site_cache.h"

namespace prof {
namespace {

using GetThreadStateFn = void* (*)();
using IsInitializedFn = int (*)();
using GetVersionFn = const char* (*)();

// PyObject header (non-debug, non-free-threaded builds): ob_refcnt, ob_type;
// PyVarObject adds ob_size. Fixed across 3.8-3.13.
constexpr uintptr_t kObType = 8;
constexpr uintptr_t kObSize = 16;
constexpr uintptr_t kTypeName = 24;  // PyTypeObject.tp_name
constexpr uintptr_t kBytesData = 32;  // PyBytesObject.ob_sval
constexpr uintptr_t kUnicodeLength = 16;
constexpr uintptr_t kUnicodeState = 32;

// The longest file or function name copied; longer ones are cut.
constexpr int64_t kMaxNameChars = 1024;
// A bound on frames walked (skipped ones included), against a corrupt chain.
constexpr uint32_t kMaxFramesWalked = 4096;

struct Runtime {
  PythonRuntime info;
  const PythonLayout* layout = nullptr;
  GetThreadStateFn this_thread_state = nullptr;
  IsInitializedFn is_initialized = nullptr;
  uintptr_t code_type = 0;
  uintptr_t unicode_type = 0;
  uintptr_t bytes_type = 0;
  uint64_t eval_begin = 0;
  uint64_t eval_end = 0;
};

// Not in AgentState: stacks/ also runs without the agent (the
// python_frames_probe test library, unit tests); these describe the process's
// interpreter, found once.
std::mutex g_init_mutex;
bool g_init_done = false;  // guarded by g_init_mutex
Runtime g_runtime;         // written once under g_init_mutex before g_layout
std::atomic<const PythonLayout*> g_layout{nullptr};
// The walk compiled for g_layout (capture_for), stored with it.
using CaptureFn = uint32_t (*)(const Runtime&, uintptr_t, PythonFrame*, uint32_t);
CaptureFn capture_for(const PythonLayout& layout);
std::atomic<CaptureFn> g_capture{nullptr};

template <typename T>
T load(uintptr_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof(T));
  return value;
}

uintptr_t load_ptr(uintptr_t address) { return load<uintptr_t>(address); }

// ---- Code objects: interned once per content ----------------------------

// What a frame shows of its code object. Two code objects alike in these
// give the same frames, so they share an id: interning by content is exact
// whatever reuses an address.
using CodeContent = std::tuple<std::string, std::string, int>;  // file, name, first line

// A code object's id as last read at an address, with its slot's count of
// frees then (python_code_frees.h): still its id while the count holds.
struct InternedCode {
  uint64_t frees = 0;
  uint32_t id = 0;
};

// Not in AgentState: as above (stacks/ runs without the agent);
// the code objects interned for the process.
std::mutex g_codes_mutex;
std::unordered_map<uintptr_t, InternedCode> g_code_ids;  // guarded; by address
std::map<CodeContent, uint32_t> g_content_ids;           // guarded
std::vector<PythonCode> g_codes;                         // guarded; id = index + 1

uint32_t intern_content_locked(std::string file, std::string name, int first_line) {
  auto [it, fresh] = g_content_ids.try_emplace(CodeContent{file, name, first_line}, 0);
  if (!fresh) return it->second;
  PythonCode entry;
  entry.id = static_cast<uint32_t>(g_codes.size() + 1);
  entry.file = std::move(file);
  entry.name = std::move(name);
  entry.first_line = first_line;
  g_codes.push_back(std::move(entry));
  it->second = g_codes.back().id;
  return it->second;
}

void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

// A str's text as UTF-8, read from its storage (PEP 393: 1, 2 or 4 bytes per
// code point, after the object header in a compact string). Not through its
// cached utf8 pointer: another thread may be filling that in.
std::string read_str(const Runtime& rt, uintptr_t object) {
  if (object == 0 || load_ptr(object + kObType) != rt.unicode_type) return "?";
  const PythonLayout& l = *rt.layout;
  int64_t length = load<int64_t>(object + kUnicodeLength);
  const uint32_t state = load<uint32_t>(object + kUnicodeState);
  const uint32_t kind = (state >> 2) & 7;
  const bool compact = (state >> 5) & 1;
  const bool ascii = (state >> 6) & 1;
  uintptr_t data = 0;
  if (compact) {
    data = object + static_cast<uintptr_t>(ascii ? l.unicode_ascii_size : l.unicode_compact_size);
  } else {
    data = load_ptr(object + static_cast<uintptr_t>(l.unicode_compact_size));  // data.any
  }
  if (data == 0 || length < 0 || (kind != 1 && kind != 2 && kind != 4)) return "?";
  if (length > kMaxNameChars) length = kMaxNameChars;
  std::string out;
  out.reserve(static_cast<size_t>(length));
  for (int64_t i = 0; i < length; ++i) {
    uint32_t c = 0;
    if (kind == 1) c = load<uint8_t>(data + static_cast<uintptr_t>(i));
    if (kind == 2) c = load<uint16_t>(data + static_cast<uintptr_t>(i) * 2);
    if (kind == 4) c = load<uint32_t>(data + static_cast<uintptr_t>(i) * 4);
    append_utf8(out, c);
  }
  return out;
}

// The id of the code object at `code`, whose slot had counted `frees` frees
// before it was read: its names are read (and copied) only the first time an
// address is seen, or again after a code object sharing its slot was freed.
uint32_t intern_code(const Runtime& rt, uintptr_t code, uint64_t frees) {
  std::lock_guard lock(g_codes_mutex);
  InternedCode& known = g_code_ids[code];
  if (known.id != 0 && known.frees == frees) return known.id;
  const PythonLayout& l = *rt.layout;
  const int name_field = l.code_qualname >= 0 ? l.code_qualname : l.code_name;
  known.id = intern_content_locked(read_str(rt, load_ptr(code + static_cast<uintptr_t>(l.code_filename))),
                                   read_str(rt, load_ptr(code + static_cast<uintptr_t>(name_field))),
                                   load<int32_t>(code + static_cast<uintptr_t>(l.code_firstlineno)));
  known.frees = frees;
  return known.id;
}

int line_of(const Runtime& rt, uintptr_t code, uint32_t byte_offset) {
  const PythonLayout& l = *rt.layout;
  const uintptr_t table = load_ptr(code + static_cast<uintptr_t>(l.code_line_table));
  if (table == 0 || load_ptr(table + kObType) != rt.bytes_type) return -1;
  const int64_t size = load<int64_t>(table + kObSize);
  if (size < 0) return -1;
  return python_line_of(l.line_table, reinterpret_cast<const uint8_t*>(table + kBytesData),
                        static_cast<size_t>(size), load<int32_t>(code + static_cast<uintptr_t>(l.code_firstlineno)),
                        byte_offset);
}

// The frame to record for the instruction at `byte_offset` of the code
// object at `code`, whose slot had counted `frees` frees before it was read
// (python_code_frees.h): its code id (interned) and line. Takes a lock; the
// first time it sees the code object, allocates.
PythonFrame read_frame(const Runtime& rt, uintptr_t code, uint32_t byte_offset, uint64_t frees) {
  return PythonFrame{intern_code(rt, code, frees), line_of(rt, code, byte_offset)};
}

// ---- Start-up ---------------------------------------------------------------

bool parse_version(const char* text, int& major, int& minor, std::string& version) {
  if (text == nullptr) return false;
  int patch = 0;
  if (std::sscanf(text, "%d.%d.%d", &major, &minor, &patch) < 2) return false;
  const char* end = std::strchr(text, ' ');
  version.assign(text, end ? static_cast<size_t>(end - text) : std::strlen(text));
  return true;
}

// True when PyCode_Type's name reads "code" through the assumed object header:
// a build whose header differs (Py_TRACE_REFS, free-threading) fails this.
bool header_layout_checks(const Runtime& rt) {
  const auto name = reinterpret_cast<const char*>(load_ptr(rt.code_type + kTypeName));
  const auto bytes_name = reinterpret_cast<const char*>(load_ptr(rt.bytes_type + kTypeName));
  return name != nullptr && std::strcmp(name, "code") == 0 && bytes_name != nullptr &&
         std::strcmp(bytes_name, "bytes") == 0;
}

void find_eval_range(Runtime& rt) {
  void* eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
  if (eval == nullptr) return;
  Dl_info info;
  void* entry = nullptr;
  const bool found = dladdr1(eval, &info, &entry, RTLD_DL_SYMENT) != 0;
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  if (!found ||
      symbol == nullptr || symbol->st_size == 0) {
    return;
  }
  rt.eval_begin = reinterpret_cast<uintptr_t>(eval);
  rt.eval_end = rt.eval_begin + symbol->st_size;
}

void detect(Runtime& rt) {
  rt.this_thread_state =
      reinterpret_cast<GetThreadStateFn>(dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState"));
  rt.is_initialized = reinterpret_cast<IsInitializedFn>(dlsym(RTLD_DEFAULT, "Py_IsInitialized"));
  auto get_version = reinterpret_cast<GetVersionFn>(dlsym(RTLD_DEFAULT, "Py_GetVersion"));
  rt.code_type = reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "PyCode_Type"));
  rt.unicode_type = reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "PyUnicode_Type"));
  rt.bytes_type = reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "PyBytes_Type"));
  if (rt.this_thread_state == nullptr || rt.is_initialized == nullptr || get_version == nullptr ||
      rt.code_type == 0 || rt.unicode_type == 0 || rt.bytes_type == 0) {
    return;  // no CPython here
  }
  rt.info.present = true;
  // Py_GetVersion formats PY_VERSION and build facts into a static buffer;
  // it runs no Python and needs no GIL.
  const char* text = get_version();
  int major = 0;
  int minor = 0;
  if (!parse_version(text, major, minor, rt.info.version)) {
    rt.info.why = "unreadable Py_GetVersion()";
    return;
  }
  // Py_Version (3.11+) is the exact PY_VERSION_HEX: trust it over the text.
  if (const auto* hex = static_cast<const unsigned long*>(dlsym(RTLD_DEFAULT, "Py_Version"))) {
    major = static_cast<int>((*hex >> 24) & 0xFF);
    minor = static_cast<int>((*hex >> 16) & 0xFF);
  }
  rt.layout = python_layout_for(major, minor);
  if (rt.layout == nullptr) {
    rt.info.why = "CPython " + rt.info.version + " is not a version whose frames the agent can read (3.8 to 3.13)";
    return;
  }
  // Debug builds (reference counting debug moves every field) and
  // free-threaded builds lay objects out differently.
  if (dlsym(RTLD_DEFAULT, "_Py_GetRefTotal") != nullptr ||
      dlsym(RTLD_DEFAULT, "_Py_GetGlobalRefTotal") != nullptr ||
      std::strstr(text, "free-threading") != nullptr || !header_layout_checks(rt)) {
    rt.layout = nullptr;
    rt.info.why = "CPython " + rt.info.version + " is a debug or free-threaded build, whose object layout the agent does not know";
    return;
  }
  // The frame cache's guard (python_code_frees.h): without it no code
  // object's names could be cached by address.
  if (!watch_python_code_frees(rt.code_type)) {
    rt.layout = nullptr;
    rt.info.why = "CPython " + rt.info.version + "'s code type has no tp_dealloc to watch";
    return;
  }
  find_eval_range(rt);
  rt.info.supported = true;
}

}  // namespace

// The frame that stands for the frames a deep stack leaves out: a code
// object of its own, named "...", with no file (kStackCutName). Not in
// AgentState: as above (stacks/ runs without the agent).
std::atomic<uint32_t> g_cut_code_id{0};

uint32_t intern_cut_code() {
  std::lock_guard lock(g_codes_mutex);
  PythonCode entry;
  entry.id = static_cast<uint32_t>(g_codes.size() + 1);
  entry.name = kStackCutName;
  g_codes.push_back(entry);
  return entry.id;
}

// Collects a walk's frames, leaf first, into at most `max_depth` slots:
// while they fit, all of them; past that, the innermost (which call) and
// the outermost quarter (which loop, which script), with one "..." frame
// where the middle was left out. The outermost are kept in a ring in the
// last slots and put in order at the end.
class CutStack {
 public:
  // `seen`: frames already in frames[0..seen), at most max_depth.
  CutStack(PythonFrame* frames, uint32_t max_depth, uint32_t seen = 0)
      : frames_(frames), max_(max_depth), outer_(max_depth >= 4 ? max_depth / 4 : 0),
        inner_(max_depth - outer_ - (max_depth >= 2 ? 1 : 0)), seen_(seen) {}

  // A bound on the frames a walk adds, against a corrupt chain.
  bool full() const { return seen_ >= kMaxFramesWalked; }

  void add(PythonFrame frame) {
    if (seen_ < max_) {
      frames_[seen_++] = frame;
      return;
    }
    ++seen_;
    if (!cut_) {
      // The first frame too many: the slot after the innermost becomes
      // the "..." frame; what it held is left out.
      cut_ = true;
      left_out_entries_ = frames_[inner_].entry();
    }
    if (outer_ == 0) {
      left_out_entries_ = left_out_entries_ || frame.entry();
      return;
    }
    PythonFrame& oldest = frames_[inner_ + 1 + ring_head_];
    left_out_entries_ = left_out_entries_ || oldest.entry();
    oldest = frame;
    ring_head_ = (ring_head_ + 1) % outer_;
  }

  // The frame added last is the first of an eval loop call (3.12+'s shim
  // follows it).
  void mark_last_entry() {
    if (seen_ == 0) return;
    if (!cut_) {
      frames_[seen_ - 1].code_and_entry |= PythonFrame::kEntryBit;
    } else if (outer_ != 0) {
      frames_[inner_ + 1 + (ring_head_ + outer_ - 1) % outer_].code_and_entry |= PythonFrame::kEntryBit;
    } else {
      left_out_entries_ = true;
    }
  }

  // The depth written; marks the last frame as entered from native code
  // when `at_root` (the walk reached the outermost frame).
  uint32_t finish(bool at_root, uint32_t cut_code_id) {
    if (!cut_ || cut_code_id == 0 || inner_ >= max_) {
      const uint32_t depth = seen_ < max_ ? seen_ : max_;
      if (depth > 0 && at_root) frames_[depth - 1].code_and_entry |= PythonFrame::kEntryBit;
      return depth;
    }
    std::rotate(frames_ + inner_ + 1, frames_ + inner_ + 1 + ring_head_, frames_ + max_);
    // An eval loop call boundary among the frames left out stays one, so
    // that mixed stacks still put each run of Python frames in its place.
    frames_[inner_] = PythonFrame{cut_code_id | (left_out_entries_ ? PythonFrame::kEntryBit : 0u), -1};
    if (at_root) frames_[max_ - 1].code_and_entry |= PythonFrame::kEntryBit;
    return max_;
  }

 private:
  PythonFrame* frames_;
  uint32_t max_;
  uint32_t outer_;
  uint32_t inner_;
  uint32_t seen_;
  uint32_t ring_head_ = 0;
  bool cut_ = false;
  bool left_out_entries_ = false;
};

// The frames of a walk while they fit, which is most walks: CutStack's
// work only once one does not (its state kept out of the common loop frees
// registers there).
class FirstFrames {
 public:
  FirstFrames(PythonFrame* frames, uint32_t max_depth) : begin_(frames), next_(frames), end_(frames + max_depth) {}

  bool full() const { return next_ == end_; }
  void add(PythonFrame frame) { *next_++ = frame; }
  void mark_last_entry() {
    if (next_ != begin_) next_[-1].code_and_entry |= PythonFrame::kEntryBit;
  }
  uint32_t seen() const { return static_cast<uint32_t>(next_ - begin_); }
  uint32_t finish(bool at_root) {
    if (next_ != begin_ && at_root) next_[-1].code_and_entry |= PythonFrame::kEntryBit;
    return seen();
  }

 private:
  PythonFrame* begin_;
  PythonFrame* next_;  // a cursor, not a count: one register and no index arithmetic per frame
  PythonFrame* end_;
};

const PythonRuntime& init_python_frames() {
  std::lock_guard lock(g_init_mutex);
  if (!g_init_done) {
    g_init_done = true;
    detect(g_runtime);
    if (g_runtime.info.supported) g_cut_code_id.store(intern_cut_code(), std::memory_order_release);
    if (g_runtime.info.supported) {
      g_capture.store(capture_for(*g_runtime.layout), std::memory_order_release);
      g_layout.store(g_runtime.layout, std::memory_order_release);
    }
  }
  return g_runtime.info;
}

bool python_frames_available() { return g_layout.load(std::memory_order_acquire) != nullptr; }

bool python_eval_range(uint64_t& begin, uint64_t& end) {
  if (!python_frames_available() || g_runtime.eval_begin == 0) return false;
  begin = g_runtime.eval_begin;
  end = g_runtime.eval_end;
  return true;
}

namespace {

// A PythonFrame as one 8-byte word, code_and_entry its low half: the walk
// copies a frame with one load and one store.
using FrameWord = uint64_t;
static_assert(offsetof(PythonFrame, code_and_entry) == 0 && sizeof(PythonFrame) == sizeof(FrameWord));

FrameWord word_of(PythonFrame frame) {
  FrameWord word = 0;
  std::memcpy(&word, &frame, sizeof word);
  return word;
}

PythonFrame frame_of(FrameWord word) {
  PythonFrame frame;
  std::memcpy(&frame, &word, sizeof frame);
  return frame;
}

// A frame the site cache does not have in its set's first way: from
// another way, or read from the code object and cached. Its code id is 0
// when the frame is not one to record (no code, 3.13's non-code
// executables, a frame still copying its arguments in).
template <const PythonLayout& L>
[[gnu::noinline]] PythonFrame find_frame_slow(const Runtime& rt, PythonSiteCache& cache, PythonSite* set,
                                              uintptr_t current, uintptr_t code, uint64_t key) {
  constexpr PythonFrame kSkip{0, -1};
  if (const PythonSite* entry = cache.find_after_first(set, code, key)) return entry->frame;
  if (code == 0) return kSkip;
  // 3.13's f_executable may be something other than a code object; before,
  // a frame's code is one. Checked here only: a cached code object's
  // address holds another object only after it was freed, which ends its
  // entries.
  if (L.minor >= 13 && load_ptr(code + kObType) != rt.code_type) return kSkip;
  const auto site = static_cast<uint32_t>(key);
  uint32_t byte_offset = 0;
  if constexpr (L.interpreter_frames) {
    byte_offset = site - static_cast<uint32_t>(L.code_adaptive);
    const int32_t first_traceable = load<int32_t>(code + L.code_firsttraceable);
    // An incomplete frame (still copying its arguments in, before its first
    // traceable instruction) is not on Python's own tracebacks either; a
    // generator's is. Its offset may be "before the first" (3.11's
    // prev_instr starts one unit before the code): negative. Not cached:
    // the fast path need not tell these apart.
    if (static_cast<int64_t>(static_cast<int32_t>(byte_offset)) < static_cast<int64_t>(first_traceable) * 2) {
      if (load<uint8_t>(current + L.frame_owner) != kFrameOwnedByGenerator) return kSkip;
      return read_frame(rt, code, byte_offset, python_code_frees_at(code));
    }
  } else {
    const auto lasti = static_cast<int32_t>(site);
    byte_offset = lasti < 0 ? 0u : static_cast<uint32_t>(lasti) * (L.lasti_in_code_units ? 2u : 1u);
  }
  // Read before the code object's fields: a free counted after this read
  // makes the entry be checked again.
  const uint64_t frees = python_code_frees_at(code);
  PythonFrame frame = read_frame(rt, code, byte_offset, frees);
  // <= 3.10: one PyFrameObject per eval loop call, every frame an entry.
  if constexpr (!L.interpreter_frames) frame.code_and_entry |= PythonFrame::kEntryBit;
  PythonSite& entry = cache.make_first(set, code, key);
  entry.code = code;
  entry.key = key;
  entry.frees = frees;
  entry.frame = frame;
  return frame;
}

// The walk from `frame` on, into `out` (FirstFrames or CutStack) until it
// is full or the chain ends; returns the next frame to read (0 at the root).
// `skips_left`: how many more frames the walk may pass over (a bound against
// a corrupt chain); the walk stops at 0.
// Compiled once per layout: offsets as immediates and the version's choices
// made at compile time (read from the table at run time, they were a third
// of the instructions per frame). A frame seen before costs its loads, the
// set's address, two compares and the store.
template <const PythonLayout& L, typename Out>
[[gnu::always_inline]] inline uintptr_t walk_frames(const Runtime& rt, PythonSiteCache& cache, uint64_t walk_key,
                                                    uintptr_t frame, uint32_t& skips_left, Out& out) {
  while (frame != 0) {
    const uintptr_t current = frame;
    frame = load_ptr(current + L.frame_previous);
    if constexpr (L.minor >= 12) {
      if (load<uint8_t>(current + L.frame_owner) == kFrameOwnedByCStack) {
        // The shim an eval loop call puts below its first frame.
        out.mark_last_entry();
        if (--skips_left == 0) break;
        continue;
      }
    }
    const uintptr_t code = load_ptr(current + L.frame_code);
    uint64_t key = 0;
    PythonSite* set = nullptr;
    if constexpr (L.interpreter_frames) {
      // 3.11+: the instruction's address, inside the code object: its
      // distance from the code's start is the site, and its bits above the
      // lowest (instructions are two bytes) the hash.
      const uintptr_t instruction = load_ptr(current + L.frame_instruction);
      key = PythonSiteCache::key_of(walk_key, static_cast<uint32_t>(instruction - code));
      set = cache.set_of(instruction >> 1);
    } else {
      const auto lasti = load<uint32_t>(current + L.frame_instruction);
      key = PythonSiteCache::key_of(walk_key, lasti);
      set = cache.set_of((code >> 4) ^ lasti);
    }
    FrameWord found = 0;
    if (set->code == code && set->key == key) [[likely]] {
      found = word_of(set->frame);
    } else {
      found = word_of(find_frame_slow<L>(rt, cache, set, current, code, key));
      if (static_cast<uint32_t>(found) == 0) {  // no code id: not a frame to record
        if (--skips_left == 0) break;
        continue;
      }
    }
    if constexpr (L.frame_is_entry >= 0) {
      if (load<uint8_t>(current + L.frame_is_entry) != 0) found |= PythonFrame::kEntryBit;
    }
    out.add(frame_of(found));
    if (out.full()) break;
  }
  return frame;
}

template <const PythonLayout& L>
uint32_t capture_frames(const Runtime& rt, uintptr_t tstate, PythonFrame* frames, uint32_t max_depth) {
  uintptr_t frame = 0;
  if constexpr (L.tstate_cframe >= 0) {
    const uintptr_t cframe = load_ptr(tstate + L.tstate_cframe);
    if (cframe == 0) return 0;
    frame = load_ptr(cframe + L.cframe_current_frame);
  } else {
    frame = load_ptr(tstate + L.tstate_frame);
  }
  PythonSiteCache& cache = thread_site_cache();
  const uint64_t walk_key = cache.begin_walk(python_code_frees_total());
  uint32_t skips_left = kMaxFramesWalked;
  FirstFrames first(frames, max_depth);
  frame = walk_frames<L>(rt, cache, walk_key, frame, skips_left, first);
  // The outermost frame was entered from native code (the interpreter's main).
  if (frame == 0 || skips_left == 0) return first.finish(frame == 0);
  // Past max_depth the walk goes on to the root (kMaxFramesWalked at most):
  // a deep stack keeps both ends (CutStack).
  CutStack stack(frames, max_depth, first.seen());
  frame = walk_frames<L>(rt, cache, walk_key, frame, skips_left, stack);
  return stack.finish(frame == 0, g_cut_code_id.load(std::memory_order_acquire));
}

CaptureFn capture_for(const PythonLayout& layout) {
  switch (layout.minor) {
    case 8: return &capture_frames<kPython38>;
    case 9: return &capture_frames<kPython39>;
    case 10: return &capture_frames<kPython310>;
    case 11: return &capture_frames<kPython311>;
    case 12: return &capture_frames<kPython312>;
    case 13: return &capture_frames<kPython313>;
    default: return nullptr;
  }
}

}  // namespace

uint32_t capture_python_frames(PythonFrame* frames, uint32_t max_depth) {
  const CaptureFn capture = g_capture.load(std::memory_order_acquire);
  if (capture == nullptr || frames == nullptr || max_depth == 0) return 0;
  const Runtime& rt = g_runtime;
  if (rt.is_initialized() == 0) return 0;
  const auto tstate = reinterpret_cast<uintptr_t>(rt.this_thread_state());
  if (tstate == 0) return 0;
  return capture(rt, tstate, frames, max_depth);
}

std::vector<PythonCode> python_codes_from(size_t first) {
  std::lock_guard lock(g_codes_mutex);
  if (first >= g_codes.size()) return {};
  return std::vector<PythonCode>(g_codes.begin() + static_cast<std::ptrdiff_t>(first), g_codes.end());
}

uint32_t intern_python_code_named(const std::string& file, const std::string& name) {
  std::lock_guard lock(g_codes_mutex);
  return intern_content_locked(file, name, 0);
}

size_t python_code_count() {
  std::lock_guard lock(g_codes_mutex);
  return g_codes.size();
}

}  // namespace prof
