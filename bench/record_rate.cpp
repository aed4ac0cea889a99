// A synthetic app for the recording-throughput benchmark: THREADS threads
// emit NVTX push/pop events at a controlled total RATE (events per second)
// for SECONDS, then exit. Each push or pop is one record in the agent's
// per-thread ring (what its drop counter counts); a push/pop pair becomes one
// NVTX range in the file. Ranges nest two deep with names from a small set,
// like per-layer annotations.
//
// Pacing: each thread compares the events it emitted with rate x elapsed
// time and emits in bursts of 64 until it has caught up; when the thread
// cannot reach its share, it runs flat out and the printed achieved rate
// says so.
//
// Usage: bench_record_rate THREADS RATE SECONDS
// Prints: requested rate, achieved rate (events/s), events emitted.
#include <nvtx3/nvToolsExt.h>
#include <time.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

const char* const kOuter[] = {"layer0", "layer1", "layer2", "layer3",
                              "layer4", "layer5", "layer6", "layer7"};
const char* const kInner[] = {"forward", "backward", "attention", "mlp"};

// Emits events until `duration_ns` has passed, at `rate` events per second.
uint64_t emit(double rate, uint64_t start_ns, uint64_t duration_ns) {
  uint64_t emitted = 0;
  uint64_t step = 0;
  for (;;) {
    const uint64_t elapsed = now_ns() - start_ns;
    if (elapsed >= duration_ns) break;
    const double due = rate * static_cast<double>(elapsed) * 1e-9;
    if (static_cast<double>(emitted) >= due) continue;  // ahead of schedule: spin
    // 64 events: 16 groups of push(outer) push(inner) pop pop.
    for (int i = 0; i < 16; ++i, ++step) {
      nvtxRangePushA(kOuter[step & 7]);
      nvtxRangePushA(kInner[step & 3]);
      nvtxRangePop();
      nvtxRangePop();
    }
    emitted += 64;
  }
  return emitted;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s THREADS RATE SECONDS\n", argv[0]);
    return 2;
  }
  const int threads = atoi(argv[1]);
  const double rate = atof(argv[2]);
  const double seconds = atof(argv[3]);
  if (threads < 1 || rate <= 0 || seconds <= 0) {
    fprintf(stderr, "bench_record_rate: THREADS, RATE and SECONDS must be positive\n");
    return 2;
  }
  const uint64_t duration_ns = static_cast<uint64_t>(seconds * 1e9);
  std::atomic<uint64_t> total{0};
  // Warm up: the first event of a thread registers its buffer (one lock, one
  // allocation), and NVTX loads the agent on its first call.
  nvtxRangePushA("warmup");
  nvtxRangePop();
  const uint64_t start = now_ns();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] { total += emit(rate / threads, start, duration_ns); });
  }
  for (std::thread& worker : workers) worker.join();
  const double elapsed = static_cast<double>(now_ns() - start) * 1e-9;
  printf("%.0f %.0f %" PRIu64 "\n", rate, static_cast<double>(total.load()) / elapsed, total.load() + 2);
  return 0;
}
