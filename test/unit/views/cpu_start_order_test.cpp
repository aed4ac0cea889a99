// trace's CPU order from the parent links' per-thread orders
// (views/cpu_start_order.h) against a sort by (start, index): threads
// properly nested in end order (the links' walk, then the subtree places),
// threads the walk declines (the links' sorted order), ties of a parent
// and the child that starts with it, start/end ranges that nest in no
// thread, and events left out by keep().
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

#include "model/range_tree.h"
#include "model/run.h"
#include "nested_family.h"
#include "views/cpu_start_order.h"

using prof::analyzer::CpuEvent;
using prof::analyzer::CpuEventKind;
using prof::analyzer::CpuStartOrder;
using prof::analyzer::RangeParents;
using prof::analyzer::Run;
using prof::testing::nested_family;

namespace {

std::vector<uint32_t> start_order_by_sort(const Run& run, const std::vector<bool>& kept) {
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < run.cpu_events.size(); ++i)
    if (kept[i]) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(run.cpu_events[a].start_ns, a) < std::tie(run.cpu_events[b].start_ns, b);
  });
  return order;
}

}  // namespace

TEST_CASE("The CPU order made of the threads' parent links is the sort's", "[trace]") {
  std::mt19937 random(17);
  for (int round = 0; round < 300; ++round) {
    Run run;
    const uint32_t threads = 1 + random() % 3;
    std::vector<std::vector<CpuEvent>> written(threads);
    for (uint32_t t = 0; t < threads; ++t) {
      std::vector<std::pair<uint64_t, uint64_t>> family;
      for (uint64_t top = 0; top < 3; ++top) {
        const uint64_t start = top * 300 + random() % 20;
        nested_family(random, start, start + 250, 5, family);
        family.push_back({start, start + 250});
      }
      // Every few rounds an overlap the walk declines: the links then give
      // the thread in sorted order.
      if (round % 5 == 0 && family.size() > 2) family[family.size() / 2].second += 7;
      for (auto [start, end] : family) {
        CpuEvent e;
        e.start_ns = start;
        e.end_ns = end;
        e.tid = 100 + t;
        e.kind = random() % 2 == 0 ? CpuEventKind::kApiCall : CpuEventKind::kPushPopRange;
        written[t].push_back(e);
      }
    }
    // The threads' events interleaved in chunks, as a file holds them, and
    // start/end ranges between them.
    std::vector<size_t> next(threads, 0);
    for (bool left = true; left;) {
      left = false;
      for (uint32_t t = 0; t < threads; ++t) {
        for (int k = 0; k < 5 && next[t] < written[t].size(); ++k) run.cpu_events.push_back(written[t][next[t]++]);
        left = left || next[t] < written[t].size();
      }
      if (random() % 3 == 0) {
        CpuEvent range;
        range.kind = CpuEventKind::kStartEndRange;
        range.tid = 100 + random() % threads;
        range.start_ns = random() % 900;
        range.end_ns = range.start_ns + 1 + random() % 50;
        run.cpu_events.push_back(range);
      }
    }
    std::vector<bool> kept(run.cpu_events.size());
    for (size_t i = 0; i < kept.size(); ++i) kept[i] = round % 2 == 0 || random() % 4 != 0;

    for (unsigned jobs : {1u, 2u}) {
      CpuStartOrder collected;
      const RangeParents links(run, collected.collector(run.cpu_events), jobs);
      const prof::analyzer::StartOrder order =
          collected.take(run.cpu_events, [&](size_t i) { return bool(kept[i]); });
      std::vector<uint32_t> got;
      for (size_t k = 0; k < order.size(); ++k) got.push_back(order[k]);
      CHECK(got == start_order_by_sort(run, kept));
    }
  }
}

// The walk's answer for one thread, alone: its end order reversed put in
// start order, with a parent and its first child starting together put
// in index order, and anything not properly nested declined (then sorted).
TEST_CASE("A thread's start order from its reversed end order", "[trace]") {
  std::mt19937 random(19);
  for (int round = 0; round < 300; ++round) {
    Run run;
    std::vector<std::pair<uint64_t, uint64_t>> family;
    nested_family(random, 0, 400, 6, family);
    family.push_back({0, 400});
    // Now and then the file reversed: equal starts then come in the
    // nesting's order, where the end order has them child first.
    if (round % 2 == 1) std::reverse(family.begin(), family.end());
    for (auto [start, end] : family) {
      CpuEvent e;
      e.start_ns = start;
      e.end_ns = end;
      e.kind = CpuEventKind::kApiCall;
      run.cpu_events.push_back(e);
    }
    std::vector<uint32_t> given;
    const RangeParents links(
        run, [&](const RangeParents&, const uint32_t* order, size_t count) { given.assign(order, order + count); }, 1);
    // The walk's order (not the sort's: not by start) is put in start order
    // by the subtree places, not declined.
    const bool by_start = std::is_sorted(given.begin(), given.end(), [&](uint32_t a, uint32_t b) {
      return run.cpu_events[a].start_ns < run.cpu_events[b].start_ns;
    });
    prof::analyzer::ThreadStartOrder placed;
    if (!by_start) CHECK(prof::analyzer::start_order_of_end_order(links, given.data(), given.size(), placed));
    const prof::analyzer::ThreadStartOrder got =
        prof::analyzer::thread_start_order(run.cpu_events, links, given.data(), given.size());
    const std::vector<uint32_t> expected = start_order_by_sort(run, std::vector<bool>(run.cpu_events.size(), true));
    CHECK(std::vector<uint32_t>(got.begin(), got.end()) == expected);
  }
}
