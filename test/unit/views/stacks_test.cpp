// stacks: flamegraph.pl folded output of the fixed capture, exact text.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "analyzer_test_support.h"
#include "views_capture.h"
#include "views/folded_stacks.h"

using prof::testing::run_cli;
using prof::testing::TempFile;

namespace {

const TempFile& capture() {
  static TempFile file("views");
  static bool written = (file.write(prof::testing::views_capture()), true);
  (void)written;
  return file;
}

// flamegraph.pl's input rules: one stack a line, frames without ';' or
// newline, a space and a positive integer at the end.
void require_folded_format(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    REQUIRE(end != std::string::npos);
    const std::string line = text.substr(start, end - start);
    const size_t space = line.rfind(' ');
    REQUIRE(space != std::string::npos);
    const std::string count = line.substr(space + 1);
    REQUIRE(!count.empty());
    REQUIRE(count.find_first_not_of("0123456789") == std::string::npos);
    REQUIRE(std::stoull(count) > 0);
    const std::string frames = line.substr(0, space);
    REQUIRE(!frames.empty());
    REQUIRE(frames.find(";;") == std::string::npos);
    for (char c : frames) REQUIRE(static_cast<unsigned char>(c) >= 0x20);
    start = end + 1;
  }
}

}  // namespace

TEST_CASE("stacks of self CUDA time end in the GPU work under the launch's native frames, ranges and call") {
  const auto r = run_cli({"stacks", capture().path(), "--no-symbols"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  // libcudart and libcuda frames are gone from the leaf end; ProfilerStep#N
  // merge as ProfilerStep*; the 0.6 us kernel and set round to 1; the ';' in
  // the kernel's name became '_'; the kernel without a launch is a root.
  // Ranges sit below the frames every call made inside them shares (main,
  // 0x403000, opened the steps), above the rest of each call's frames.
  CHECK(r.out ==
        "matmul(float*, float*, int) 1\n"
        "train+0x403000;ProfilerStep*;cudaMemsetAsync;Memset (Device) 1\n"
        "train+0x403000;ProfilerStep*;forward;train+0x401000;cudaMemcpyAsync;Memcpy HtoD (Pageable -> Device) 2\n"
        "train+0x403000;ProfilerStep*;forward;train+0x402000;model.py(42): train_step;train+0x401000;"
        "cudaLaunchKernel;matmul(float*, float*, int) 2\n"
        "train+0x403000;ProfilerStep*;train+0x402000;model.py(42): train_step;train+0x401000;cudaLaunchKernel;"
        "matmul(float*, float*, int) 4\n"
        "train+0x403000;ProfilerStep*;train+0x402000;model.py(42): train_step;train+0x401000;cudaLaunchKernel;"
        "relu \"fast\" kernel_v2 1\n");
  require_folded_format(r.out);
  // Unreadable modules name frames module+offset with symbols on too.
  CHECK(run_cli({"stacks", capture().path()}).out == r.out);
}

TEST_CASE("stacks of self CPU time count every API call and push/pop range by its self time") {
  const auto r = run_cli({"stacks", capture().path(), "--metric", "self_cpu_time_total"});
  REQUIRE(r.exit_code == 0);
  // Step 0 self 3.5 us + step 1 self 7.5 us; cuLaunchKernel nests in the
  // runtime call, keeps the app's call site; the start/end range is left out.
  CHECK(r.out ==
        "prefetch__batch 1\n"
        "train+0x403000;ProfilerStep* 11\n"
        "train+0x403000;ProfilerStep*;cudaMalloc 1\n"
        "train+0x403000;ProfilerStep*;cudaMemsetAsync 1\n"
        "train+0x403000;ProfilerStep*;forward 3\n"
        "train+0x403000;ProfilerStep*;forward;train+0x401000;cudaMemcpyAsync 1\n"
        "train+0x403000;ProfilerStep*;forward;train+0x402000;model.py(42): train_step;train+0x401000;"
        "cudaLaunchKernel 1\n"
        "train+0x403000;ProfilerStep*;forward;train+0x402000;model.py(42): train_step;train+0x401000;"
        "cudaLaunchKernel;cuLaunchKernel 1\n"
        "train+0x403000;ProfilerStep*;train+0x402000;model.py(42): train_step;train+0x401000;cudaLaunchKernel 2\n");
  require_folded_format(r.out);
}

TEST_CASE("stacks --per-thread puts the thread (or the GPU stream of unlaunched work) at the root") {
  const auto r = run_cli({"stacks", capture().path(), "--per-thread"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.rfind("GPU 0 stream 7;matmul(float*, float*, int) 1\n", 0) == 0);
  CHECK(r.out.find("\nthread 7 (main);train+0x403000;ProfilerStep*;cudaMemsetAsync;Memset (Device) 1\n") !=
        std::string::npos);
  CHECK(prof::testing::line_count(r.out) == 6);
  require_folded_format(r.out);
}

TEST_CASE("stacks with a schedule fold the recorded windows; --window picks one") {
  // Steps 0 and 1; active=1: two windows.
  const auto all = run_cli({"stacks", capture().path(), "--active", "1"});
  REQUIRE(all.exit_code == 0);
  CHECK(all.err.find("2 steps") != std::string::npos);
  // Step 1 is [11 us, 21 us): the kernel with no recorded launch starts at
  // 21 us, in no step, so no window has it.
  CHECK(all.out.find("\nmatmul") == std::string::npos);
  const auto second = run_cli({"stacks", capture().path(), "--active", "1", "--window", "1"});
  REQUIRE(second.exit_code == 0);
  CHECK(second.out.find("forward") == std::string::npos);  // step 0 only
  CHECK(second.out.find("relu") != std::string::npos);
  const auto first = run_cli({"stacks", capture().path(), "--active", "1", "--window", "0"});
  CHECK(first.out.find("relu") == std::string::npos);
  CHECK(first.out.find("forward;train+0x401000;cudaMemcpyAsync") != std::string::npos);

  CHECK(run_cli({"stacks", capture().path(), "--active", "1", "--window", "5"}).exit_code == 2);
  CHECK(run_cli({"stacks", capture().path(), "--window", "0"}).exit_code == 2);
  CHECK(run_cli({"stacks", capture().path(), "--active", "0"}).exit_code == 2);
  CHECK(run_cli({"stacks", capture().path(), "--metric", "cuda_time"}).exit_code == 2);
}

TEST_CASE("stacks -o writes the file") {
  TempFile out("stacks-out");
  const auto r = run_cli({"stacks", capture().path(), "-o", out.path()});
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  std::ifstream in(out.path());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == run_cli({"stacks", capture().path()}).out);
}

TEST_CASE("folded frame names cannot break a line") {
  using prof::analyzer::folded_frame_name;
  CHECK(folded_frame_name("a;b\tc\nd\re") == "a_b_c_d_e");
  CHECK(folded_frame_name("void f<int>(int, float)") == "void f<int>(int, float)");
  CHECK(folded_frame_name("") == "[unknown]");
}

TEST_CASE("the CUDA libraries and the agent are recognized by file name") {
  using prof::analyzer::is_cuda_or_agent_module;
  CHECK(is_cuda_or_agent_module("/usr/local/cuda/lib64/libcudart.so.13"));
  CHECK(is_cuda_or_agent_module("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  CHECK(is_cuda_or_agent_module("/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"));
  CHECK(is_cuda_or_agent_module("/opt/prof/lib/libprof.so"));
  CHECK_FALSE(is_cuda_or_agent_module("/usr/lib/libcudnn.so.9"));
  CHECK_FALSE(is_cuda_or_agent_module("/opt/app/libprofiler.so"));
  CHECK_FALSE(is_cuda_or_agent_module("/opt/app/bin/train"));
}

TEST_CASE("natural order puts step#2 before step#10") {
  using prof::analyzer::NaturalLess;
  const NaturalLess less;
  CHECK(less("step#2", "step#10"));
  CHECK_FALSE(less("step#10", "step#2"));
  CHECK(less("a;step#9;x", "a;step#10"));
  CHECK(less("abc", "abd"));
  CHECK(less("x1", "x01"));  // equal values: fewer leading zeros first
  CHECK_FALSE(less("same", "same"));
  CHECK(less("a", "a1"));
}

// html folds both metrics from one placing of the ranges and one trie: each
// must be what folding it alone gives, whichever metric goes first (the
// trie's node numbers then differ), with and without threads at the root.
TEST_CASE("stacks of several metrics from one walk are each metric's own") {
  using namespace prof::analyzer;
  Run run;
  REQUIRE(prof::testing::load({capture().path()}, run).empty());
  const RangeTree tree(run);
  auto same = [](const std::vector<FoldedStack>& a, const std::vector<FoldedStack>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].frames != b[i].frames || a[i].ns != b[i].ns) return false;
    return true;
  };
  for (const bool per_thread : {false, true}) {
    FoldedStacksOptions options;
    options.per_thread = per_thread;
    options.metric = StackMetric::kSelfCuda;
    const std::vector<FoldedStack> cuda = folded_stacks(run, tree, options);
    options.metric = StackMetric::kSelfCpu;
    const std::vector<FoldedStack> cpu = folded_stacks(run, tree, options);
    REQUIRE(!cuda.empty());
    REQUIRE(!cpu.empty());
    REQUIRE(!same(cuda, cpu));

    const auto cuda_first = folded_stacks_of_metrics(run, tree.parents(), options, {StackMetric::kSelfCuda, StackMetric::kSelfCpu});
    REQUIRE(cuda_first.size() == 2);
    CHECK(same(cuda_first[0], cuda));
    CHECK(same(cuda_first[1], cpu));
    const auto cpu_first = folded_stacks_of_metrics(run, tree.parents(), options, {StackMetric::kSelfCpu, StackMetric::kSelfCuda});
    REQUIRE(cpu_first.size() == 2);
    CHECK(same(cpu_first[0], cpu));
    CHECK(same(cpu_first[1], cuda));
  }
}
