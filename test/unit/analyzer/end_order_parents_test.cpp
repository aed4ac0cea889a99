// The end-order walk (end_order_parents.h) against torch's rule as
// range_tree.h states it, sorted: the same parents whenever it answers, an
// answer for properly nested families in any run order, and no answer
// where ties or overlaps make the sort's order matter.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "model/end_order_parents.h"
#include "model/sorted_runs.h"
#include "nested_family.h"

using prof::analyzer::CpuEvent;
using prof::analyzer::EventTable;
using prof::testing::nested_family;

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// torch's rule, straight from its statement: sort by (start, -end, index),
// pop what ended by the start or ends before the end, the top is the parent.
std::vector<uint32_t> sorted_rule(const EventTable<CpuEvent>& events) {
  std::vector<uint32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (events[a].start_ns != events[b].start_ns) return events[a].start_ns < events[b].start_ns;
    if (events[a].end_ns != events[b].end_ns) return events[a].end_ns > events[b].end_ns;
    return a < b;
  });
  std::vector<uint32_t> parent(events.size(), kNone), open;
  for (uint32_t i : order) {
    while (!open.empty()) {
      const CpuEvent& top = events[open.back()];
      if (events[i].start_ns >= top.end_ns || events[i].end_ns > top.end_ns) open.pop_back();
      else {
        parent[i] = open.back();
        break;
      }
    }
    open.push_back(i);
  }
  return parent;
}

struct Answer {
  bool answered = false;
  std::vector<uint32_t> parent;
};

// The walk over the events in file order.
Answer end_order_walk(const EventTable<CpuEvent>& events) {
  std::vector<uint32_t> thread_events(events.size());
  std::iota(thread_events.begin(), thread_events.end(), 0u);
  Answer a;
  a.parent.assign(events.size(), kNone);
  std::vector<uint32_t> roots;
  a.answered = parents_in_end_order(events, thread_events.data(), thread_events.size(), a.parent.data(), roots);
  return a;
}

EventTable<CpuEvent> table(const std::vector<std::pair<uint64_t, uint64_t>>& intervals) {
  EventTable<CpuEvent> events;
  for (auto [start, end] : intervals) {
    CpuEvent e;
    e.start_ns = start;
    e.end_ns = end;
    events.push_back(e);
  }
  return events;
}

}  // namespace

TEST_CASE("End order: a nested family split into runs links as the sort does", "[model][nesting]") {
  std::mt19937 random(7);
  for (int round = 0; round < 500; ++round) {
    std::vector<std::pair<uint64_t, uint64_t>> written;
    nested_family(random, 0, 200, 5, written);
    written.push_back({0, 200});
    // The agent's chunks: each field (calls, ranges) in end order, one after
    // the other, chunk after chunk.
    std::vector<std::pair<uint64_t, uint64_t>> file;
    for (size_t chunk = 0; chunk < written.size(); chunk += 7) {
      const size_t chunk_end = std::min(written.size(), chunk + 7);
      std::vector<bool> is_call(chunk_end - chunk);
      for (size_t k = 0; k < is_call.size(); ++k) is_call[k] = random() % 2 == 0;
      for (bool calls : {true, false})
        for (size_t k = chunk; k < chunk_end; ++k)
          if (is_call[k - chunk] == calls) file.push_back(written[k]);
    }
    const EventTable<CpuEvent> events = table(file);
    const Answer walk = end_order_walk(events);
    REQUIRE(walk.answered);
    REQUIRE(walk.parent == sorted_rule(events));
  }
}

TEST_CASE("End order: any answer it gives is the sort's, and ties make it give none", "[model][nesting]") {
  std::mt19937 random(11);
  int answered = 0, declined = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::pair<uint64_t, uint64_t>> intervals(2 + random() % 6);
    for (auto& [start, end] : intervals) {
      start = random() % 12;
      end = start + random() % 6;
    }
    // Mostly end order, sometimes not at all.
    if (random() % 4 != 0)
      std::stable_sort(intervals.begin(), intervals.end(), [](auto a, auto b) { return a.second < b.second; });
    const EventTable<CpuEvent> events = table(intervals);
    const Answer walk = end_order_walk(events);
    if (!walk.answered) {
      ++declined;
      continue;
    }
    ++answered;
    REQUIRE(walk.parent == sorted_rule(events));
  }
  CHECK(answered > 1000);
  CHECK(declined > 1000);
}

TEST_CASE("End order: the cases only the sort's order decides are declined", "[model][nesting]") {
  // A zero-length event at its would-be parent's end is no child of it.
  CHECK_FALSE(end_order_walk(table({{10, 20}, {20, 20}})).answered);
  // Identical intervals: the first in the file is the parent.
  CHECK_FALSE(end_order_walk(table({{10, 20}, {10, 20}})).answered);
  // A partial overlap.
  CHECK_FALSE(end_order_walk(table({{10, 20}, {15, 30}})).answered);
  // And these it answers: of two that end together, the outer written
  // first (a call and a range in different fields); touching siblings.
  const Answer nested = end_order_walk(table({{0, 20}, {10, 20}, {20, 30}, {0, 40}}));
  REQUIRE(nested.answered);
  CHECK(nested.parent == std::vector<uint32_t>{3, 0, 3, kNone});
}

// The merges end_order_parents.h and trace's GPU streams sort with: the
// stable sort's order for sequences of runs reaching any way back, and a
// refusal (leaving a permutation) once the moves pass the budget.
TEST_CASE("merge_sorted_runs sorts runs as a stable sort does, within its budget", "[model][nesting]") {
  std::mt19937_64 random(42);
  for (int round = 0; round < 500; ++round) {
    // (key, tag) pairs compared by key only, so that stability shows.
    std::vector<std::pair<int, int>> values(random() % 200);
    int key = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      if (random() % 10 == 0) key -= static_cast<int>(random() % (round % 3 == 0 ? 5 : 100));  // a run back
      else key += static_cast<int>(random() % 3);
      values[i] = {key, static_cast<int>(i)};
    }
    auto less = [](const std::pair<int, int>& a, const std::pair<int, int>& b) { return a.first < b.first; };
    std::vector<std::pair<int, int>> expected = values;
    std::stable_sort(expected.begin(), expected.end(), less);
    std::vector<std::pair<int, int>> merged = values;
    size_t moves_left = round % 4 == 0 ? random() % 50 : SIZE_MAX;
    const bool sorted = prof::analyzer::merge_sorted_runs(merged.data(), merged.data() + merged.size(), less, moves_left);
    if (round % 4 != 0) REQUIRE(sorted);
    std::vector<std::pair<int, int>> permuted = merged;
    std::sort(permuted.begin(), permuted.end());
    std::vector<std::pair<int, int>> given = values;
    std::sort(given.begin(), given.end());
    CHECK(permuted == given);
    if (sorted) CHECK(merged == expected);
  }
}
