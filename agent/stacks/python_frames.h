#pragma once
// The calling thread's own Python frames, read from CPython's memory (3.8 to
// 3.13) without the GIL.
//
// Why this is safe without the GIL: a thread's frame chain is changed only by
// that thread, and only while it runs bytecode. Inside a C call (ctypes, a C
// extension, the CUDA call we are recording) the chain is frozen, whether or
// not the thread released the GIL. The code objects and strings the frames
// reference are kept alive by those frames. Other threads may run Python
// meanwhile; nothing read here is written by them (line tables, names and
// file names are immutable; the specialising interpreter rewrites
// instructions, which are never read).
//
// The capture path allocates no Python object, touches no reference count,
// takes no GIL and calls nothing in Python except PyGILState_GetThisThreadState
// and Py_IsInitialized, both plain reads that Python documents as callable
// without the GIL (a pthread_getspecific on the runtime's TSS key and a flag).
#include <cstdint>
#include <string>
#include <vector>

namespace prof {

inline constexpr uint32_t kMaxPythonStackDepth = 128;

// The name of the frame that stands, in a stack deeper than the depth
// asked, for the frames left out between the innermost and the outermost
// ones kept (a Python frame with no file): flame graph users' "...".
inline constexpr char kStackCutName[] = "...";

// One frame of a captured Python stack: the interned code object and the line
// executing in it.
struct PythonFrame {
  // Bit 31: this frame is the outermost of the frames one call of the eval
  // loop (_PyEval_EvalFrameDefault) ran; its caller, if any, is native code
  // (mixed stacks put the run in place of that eval frame). The rest: the
  // code id (python_code_id), never 0.
  uint32_t code_and_entry;
  int32_t line;  // -1: unknown

  static constexpr uint32_t kEntryBit = 1u << 31;
  uint32_t code_id() const { return code_and_entry & ~kEntryBit; }
  bool entry() const { return (code_and_entry & kEntryBit) != 0; }
};
static_assert(sizeof(PythonFrame) == 8);

// An interned code object: what a frame's code id names.
struct PythonCode {
  uint32_t id = 0;
  std::string file;  // co_filename
  std::string name;  // co_qualname (3.11+), co_name before
  int first_line = 0;
};

struct PythonRuntime {
  bool present = false;    // the process has a CPython (its C API symbols)
  bool supported = false;  // ... and its layout is one we know: frames are read
  std::string version;     // "3.11.2", when present
  std::string why;         // when present but not supported: what we found
};

// Looks for CPython in the process (dlsym in the global scope: symbols of a
// static python executable or of a libpython it loaded) and chooses the
// layout of its version. Call once CUDA capture starts (Python is running by
// then); idempotent, thread-safe, off the hot path.
const PythonRuntime& init_python_frames();

bool python_frames_available();

// The calling thread's Python frames, leaf first, at most `max_depth`; a
// deeper stack keeps its innermost frames and its outermost quarter, with
// a kStackCutName frame between them. 0 when
// the thread has no Python thread state (a thread Python never ran on),
// Python is not initialised, or frames are unavailable. Safe on any thread;
// takes a lock and allocates (C++ heap) only the first time the thread sees
// an instruction of a code object, again after a code object whose address
// shares its slot was freed (python_code_frees.h) or once the thread's
// cache of call sites dropped it (python_site_cache.h); otherwise a few
// loads per frame.
uint32_t capture_python_frames(PythonFrame* frames, uint32_t max_depth);

// Interned code objects from the `first`-th on (ids are first + 1, ...): what
// the writer defines in the file. Thread-safe.
std::vector<PythonCode> python_codes_from(size_t first);
size_t python_code_count();

// The id of a code named by its file and function rather than read from a
// code object: frames Python handed over as text (the CUDA allocator's
// history). Shares the ids above. Thread-safe; allocates.
uint32_t intern_python_code_named(const std::string& file, const std::string& name);

// [begin, end) of _PyEval_EvalFrameDefault's machine code: the native frames
// that ran Python code, which mixed stacks replace. False when unknown.
bool python_eval_range(uint64_t& begin, uint64_t& end);

}  // namespace prof
