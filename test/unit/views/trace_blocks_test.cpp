// trace on several cores: run_ordered_blocks' contract, and the file the
// same byte for byte whatever the number of formatting threads and the
// block size (the separators, async ids, flow ids, memory in use and
// --max-events cut-offs carried across blocks).
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "analyzer_test_support.h"
#include "views_capture.h"
#include "model/run.h"
#include "views/chrome_trace.h"
#include "views/frame_names.h"
#include "views/ordered_blocks.h"
#include "views/trace_file.h"

using prof::analyzer::ChromeTraceOptions;
using prof::analyzer::ChromeTraceStats;
using prof::analyzer::Run;
using prof::testing::TempFile;

namespace {

struct Square {
  int value = 0;
  long result = -1;
  unsigned worker = 0;
};

struct Written {
  std::string json;
  ChromeTraceStats stats;
};

Written trace_of(const Run& run, const ChromeTraceOptions& options) {
  std::ostringstream out;
  prof::analyzer::StreamTraceSink sink(out);
  Written w;
  w.stats = prof::analyzer::write_chrome_trace(run, options, sink);
  w.json = out.str();
  return w;
}

}  // namespace

TEST_CASE("run_ordered_blocks hands blocks back in the order they were made, with at most `slots` in flight") {
  for (unsigned workers : {1u, 2u, 4u}) {
    for (size_t slots : {size_t{1}, size_t{3}, size_t{8}}) {
      for (int blocks : {0, 1, 100}) {
        int made = 0;
        size_t in_flight = 0, most_in_flight = 0;
        std::vector<long> results;
        bool workers_in_range = true;
        prof::analyzer::run_ordered_blocks<Square>(
            workers, slots,
            [&](Square& s) {
              if (made == blocks) return false;
              s.value = made++;
              s.result = -1;
              most_in_flight = std::max(most_in_flight, ++in_flight);
              return true;
            },
            [&](Square& s, unsigned worker) {
              s.result = long{s.value} * s.value;
              s.worker = worker;
            },
            [&](Square& s) {
              --in_flight;
              workers_in_range = workers_in_range && s.worker < workers;
              results.push_back(s.result);
            });
        INFO("workers " << workers << ", slots " << slots << ", blocks " << blocks);
        REQUIRE(results.size() == static_cast<size_t>(blocks));
        for (int i = 0; i < blocks; ++i) CHECK(results[static_cast<size_t>(i)] == long{i} * i);
        CHECK(most_in_flight <= slots);
        CHECK(workers_in_range);
      }
    }
  }
}

TEST_CASE("trace is the same byte for byte on one core and on several, in blocks of any size") {
  // Two processes (flow ids with the process index), the views capture's
  // start/end range (async ids), memory (memory in use), stacks (stack args
  // made on the merging thread) and names that need escaping.
  TempFile a("blocks0"), b("blocks1");
  a.write(prof::testing::views_capture());
  prof::testing::ViewsCaptureOptions rank1;
  rank1.pid = 4243;
  rank1.rank = 1;
  b.write(prof::testing::views_capture(rank1));
  for (const std::vector<std::string>& paths : {std::vector<std::string>{a.path()},
                                                std::vector<std::string>{a.path(), b.path()}}) {
    Run run;
    REQUIRE(prof::testing::load(paths, run).empty());
    const prof::analyzer::ModuleOffsetFrameNamer namer;
    for (uint64_t max_events : {uint64_t{0}, uint64_t{7}}) {
      ChromeTraceOptions options;
      options.namer = &namer;
      options.max_events = max_events;
      options.jobs = 1;
      const Written one = trace_of(run, options);
      if (max_events == 0) {
        REQUIRE(one.stats.events > 10);
        // A start/end range's async id ("b" and "e" events share it).
        CHECK(one.json.find("\"ph\":\"b\"") != std::string::npos);
      } else {
        REQUIRE(one.stats.events == max_events);
        REQUIRE(one.stats.events_left_out > 0);
      }
      for (unsigned jobs : {2u, 3u}) {
        for (size_t per_block : {size_t{1}, size_t{2}, size_t{5}, size_t{4096}}) {
          options.jobs = jobs;
          options.items_per_block = per_block;
          const Written many = trace_of(run, options);
          INFO(paths.size() << " files, max_events " << max_events << ", jobs " << jobs << ", per block "
                            << per_block);
          CHECK(many.json == one.json);
          CHECK(many.stats.events == one.stats.events);
          CHECK(many.stats.events_in_file == one.stats.events_in_file);
          CHECK(many.stats.events_left_out == one.stats.events_left_out);
          CHECK(many.stats.bytes == one.stats.bytes);
          CHECK(many.stats.bytes == many.json.size());
        }
      }
    }
  }
}
