#include "capture/native_stack.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <mutex>

namespace prof {
namespace {

// int unw_backtrace(void** buffer, int size): libunwind's exported name (not a
// `_ULx86_64_` alias; checked with nm -D on libunwind 1.6.2). It walks with
// its per-thread trace cache of frame layouts and falls back to DWARF
// (.eh_frame) stepping, so it needs no frame pointers in the app.
using BacktraceFn = int (*)(void** buffer, int size);

// Written once under g_init_mutex, read on every capture: acquire/release so
// a thread that sees the pointer sees a fully loaded library.
std::atomic<BacktraceFn> g_backtrace{nullptr};
std::mutex g_init_mutex;
std::string g_init_failure;  // guarded by g_init_mutex; set once init failed

// unw_backtrace may report frames of its own and of this function before the
// caller's; the caller's return address tells where they end. Searching the
// first few entries for it is cheaper and sturdier than a fixed count that
// would differ between libunwind versions and inlining decisions.
constexpr uint32_t kMaxInternalFrames = 4;

}  // namespace

bool init_native_stacks(std::string& why) {
  std::lock_guard lock(g_init_mutex);
  if (g_backtrace.load(std::memory_order_acquire) != nullptr) return true;
  if (!g_init_failure.empty()) {
    why = g_init_failure;
    return false;
  }
  // RTLD_LOCAL: keep libunwind's _Unwind_* and `backtrace` out of the global
  // scope (see the header). Never dlclosed: capture may run on any thread.
  void* handle = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    g_init_failure = std::string("cannot load libunwind.so.8: ") + (error ? error : "unknown error");
    why = g_init_failure;
    return false;
  }
  auto backtrace = reinterpret_cast<BacktraceFn>(dlsym(handle, "unw_backtrace"));
  if (backtrace == nullptr) {
    g_init_failure = "libunwind.so.8 has no unw_backtrace (libunwind older than 1.1?)";
    why = g_init_failure;
    return false;
  }
  g_backtrace.store(backtrace, std::memory_order_release);
  return true;
}

bool native_stacks_available() { return g_backtrace.load(std::memory_order_acquire) != nullptr; }

// noinline: __builtin_return_address(0) must be the return address into our
// caller, and the frame count below depends on this being a real frame.
[[gnu::noinline]] uint32_t capture_native_stack(uint64_t* frames, uint32_t max_depth,
                                                uint32_t skip_frames) {
  const BacktraceFn backtrace = g_backtrace.load(std::memory_order_acquire);
  if (backtrace == nullptr || frames == nullptr || max_depth == 0) return 0;
  max_depth = std::min(max_depth, kMaxNativeStackDepth);
  skip_frames = std::min(skip_frames, kMaxNativeSkipFrames);

  // On the stack, 1.3 KiB at most: no allocation on the hot path.
  void* raw[kMaxInternalFrames + kMaxNativeSkipFrames + kMaxNativeStackDepth];
  const uint32_t wanted = kMaxInternalFrames + skip_frames + max_depth;
  const int got = backtrace(raw, static_cast<int>(wanted));
  if (got <= 0) return 0;
  const auto count = static_cast<uint32_t>(got);

  // Where the caller's frames begin: the entry equal to our return address.
  // Not found (an unusual unwinder): assume one frame of our own, the usual
  // unw_backtrace layout, rather than lose the stack.
  const void* caller = __builtin_return_address(0);
  uint32_t first = 1;
  for (uint32_t i = 0; i < std::min(count, kMaxInternalFrames); ++i) {
    if (raw[i] == caller) {
      first = i;
      break;
    }
  }
  first += skip_frames;
  if (first >= count) return 0;
  const uint32_t depth = std::min(count - first, max_depth);
  for (uint32_t i = 0; i < depth; ++i) {
    frames[i] = reinterpret_cast<uintptr_t>(raw[first + i]);
  }
  return depth;
}

}  // namespace prof
