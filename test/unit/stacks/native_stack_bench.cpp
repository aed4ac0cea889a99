// Cost of capture_native_stack on the hot path, by stack depth, against the
// same call chain without a capture (the ratio is what to compare between
// machines). Run: native_stack_bench [iterations]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "capture/native_stack.h"
#include "stack_test_chain.h"

namespace {

uint64_t g_frames[prof::kMaxNativeStackDepth];

STACKS_TEST_FRAME uint32_t descend(int levels, bool capture) {
  if (levels > 0) {
    const uint32_t depth = descend(levels - 1, capture);
    STACKS_TEST_NO_TAIL_CALL();
    return depth;
  }
  return capture ? prof::capture_native_stack(g_frames, prof::kMaxNativeStackDepth, 0) : 1;
}

double ns_per_call(int levels, bool capture, int iterations, uint32_t& depth) {
  for (int i = 0; i < iterations / 10; ++i) depth = descend(levels, capture);  // warm libunwind's cache
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) depth = descend(levels, capture);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  return std::chrono::duration<double, std::nano>(elapsed).count() / iterations;
}

// The first capture on a thread pays for libunwind's per-thread cache (an
// mmap and its page faults); the next one at the same place is steady state.
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
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 200000;
  std::printf("%8s %12s %12s %12s %10s\n", "depth", "chain ns", "capture ns", "per frame", "ratio");
  for (int levels : {2, 7, 17, 37, 77}) {
    uint32_t depth = 0;
    uint32_t unused = 0;
    const double baseline = ns_per_call(levels, false, iterations, unused);
    const double with_capture = ns_per_call(levels, true, iterations, depth);
    const double cost = with_capture - baseline;
    std::printf("%8u %12.1f %12.1f %12.1f %10.1f\n", depth, baseline, cost, cost / depth,
                with_capture / baseline);
  }
  first_capture_on_new_threads();
  return 0;
}
