#include <catch2/catch.hpp>

#include "record/nvtx_ranges.h"

namespace {
prof::NvtxRangeAssembler::Begin begin(uint64_t name_id, uint64_t time_ns, uint64_t domain_id = 0) {
  prof::NvtxRangeAssembler::Begin b;
  b.name_id = name_id;
  b.time_ns = time_ns;
  b.domain_id = domain_id;
  return b;
}
}  // namespace

TEST_CASE("push and pop pair innermost first, with their depth") {
  prof::NvtxRangeAssembler ranges;
  ranges.push(1, begin(10, 100));
  ranges.push(1, begin(11, 150));
  prof::ClosedRange closed;
  REQUIRE(ranges.pop(1, 0, 180, closed));
  CHECK(closed.range.name_id == 11);
  CHECK(closed.span.start_ns == 150);
  CHECK(closed.span.end_ns == 180);
  CHECK(closed.range.depth == 1);
  CHECK(closed.range.style == prof::file::NvtxRange::Style::push_pop);
  REQUIRE(ranges.pop(1, 0, 200, closed));
  CHECK(closed.range.name_id == 10);
  CHECK(closed.range.depth == 0);
  CHECK_FALSE(ranges.pop(1, 0, 300, closed));
}

TEST_CASE("each thread and each domain has its own stack") {
  prof::NvtxRangeAssembler ranges;
  ranges.push(1, begin(10, 100));
  ranges.push(2, begin(20, 110));
  ranges.push(1, begin(30, 120, 7));  // domain 7 on thread 1
  prof::ClosedRange closed;
  REQUIRE(ranges.pop(1, 0, 130, closed));
  CHECK(closed.range.name_id == 10);
  REQUIRE(ranges.pop(2, 0, 140, closed));
  CHECK(closed.range.name_id == 20);
  CHECK(closed.range.tid == 2);
  REQUIRE(ranges.pop(1, 7, 150, closed));
  CHECK(closed.range.name_id == 30);
  CHECK(closed.range.domain_id == 7);
}

TEST_CASE("start/end ranges pair by id, also across threads") {
  prof::NvtxRangeAssembler ranges;
  ranges.start(42, 1, begin(10, 100));
  prof::ClosedRange closed;
  CHECK_FALSE(ranges.end(43, 2, 150, closed));
  REQUIRE(ranges.end(42, 2, 200, closed));
  CHECK(closed.range.tid == 1);
  CHECK(closed.range.end_tid == 2);
  CHECK(closed.range.style == prof::file::NvtxRange::Style::start_end);
  CHECK(closed.span.end_ns == 200);
  CHECK(ranges.open_count() == 0);
}

TEST_CASE("ranges open at the end are closed then and marked unterminated") {
  prof::NvtxRangeAssembler ranges;
  ranges.push(1, begin(10, 100));
  ranges.push(1, begin(11, 110));
  ranges.start(5, 1, begin(12, 120));
  CHECK(ranges.open_count() == 3);
  const std::vector<prof::ClosedRange> closed = ranges.close_all(500);
  REQUIRE(closed.size() == 3);
  for (const prof::ClosedRange& r : closed) {
    CHECK(r.range.unterminated);
    CHECK(r.span.end_ns == 500);
  }
  CHECK(ranges.open_count() == 0);
}
