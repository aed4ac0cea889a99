// Nesting by torch's rule: per thread, sorted by (start, -end), child of the
// innermost open event that contains it; partial overlaps get no link.
#include <catch2/catch.hpp>
#include <functional>

#include "analyzer_test_support.h"
#include "model/range_tree.h"

using namespace prof::testing;
using prof::analyzer::RangeTree;
using prof::analyzer::Run;

namespace {

struct Loaded {
  TempFile file;
  Run run;
};

// Names: 1 "A", 2 "B", 3 "C", 4 "D", 5 "cudaLaunchKernel", 6 "kernel".
ChunkBuilder named() {
  ChunkBuilder c(0);
  c.string(1, "A").string(2, "B").string(3, "C").string(4, "D").string(5, "cudaLaunchKernel").string(6, "kernel");
  return c;
}

void load_into(Loaded& l, const ChunkBuilder& c) {
  l.file.write(CaptureFileWriter().chunk(c.finish()).bytes());
  REQUIRE(load({l.file.path()}, l.run).empty());
}

constexpr int64_t kNone = RangeTree::kNoParent;

}  // namespace

TEST_CASE("Nested ranges: self time is total minus direct children", "[model][nesting]") {
  ChunkBuilder c = named();
  c.range(1, 1, 0, 100);  // A
  c.range(1, 2, 10, 50);  // B in A
  c.range(1, 3, 20, 30);  // C in B
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  CHECK(tree.parent(0) == kNone);
  CHECK(tree.parent(1) == 0);
  CHECK(tree.parent(2) == 1);
  CHECK(tree.self_ns(0) == 60);  // 100 - B's 40, not minus C again
  CHECK(tree.self_ns(1) == 30);
  CHECK(tree.self_ns(2) == 10);
}

TEST_CASE("Sibling ranges are both children of the range around them", "[model][nesting]") {
  ChunkBuilder c = named();
  c.range(1, 2, 30, 50);  // file order need not be time order
  c.range(1, 1, 0, 100);
  c.range(1, 3, 10, 20);
  c.range(1, 4, 50, 100);  // touches its sibling and ends with its parent
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  CHECK(tree.parent(0) == 1);
  CHECK(tree.parent(2) == 1);
  CHECK(tree.parent(3) == 1);
  CHECK(tree.self_ns(1) == 100 - 20 - 10 - 50);
}

TEST_CASE("Partially overlapping ranges get no link", "[model][nesting]") {
  ChunkBuilder c = named();
  c.range(1, 1, 0, 100);   // A
  c.range(1, 2, 50, 150);  // B overlaps A's end
  c.range(1, 3, 60, 70);   // C: inside both; A was popped by B, so B is its parent
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  CHECK(tree.parent(1) == kNone);
  CHECK(tree.self_ns(0) == 100);
  CHECK(tree.parent(2) == 1);
  CHECK(tree.self_ns(1) == 90);
}

TEST_CASE("Ranges on different threads never nest", "[model][nesting]") {
  ChunkBuilder c = named();
  c.range(1, 1, 0, 100);
  c.range(2, 2, 10, 20);
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  CHECK(tree.parent(1) == kNone);
  CHECK(tree.self_ns(0) == 100);
}

TEST_CASE("Start/end ranges neither nest nor contain: self equals total", "[model][nesting]") {
  ChunkBuilder c = named();
  c.range(1, 1, 0, 100, prof::proto::NvtxRange::START_END);
  c.range(1, 2, 10, 20);
  c.range(1, 3, 5, 200, prof::proto::NvtxRange::START_END);
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  CHECK(tree.parent(1) == kNone);
  CHECK(tree.self_ns(0) == 100);
  CHECK(tree.self_ns(2) == 195);
}

TEST_CASE("An API call inside a range is its child, and its GPU time rolls up", "[model][nesting]") {
  ChunkBuilder c = named();
  c.range(1, 1, 0, 100);
  c.range(1, 2, 10, 60);
  c.api_call(1, 5, 20, 25, 9);
  c.kernel(6, 30, 80, 9);
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  CHECK(tree.parent(2) == 1);
  CHECK(tree.self_ns(1) == 45);
  CHECK(tree.self_gpu_ns(2) == 50);
  CHECK(tree.gpu_total_ns(2) == 50);
  CHECK(tree.self_gpu_ns(1) == 0);
  CHECK(tree.gpu_total_ns(1) == 50);
  CHECK(tree.gpu_total_ns(0) == 50);
}

TEST_CASE("Equal intervals nest in file order", "[model][nesting]") {
  ChunkBuilder c = named();
  c.range(1, 1, 0, 100);
  c.range(1, 2, 0, 100);
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  CHECK(tree.parent(1) == 0);
  CHECK(tree.self_ns(0) == 0);
  CHECK(tree.self_ns(1) == 100);
}

TEST_CASE("Self never exceeds total and children's self sums to the root's total", "[model][nesting]") {
  // A deterministic pseudo-random properly nested forest on 3 threads.
  ChunkBuilder c = named();
  uint64_t seed = 12345;
  auto rnd = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  uint64_t root_total[3] = {0, 0, 0};
  std::function<void(uint32_t, uint64_t, uint64_t, int)> build = [&](uint32_t tid, uint64_t s, uint64_t e, int depth) {
    c.range(tid, 1 + rnd(4), s, e);
    if (depth == 4 || e - s < 10) return;
    uint64_t t = s + rnd(5);
    while (t + 4 < e) {
      const uint64_t len = 1 + rnd(e - t - 3);
      build(tid, t, t + len, depth + 1);
      t += len + rnd(3);
    }
  };
  for (uint32_t tid = 0; tid < 3; ++tid) {
    build(tid + 1, 0, 10'000, 0);
    root_total[tid] = 10'000;
  }
  Loaded l;
  load_into(l, c);
  RangeTree tree(l.run);
  uint64_t self_sum[3] = {0, 0, 0};
  for (size_t i = 0; i < l.run.cpu_events.size(); ++i) {
    CHECK(tree.self_ns(i) <= l.run.cpu_events[i].duration_ns());
    self_sum[l.run.cpu_events[i].tid - 1] += tree.self_ns(i);
  }
  CHECK(l.run.cpu_events.size() > 30);
  for (int t = 0; t < 3; ++t) CHECK(self_sum[t] == root_total[t]);
}

TEST_CASE("Threads linked in end order and threads sorted give one tree", "[model][nesting]") {
  // Thread 1 as the agent writes it (each field of a chunk in end order, over
  // two chunks): linked without a sort. Thread 2 has two equal intervals,
  // which only the sort's file order decides.
  ChunkBuilder c0 = named();
  c0.range(1, 2, 10, 60);  // B
  c0.range(1, 1, 0, 100);  // A
  c0.api_call(1, 5, 20, 25, 9);
  c0.api_call(1, 5, 30, 40);
  c0.kernel(6, 30, 80, 9);
  c0.range(2, 1, 0, 50);
  c0.range(2, 2, 0, 50);
  c0.api_call(2, 5, 10, 20);
  ChunkBuilder c1(200);
  c1.range(1, 3, 200, 300);
  c1.api_call(1, 5, 210, 220);
  Loaded l;
  l.file.write(CaptureFileWriter().chunk(c0.finish()).chunk(c1.finish()).bytes());
  REQUIRE(load({l.file.path()}, l.run).empty());
  auto index = [&](uint32_t tid, uint64_t start, uint64_t end, uint32_t name) {
    for (size_t i = 0; i < l.run.cpu_events.size(); ++i) {
      const auto& e = l.run.cpu_events[i];
      if (e.tid == tid && e.start_ns == start && e.end_ns == end && l.run.name(e.name) == l.run.name(name)) return static_cast<int64_t>(i);
    }
    FAIL("no such event");
    return kNone;
  };
  auto name_of = [&](const char* text) { return l.run.intern(text); };
  const int64_t a = index(1, 0, 100, name_of("A")), b = index(1, 10, 60, name_of("B"));
  const int64_t x = index(1, 20, 25, name_of("cudaLaunchKernel")), y = index(1, 30, 40, name_of("cudaLaunchKernel"));
  const int64_t c = index(1, 200, 300, name_of("C")), z = index(1, 210, 220, name_of("cudaLaunchKernel"));
  const int64_t first = index(2, 0, 50, name_of("A")), second = index(2, 0, 50, name_of("B"));
  const int64_t inner = index(2, 10, 20, name_of("cudaLaunchKernel"));
  RangeTree tree(l.run);
  CHECK(tree.parent(static_cast<size_t>(a)) == kNone);
  CHECK(tree.parent(static_cast<size_t>(b)) == a);
  CHECK(tree.parent(static_cast<size_t>(x)) == b);
  CHECK(tree.parent(static_cast<size_t>(y)) == b);
  CHECK(tree.parent(static_cast<size_t>(c)) == kNone);
  CHECK(tree.parent(static_cast<size_t>(z)) == c);
  CHECK(tree.self_ns(static_cast<size_t>(b)) == 35);
  CHECK(tree.self_ns(static_cast<size_t>(a)) == 50);
  CHECK(tree.gpu_total_ns(static_cast<size_t>(a)) == 50);
  CHECK(tree.gpu_total_ns(static_cast<size_t>(b)) == 50);
  CHECK(tree.self_gpu_ns(static_cast<size_t>(x)) == 50);
  // The thread that needed the sort: the first of the equal pair is the parent.
  CHECK(tree.parent(static_cast<size_t>(first)) == kNone);
  CHECK(tree.parent(static_cast<size_t>(second)) == first);
  CHECK(tree.parent(static_cast<size_t>(inner)) == second);
  CHECK(tree.self_ns(static_cast<size_t>(first)) == 0);
  CHECK(tree.self_ns(static_cast<size_t>(second)) == 40);
}

TEST_CASE("Threads linked side by side give the tree of one thread linking them all", "[model][nesting]") {
  // Five threads, enough events for helper threads to link some of them
  // (RangeParents::kEventsForHelpers): each a row of families (a range
  // holding a launch and a range with a launch), their kernels correlated;
  // thread 3 starts with two equal intervals, so it is sorted.
  ChunkBuilder c = named();
  uint32_t correlation = 0;
  for (uint32_t tid = 1; tid <= 5; ++tid) {
    if (tid == 3) {
      c.range(tid, 1, 0, 5);
      c.range(tid, 2, 0, 5);
    }
    for (uint64_t family = 0; family < 4'000; ++family) {
      const uint64_t t = 10 + family * 100 + tid;
      c.api_call(tid, 5, t + 10, t + 20, ++correlation);
      c.kernel(6, t + 20, t + 20 + correlation % 7, correlation);
      c.api_call(tid, 5, t + 35, t + 40, ++correlation);
      c.kernel(6, t + 40, t + 45, correlation);
      c.range(tid, 3, t + 30, t + 60);
      c.range(tid, 1 + family % 2, t, t + 90);
    }
  }
  Loaded l;
  load_into(l, c);
  REQUIRE(l.run.cpu_events.size() >= prof::analyzer::RangeParents::kEventsForHelpers);
  const RangeTree alone(l.run, 1);
  const RangeTree side_by_side(l.run, 4);
  size_t differ = 0, linked = 0;
  for (size_t i = 0; i < l.run.cpu_events.size(); ++i) {
    if (alone.parent(i) != kNone) ++linked;
    if (alone.parent(i) != side_by_side.parent(i) || alone.self_ns(i) != side_by_side.self_ns(i) ||
        alone.self_gpu_ns(i) != side_by_side.self_gpu_ns(i) || alone.gpu_total_ns(i) != side_by_side.gpu_total_ns(i))
      ++differ;
  }
  CHECK(differ == 0);
  CHECK(linked == 3 * 4'000 * 5 + 1);  // calls and inner ranges, and thread 3's second equal interval
  // The sorted thread's families nest as the others' do.
  const RangeTree& tree = side_by_side;
  for (size_t i = 0; i < l.run.cpu_events.size(); ++i) {
    const auto& e = l.run.cpu_events[i];
    if (e.tid == 3 && e.duration_ns() == 90) CHECK(tree.gpu_total_ns(i) > 0);
  }
}

// html's flame graphs read self times made from the parent links alone
// (self_times), without a RangeTree: the same figures, the clamp at 0 too.
TEST_CASE("Self times from the parent links alone are the tree's, clamped where siblings overlap", "[model][nesting]") {
  using prof::analyzer::RangeParents;
  ChunkBuilder c = named();
  c.range(1, 1, 0, 100);   // A
  c.range(1, 2, 10, 60);   // B in A
  c.range(1, 3, 40, 100);  // C overlaps B, ends with A: B is popped, C is A's child too
  c.range(1, 4, 45, 50);   // D in C
  c.range(2, 1, 0, 30);    // another thread: E, with F in it
  c.range(2, 2, 5, 10);
  Loaded l;
  load_into(l, c);
  const RangeTree tree(l.run);
  const RangeParents parents(l.run);
  const auto self = prof::analyzer::self_times(l.run, parents);
  REQUIRE(self.size() == l.run.cpu_events.size());
  for (size_t i = 0; i < self.size(); ++i) {
    CHECK(parents.parent(i) == tree.parent(i));
    CHECK(self[i] == tree.self_ns(i));
  }
  CHECK(tree.parent(2) == 0);
  CHECK(self[0] == 0);  // B's 50 and C's 60 pass A's 100
  CHECK(self[1] == 50);
  CHECK(self[2] == 55);
  CHECK(self[3] == 5);
  CHECK(self[4] == 25);
  CHECK(self[5] == 5);
}
