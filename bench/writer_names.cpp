// The writer's side of distinct NVTX names, without the app or its
// scheduling: N ranges named "range 0", "range 1", ..., every other one with
// a range "inner" inside (the records reliability_million_nvtx_strings
// makes), are put in a ring as the capture code writes them, and the
// writer's translation (interning, pairing, encoding) turns them into
// chunks written to FILE, 1 MiB slices at a time as the writer drains. Only
// the drains are timed (CPU time of the thread), so the figure is what the
// writer sustains: new names per second, and the longest single slice (a
// stall the app's ring must absorb).
//
// Usage: bench_writer_names N FILE [DISTINCT]
// DISTINCT: the names repeat after that many ("range 0" .. "range DISTINCT-1"),
// the writer's cost for names it has seen.
// Prints: names, names/s, ns per name, longest slice in us.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "record/recorder.h"
#include "record/translator.h"

namespace {

// The thread's CPU time: on a shared machine a slice's wall time is mostly
// the time the thread waited for a core.
uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

std::string no_name(uint32_t) { return "bench"; }

constexpr size_t kRingBytes = 16u << 20;  // PROF_BUFFER_KB's default
constexpr size_t kSliceBytes = 1u << 20;  // the writer drains in 1 MiB slices
constexpr size_t kChunkBytes = 4u << 20;  // and writes a chunk at 4 MiB

bool put(prof::ThreadBuffer& ring, prof::RecordType type, uint64_t time, const char* text, size_t bytes) {
  auto* r = prof::begin_record<prof::NvtxEventRecord>(ring, type, static_cast<uint32_t>(bytes));
  if (r == nullptr) return false;
  r->time_ticks = time;
  r->domain = nullptr;
  r->range_id = 0;
  r->color_argb = 0;
  r->category = 0;
  memcpy(reinterpret_cast<char*>(r + 1), text, bytes);
  ring.commit();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc != 3 && argc != 4) || atol(argv[1]) <= 0 || (argc == 4 && atol(argv[3]) <= 0)) {
    fprintf(stderr, "usage: %s N FILE [DISTINCT]\n", argv[0]);
    return 2;
  }
  const long names = atol(argv[1]);
  const long distinct = argc == 4 ? atol(argv[3]) : names;
  const int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    perror(argv[2]);
    return 1;
  }
  prof::ThreadBuffer ring(kRingBytes, 1);
  prof::Translator translator(no_name);
  // As the writer on a machine with an invariant TSC: times are ticks,
  // converted per record (here at 2.5 ticks per ns from tick 0).
  prof::TickCalibration clock(false);
  clock.add({0, 0});
  clock.add({2'500'000'000'000, 1'000'000'000'000});
  translator.use_clock(&clock);
  prof::ChunkEncoder chunk;
  chunk.begin(0);
  uint64_t timed_ns = 0;
  uint64_t longest_ns = 0;
  uint64_t time = 1'000'000;
  // Drains what the ring holds, slice by slice, as Writer::drain does.
  auto drain = [&] {
    for (;;) {
      const uint64_t start = now_ns();
      const size_t visited = ring.drain(
          [&](const prof::RecordHeader& header) { translator.translate(ring, header, chunk); }, kSliceBytes,
          UINT64_MAX, translator.lookahead());
      if (chunk.pending_bytes() >= kChunkBytes) {
        const std::string& bytes = chunk.finish();
        if (write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
          perror("write");
          exit(1);
        }
        chunk.begin(time);
      }
      const uint64_t took = now_ns() - start;
      timed_ns += took;
      longest_ns = std::max(longest_ns, took);
      if (visited == 0) return;
    }
  };
  char name[32];
  for (long i = 0; i < names; ++i) {
    const int bytes = snprintf(name, sizeof(name), "range %ld", i % distinct);
    while (!put(ring, prof::RecordType::nvtx_push, ++time, name, static_cast<size_t>(bytes))) drain();
    if (i % 2 == 0) {
      while (!put(ring, prof::RecordType::nvtx_push, ++time, "inner", 5)) drain();
      while (!put(ring, prof::RecordType::nvtx_pop, ++time, "", 0)) drain();
    }
    while (!put(ring, prof::RecordType::nvtx_pop, ++time, "", 0)) drain();
  }
  drain();
  const std::string& bytes = chunk.finish();
  if (write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) return 1;
  close(fd);
  printf("%ld %.0f %.1f %.0f\n", names, names * 1e9 / static_cast<double>(timed_ns),
         static_cast<double>(timed_ns) / static_cast<double>(names), longest_ns / 1e3);
  return 0;
}
