#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>

#include "record/correlation_set.h"

TEST_CASE("a correlation set holds what was inserted and not erased, as std::set does") {
  prof::CorrelationSet set;
  std::set<uint32_t> model;
  std::mt19937 random(7);
  // Ids as CUPTI hands them out (rising, erased mostly in order, a few
  // left behind), with zero and a narrow range mixed in so that probes
  // collide, wrap around the table's end and shift back across it.
  uint32_t next = 1;
  for (int step = 0; step < 200'000; ++step) {
    const uint32_t pick = random() % 16;
    uint32_t id;
    if (pick < 6) {
      id = next++;
    } else if (pick < 12 && !model.empty()) {
      id = *model.begin() + random() % 4;
    } else if (pick < 14) {
      id = random() % 64;
    } else {
      id = static_cast<uint32_t>(random());
    }
    if (random() % 2 == 0 || pick < 6) {
      CHECK(set.insert(id) == model.insert(id).second);
    } else {
      CHECK(set.erase(id) == (model.erase(id) != 0));
    }
    REQUIRE(set.size() == model.size());
  }
  for (uint32_t id = 0; id < next + 64; ++id) CHECK(set.contains(id) == (model.count(id) != 0));
  for (uint32_t id : model) CHECK(set.contains(id));
  // Everything held can be erased, and then nothing is held.
  for (uint32_t id : model) CHECK(set.erase(id));
  CHECK(set.empty());
  for (uint32_t id = 0; id < next; ++id) CHECK_FALSE(set.contains(id));
}

TEST_CASE("a cleared correlation set is empty, zero included, and takes ids again") {
  prof::CorrelationSet set;
  for (uint32_t id = 0; id < 1000; ++id) CHECK(set.insert(id));
  CHECK_FALSE(set.insert(0));
  CHECK_FALSE(set.insert(999));
  CHECK(set.size() == 1000);
  set.clear();
  CHECK(set.empty());
  CHECK_FALSE(set.contains(0));
  CHECK_FALSE(set.contains(500));
  CHECK_FALSE(set.erase(0));
  CHECK(set.insert(500));
  CHECK(set.contains(500));
  CHECK(set.size() == 1);
}

TEST_CASE("ids whose records never come do not hold the correlation set's window open") {
  // Launches inserted and erased in order, as CUPTI numbers them and hands
  // their records over, but for two whose records were lost: the window
  // moves past them (they go to the hash set) and both stay held.
  prof::CorrelationSet set;
  constexpr uint32_t kLaunches = 3 * prof::CorrelationSet::kMaxWindowIds;
  constexpr uint32_t kInFlight = 20'000;
  for (uint32_t id = 1; id <= kLaunches; ++id) {
    REQUIRE(set.insert(id));
    if (id > kInFlight) {
      const uint32_t done = id - kInFlight;
      if (done != 5 && done != 300'000) REQUIRE(set.erase(done));
    }
  }
  for (uint32_t id = kLaunches - kInFlight + 1; id <= kLaunches; ++id) REQUIRE(set.erase(id));
  CHECK(set.size() == 2);
  CHECK(set.contains(5));
  CHECK(set.contains(300'000));
  CHECK_FALSE(set.contains(6));
  CHECK_FALSE(set.insert(5));
  CHECK(set.erase(300'000));
  CHECK(set.erase(5));
  CHECK(set.empty());
  // A call that began before those held (drained late) is held below them.
  CHECK(set.insert(1000));
  CHECK(set.insert(10));
  CHECK(set.contains(10));
  CHECK(set.erase(1000));
  CHECK(set.insert(2000));
  CHECK(set.contains(10));
  CHECK(set.erase(10));
  CHECK(set.erase(2000));
  CHECK(set.empty());
}
