// Cost of capture_native_stack on the hot path, by stack depth, against the
// same call chain without a capture (the ratio is what to compare between
// machines), and against the unwinders it could have used instead, in the same
// run: libgcc's _Unwind_Backtrace, and libunwind's unw_backtrace (what the
// agent dlopened before; its column is left out where libunwind.so.8 is not
// installed). Run: native_stack_bench [iterations]
#include <dlfcn.h>
#include <unwind.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "stacks/native_stack.h"
#include "stack_test_chain.h"

namespace {

uint64_t g_frames[prof::kMaxNativeStackDepth];
void* g_raw[prof::kMaxNativeStackDepth];

enum class Unwinder { none, agent, libgcc, libunwind };

using UnwBacktraceFn = int (*)(void** buffer, int size);
UnwBacktraceFn g_unw_backtrace = nullptr;

struct LibgccState {
  uint32_t depth;
};

_Unwind_Reason_Code libgcc_frame(struct _Unwind_Context* context, void* arg) {
  auto* state = static_cast<LibgccState*>(arg);
  g_raw[state->depth++] = reinterpret_cast<void*>(_Unwind_GetIP(context));
  return state->depth == prof::kMaxNativeStackDepth ? _URC_END_OF_STACK : _URC_NO_REASON;
}

STACKS_TEST_FRAME uint32_t unwind(Unwinder unwinder) {
  switch (unwinder) {
    case Unwinder::none: return 1;
    case Unwinder::agent: return prof::capture_native_stack(g_frames, prof::kMaxNativeStackDepth, 0);
    case Unwinder::libgcc: {
      LibgccState state{0};
      _Unwind_Backtrace(libgcc_frame, &state);
      return state.depth;
    }
    case Unwinder::libunwind:
      return static_cast<uint32_t>(g_unw_backtrace(g_raw, static_cast<int>(prof::kMaxNativeStackDepth)));
  }
  return 0;
}

STACKS_TEST_FRAME uint32_t descend(int levels, Unwinder unwinder) {
  if (levels > 0) {
    const uint32_t depth = descend(levels - 1, unwinder);
    STACKS_TEST_NO_TAIL_CALL();
    return depth;
  }
  return unwind(unwinder);
}

STACKS_TEST_FRAME uint32_t descend(int levels, bool capture) {
  return descend(levels, capture ? Unwinder::agent : Unwinder::none);
}

// The best of five rounds: on a machine shared with other work, the fastest
// round is the one least disturbed.
double ns_per_call(int levels, Unwinder capture, int iterations, uint32_t& depth) {
  for (int i = 0; i < iterations / 10; ++i) depth = descend(levels, capture);  // warm the caches
  double best = 1e300;
  const int per_round = std::max(1, iterations / 5);
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < per_round; ++i) depth = descend(levels, capture);
    const auto elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, std::chrono::duration<double, std::nano>(elapsed).count() / per_round);
  }
  return best;
}

// The agent's rules are shared by all threads: a new thread's first capture
// should cost what its second does (libunwind's per-thread cache did not).
void first_capture_on_new_threads() {
  std::vector<double> first;
  std::vector<double> second;
  for (int t = 0; t < 9; ++t) {
    std::thread([&] {
      double ns[2];
      for (double& sample : ns) {
        const auto start = std::chrono::steady_clock::now();
        descend(17, true);
        sample = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
      }
      first.push_back(ns[0]);
      second.push_back(ns[1]);
    }).join();
  }
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  std::printf("new thread, depth ~20: first capture %.0f ns, second %.0f ns (medians of 9 threads)\n",
              first[first.size() / 2], second[second.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!prof::init_native_stacks(why)) {
    std::fprintf(stderr, "native stacks unavailable: %s\n", why.c_str());
    return 1;
  }
  if (void* libunwind = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL)) {
    g_unw_backtrace = reinterpret_cast<UnwBacktraceFn>(dlsym(libunwind, "unw_backtrace"));
  }
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 200000;
  std::printf("ns per capture beyond the bare call chain (per frame in brackets)\n");
  std::printf("%6s %10s %18s %18s %18s\n", "depth", "chain ns", "agent", "libgcc", "libunwind");
  for (int levels : {2, 17, 57, 77}) {
    uint32_t unused = 0;
    const double baseline = ns_per_call(levels, Unwinder::none, iterations, unused);
    uint32_t depth = 0;
    std::string cells;
    for (Unwinder unwinder : {Unwinder::agent, Unwinder::libgcc, Unwinder::libunwind}) {
      char cell[32] = "(not installed)";
      if (unwinder != Unwinder::libunwind || g_unw_backtrace != nullptr) {
        uint32_t unwound = 0;
        // libgcc is slow enough that a tenth of the iterations gives a stable figure.
        const int n = unwinder == Unwinder::libgcc ? std::max(1, iterations / 10) : iterations;
        const double cost = ns_per_call(levels, unwinder, n, unwound) - baseline;
        if (unwinder == Unwinder::agent) depth = unwound;
        std::snprintf(cell, sizeof(cell), "%.0f (%.1f)", cost, cost / std::max(1u, unwound));
      }
      char column[40];
      std::snprintf(column, sizeof(column), " %18s", cell);
      cells += column;
    }
    std::printf("%6u %10.1f%s\n", depth, baseline, cells.c_str());
  }
  first_capture_on_new_threads();
  return 0;
}
