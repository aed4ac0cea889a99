// html's flamegraph tree (views/html_data.h): shared prefixes sent once,
// small frames summed per parent, totals kept, the node cap honoured.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "views/html_data.h"

using prof::analyzer::FoldedStack;
using prof::analyzer::stack_tree_json;

TEST_CASE("stack tree: one node per distinct path, in preorder") {
  const std::vector<FoldedStack> stacks = {{"main;step;fwd", 600}, {"main;step;bwd", 300}, {"main;io", 100}};
  // names in order of first use; nodes [parent, name, ns]
  CHECK(stack_tree_json(stacks) ==
        "{\"min_share\":20000,\"names\":[\"main\",\"step\",\"fwd\",\"bwd\",\"io\"],"
        "\"nodes\":[-1,0,1000,0,1,900,1,2,600,1,3,300,0,4,100]}");
}

TEST_CASE("stack tree: frames under the share are summed into one node per parent") {
  // Share 100 of a total of 10,000: anything under 100 ns is too small.
  const std::vector<FoldedStack> stacks = {
      {"main;big", 9800}, {"main;tiny_a", 40}, {"main;tiny_b", 50}, {"lone", 60}, {"main;big;leaf", 50}};
  const std::string json = stack_tree_json(stacks, 100);
  CHECK(json ==
        "{\"min_share\":100,\"names\":[\"main\",\"big\",\"[1 frame too small to draw]\",\"[2 frames too small to "
        "draw]\",\"[1 frame too small to draw]\"],"
        "\"nodes\":[-1,0,9940,0,1,9850,1,2,50,0,3,90,-1,4,60]}");
}

TEST_CASE("stack tree: past max_nodes the share is halved until the nodes fit") {
  std::vector<FoldedStack> stacks;
  for (int i = 0; i < 100; ++i) stacks.push_back({std::string("f").append(std::to_string(i)), static_cast<uint64_t>(1000 + i)});
  // 100 roots of about 1/100 each: a share of 1000 keeps them all; at most
  // 10 nodes halve it to 62 (a node would need 1/62 of the total), where
  // all are summed into one.
  CHECK(stack_tree_json(stacks, 1000, 1000).find("\"min_share\":1000,") != std::string::npos);
  const std::string capped = stack_tree_json(stacks, 1000, 10);
  CHECK(capped.find("\"min_share\":62,") != std::string::npos);
  CHECK(capped.find("[100 frames too small to draw]") != std::string::npos);
}

TEST_CASE("stack tree: no stacks, no nodes") {
  CHECK(stack_tree_json({}) == "{\"min_share\":20000,\"names\":[],\"nodes\":[]}");
}

// The histograms count in two passes (each name's range, then its bins)
// without a list of durations: the same bins as sorting every duration
// into [min, max] cut in equal widths, the longest in the last bin.
TEST_CASE("kernel histograms: each kernel name's durations in equal bins between its shortest and longest") {
  using namespace prof::analyzer;
  Run run;
  const NameId gemm = run.intern("gemm"), relu = run.intern("relu"), copy = run.intern("Memcpy HtoD");
  auto add = [&](NameId name, uint64_t duration, GpuKind kind = GpuKind::kKernel) {
    GpuActivity g;
    g.start_ns = 1000;
    g.end_ns = 1000 + duration;
    g.name = name;
    g.kind = kind;
    run.gpu_activities.push_back(g);
  };
  for (uint64_t d : {100, 140, 199, 200, 110, 101}) add(gemm, d);  // width 25: bins 0,1,3,3,0,0
  add(relu, 7);
  add(relu, 7);  // one duration: all in the first bin
  add(copy, 5000, GpuKind::kMemcpy);  // not a kernel: no histogram
  CHECK(kernel_histograms_json(run, 4) ==
        "{\"gemm\":{\"min_ns\":100,\"max_ns\":200,\"counts\":[3,1,0,2]},"
        "\"relu\":{\"min_ns\":7,\"max_ns\":7,\"counts\":[2,0,0,0]}}");
  CHECK(kernel_histograms_json(Run{}, 4) == "{}");
}
