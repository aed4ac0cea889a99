#include "stacks/python_frames.h"

#include <dlfcn.h>
#include <pthread.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "stacks/python_code_frees.h"
#include "stacks/python_layouts.h"
#include "stacks/python_line_table.h"

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

// Per thread: (code, instruction) -> (code id, line), so that a call site seen
// before costs a few loads, not a line table decode and a lock. Direct
// mapped; an entry holds while its code's slot has counted no further free
// (python_code_frees.h), so a code object allocated where a freed one was
// never meets the freed one's names or lines.
struct SiteCacheEntry {
  uintptr_t code = 0;  // 0: empty
  uint64_t frees = 0;  // python_code_frees_at(code) when filled
  // python_code_frees_total() when the entry was last found to hold.
  uint64_t checked_total = 0;
  uint32_t byte_offset = 0;
  uint32_t code_id = 0;
  int32_t line = -1;
  // 3.11+: the instruction lies before the code's first traceable one (an
  // incomplete frame, still copying its arguments in).
  bool before_first_traceable = false;
};
static_assert(sizeof(SiteCacheEntry) == 40);
constexpr size_t kSiteCacheSize = 512;  // a power of two
// On the heap, reached through a pointer: the agent may be dlopened (through
// CUDA_INJECTION64_PATH), and a library with initial-exec TLS (the agent's
// other thread_locals) has its whole TLS block placed in the loader's small
// static surplus, which a 20 KiB array would overflow (dlopen then fails).
thread_local SiteCacheEntry* t_sites = nullptr;
// Not in AgentState: a pthread key, whose destructor runs at thread exit.
pthread_key_t g_sites_key;
std::once_flag g_sites_key_once;

// Frees a thread's cache when it exits (a key destructor; a capture in a
// later destructor allocates a new one, which the next round frees).
void free_sites(void* sites) {
  delete[] static_cast<SiteCacheEntry*>(sites);
  t_sites = nullptr;
}

SiteCacheEntry* thread_sites() {
  if (t_sites != nullptr) return t_sites;
  std::call_once(g_sites_key_once, [] { pthread_key_create(&g_sites_key, free_sites); });
  t_sites = new SiteCacheEntry[kSiteCacheSize];
  pthread_setspecific(g_sites_key, t_sites);
  return t_sites;
}

// The cache entry of the instruction at `byte_offset` of the code object at
// `code`, filled first when it does not hold.
[[gnu::noinline]] const SiteCacheEntry& fill_site(const Runtime& rt, SiteCacheEntry& entry, uintptr_t code,
                                                  uint32_t byte_offset, uint64_t frees_total) {
  const PythonLayout& l = *rt.layout;
  // Read before the code object's fields: a free counted after this read
  // makes the entry be checked again.
  const uint64_t frees = python_code_frees_at(code);
  entry.code = code;
  entry.frees = frees;
  entry.checked_total = frees_total;
  entry.byte_offset = byte_offset;
  entry.code_id = intern_code(rt, code, frees);
  entry.before_first_traceable = false;
  if (l.code_firsttraceable >= 0) {
    const int32_t first_traceable = load<int32_t>(code + static_cast<uintptr_t>(l.code_firsttraceable));
    // The offset of an incomplete frame's instruction may be "before the
    // first" (3.11's prev_instr starts one unit before the code): negative.
    entry.before_first_traceable = static_cast<int64_t>(static_cast<int32_t>(byte_offset)) <
                                   static_cast<int64_t>(first_traceable) * 2;
  }
  entry.line = line_of(rt, code, byte_offset);
  return entry;
}

// `site`: where the frame is in its code, as the frame holds it (3.11+: the
// instruction's address, inside the code object; before: f_lasti), whose
// bits above the lowest vary the most between call sites: the cache's hash.
// `frees_total`: python_code_frees_total(), read once per walk, after the
// thread's frames were frozen (it is in a C call).
inline const SiteCacheEntry& site_of(const Runtime& rt, SiteCacheEntry* sites, uintptr_t code, uintptr_t site,
                                     uint32_t byte_offset, uint64_t frees_total) {
  SiteCacheEntry& entry = sites[((site >> 1) ^ (code >> 4)) & (kSiteCacheSize - 1)];
  if (entry.code == code && entry.byte_offset == byte_offset) [[likely]] {
    // No code object freed anywhere since the entry last held; or none at
    // an address of its slot.
    if (entry.checked_total == frees_total) [[likely]] return entry;
    if (entry.frees == python_code_frees_at(code)) {
      entry.checked_total = frees_total;
      return entry;
    }
  }
  return fill_site(rt, entry, code, byte_offset, frees_total);
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

  static constexpr bool full() { return false; }

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
  FirstFrames(PythonFrame* frames, uint32_t max_depth) : frames_(frames), max_(max_depth) {}

  bool full() const { return seen_ == max_; }
  void add(PythonFrame frame) { frames_[seen_++] = frame; }
  void mark_last_entry() {
    if (seen_ != 0) frames_[seen_ - 1].code_and_entry |= PythonFrame::kEntryBit;
  }
  uint32_t seen() const { return seen_; }
  uint32_t finish(bool at_root) {
    if (seen_ > 0 && at_root) frames_[seen_ - 1].code_and_entry |= PythonFrame::kEntryBit;
    return seen_;
  }

 private:
  PythonFrame* frames_;
  uint32_t max_;
  uint32_t seen_ = 0;
};

const PythonRuntime& init_python_frames() {
  std::lock_guard lock(g_init_mutex);
  if (!g_init_done) {
    g_init_done = true;
    detect(g_runtime);
    if (g_runtime.info.supported) g_cut_code_id.store(intern_cut_code(), std::memory_order_release);
    if (g_runtime.info.supported) g_layout.store(g_runtime.layout, std::memory_order_release);
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

// The walk from `frame` on, into `out` (FirstFrames or CutStack) until it
// is full or the chain ends; returns the next frame to read (0 at the root).
// Compiled once per layout: offsets as immediates and the version's choices
// made at compile time (read from the table at run time, they were a third
// of the instructions per frame).
template <const PythonLayout& L, typename Out>
uintptr_t walk_frames(const Runtime& rt, SiteCacheEntry* sites, uint64_t frees_total, uintptr_t frame,
                      uint32_t& walked, Out& out) {
  if constexpr (!L.interpreter_frames) {
    // <= 3.10: one PyFrameObject per eval loop call, every frame an entry.
    for (; frame != 0 && walked < kMaxFramesWalked && !out.full(); ++walked) {
      const uintptr_t code = load_ptr(frame + L.frame_code);
      if (code != 0) {
        const int32_t lasti = load<int32_t>(frame + L.frame_instruction);
        const uint32_t offset = lasti < 0 ? 0u : static_cast<uint32_t>(lasti) * (L.lasti_in_code_units ? 2u : 1u);
        const SiteCacheEntry& site = site_of(rt, sites, code, offset, offset, frees_total);
        out.add(PythonFrame{site.code_id | PythonFrame::kEntryBit, site.line});
      }
      frame = load_ptr(frame + L.frame_previous);
    }
  } else {
    for (; frame != 0 && walked < kMaxFramesWalked && !out.full(); ++walked) {
      const uintptr_t current = frame;
      frame = load_ptr(current + L.frame_previous);
      const uintptr_t code = load_ptr(current + L.frame_code);
      const uint8_t owner = load<uint8_t>(current + L.frame_owner);
      if (owner == kFrameOwnedByCStack) {
        // 3.12+: the shim an eval loop call puts below its first frame.
        out.mark_last_entry();
        continue;
      }
      if (code == 0) continue;
      // 3.13's f_executable may be something other than a code object;
      // before, a frame's code is one.
      if (L.minor >= 13 && load_ptr(code + kObType) != rt.code_type) continue;
      const uintptr_t instruction = load_ptr(current + L.frame_instruction);
      const SiteCacheEntry& site = site_of(rt, sites, code, instruction,
                                           static_cast<uint32_t>(instruction - (code + L.code_adaptive)), frees_total);
      // An incomplete frame (still copying its arguments in, before its
      // first traceable instruction) is not on Python's own tracebacks
      // either.
      if (site.before_first_traceable && owner != kFrameOwnedByGenerator) continue;
      PythonFrame found{site.code_id, site.line};
      if constexpr (L.frame_is_entry >= 0) {
        if (load<uint8_t>(current + L.frame_is_entry) != 0) found.code_and_entry |= PythonFrame::kEntryBit;
      }
      out.add(found);
    }
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
  // The thread's cache, looked up once: in a shared library each access to
  // a thread_local is a __tls_get_addr call.
  SiteCacheEntry* sites = thread_sites();
  const uint64_t frees_total = python_code_frees_total();
  uint32_t walked = 0;
  FirstFrames first(frames, max_depth);
  frame = walk_frames<L>(rt, sites, frees_total, frame, walked, first);
  // The outermost frame was entered from native code (the interpreter's main).
  if (frame == 0 || walked >= kMaxFramesWalked) return first.finish(frame == 0);
  // Past max_depth the walk goes on to the root (kMaxFramesWalked at most):
  // a deep stack keeps both ends (CutStack).
  CutStack stack(frames, max_depth, first.seen());
  frame = walk_frames<L>(rt, sites, frees_total, frame, walked, stack);
  return stack.finish(frame == 0, g_cut_code_id.load(std::memory_order_acquire));
}

}  // namespace

uint32_t capture_python_frames(PythonFrame* frames, uint32_t max_depth) {
  const PythonLayout* layout = g_layout.load(std::memory_order_acquire);
  if (layout == nullptr || frames == nullptr || max_depth == 0) return 0;
  const Runtime& rt = g_runtime;
  if (rt.is_initialized() == 0) return 0;
  const auto tstate = reinterpret_cast<uintptr_t>(rt.this_thread_state());
  if (tstate == 0) return 0;
  switch (layout->minor) {
    case 8: return capture_frames<kPython38>(rt, tstate, frames, max_depth);
    case 9: return capture_frames<kPython39>(rt, tstate, frames, max_depth);
    case 10: return capture_frames<kPython310>(rt, tstate, frames, max_depth);
    case 11: return capture_frames<kPython311>(rt, tstate, frames, max_depth);
    case 12: return capture_frames<kPython312>(rt, tstate, frames, max_depth);
    case 13: return capture_frames<kPython313>(rt, tstate, frames, max_depth);
    default: return 0;
  }
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
