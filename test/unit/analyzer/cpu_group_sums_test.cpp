// key_averages' one walk per thread (views/cpu_group_sums.h) against the
// per-event computation it replaced (key_averages_oracle.h), on random runs:
// nested ranges and API calls on several threads of two processes, driver
// calls inside runtime calls (and outside), torch operator and
// record_function ranges around calls, NVTX domains, start/end ranges,
// ties, zero lengths and partial overlaps, GPU time from sums or records,
// memory segments and tensor memory.
#include <catch2/catch.hpp>
#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "key_averages_oracle.h"
#include "model/range_tree.h"
#include "model/run.h"
#include "views/key_averages.h"

using namespace prof::analyzer;

namespace {

class RandomRun {
 public:
  RandomRun(uint64_t seed, size_t target_events, size_t threads) : rng_(seed) {
    run.processes.resize(2);
    for (const char* name : {"aten::mm, seq = 1, op_id = 7, sizes = [[2, 3], [3]]", "aten::mm, op_id = 8, sizes = [[4]]",
                             "aten::relu, seq = 3", "ProfilerStep#1", "ProfilerStep#2", "Optimizer.step#SGD.step",
                             "my_range", "loop#3"})
      range_names_.push_back(run.intern(name));
    runtime_names_ = {run.intern("cudaLaunchKernel"), run.intern("cudaMemcpyAsync")};
    driver_names_ = {run.intern("cuLaunchKernel"), run.intern("cuMemcpyAsync")};
    shapes_ = {Run::kNoName, run.intern("grid=[1, 1, 1] block=[32, 1, 1] dynamic shared=0"), run.intern("HtoD 4096 B")};
    domain_ = run.intern("mydomain");
    kernels_ = {run.intern("kernel_a"), run.intern("kernel_b")};
    sorted_file_order_ = chance(0.5);
    gpu_records_ = chance(0.5);
    while (run.cpu_events.size() < target_events) {
      const auto thread = static_cast<uint32_t>(pick(threads));
      std::vector<CpuEvent> tree;
      const uint64_t start = clock_[thread] + pick(5);
      const uint64_t end = start + 20 + pick(2000);
      clock_[thread] = end;
      subtree(thread % 2, 100 + thread, start, end, 0, tree);
      add_in_file_order(tree);
      if (chance(0.05)) {  // a start/end range, across anything
        CpuEvent e;
        e.kind = CpuEventKind::kStartEndRange;
        e.process = thread % 2;
        e.tid = 100 + thread;
        e.start_ns = start + pick(100);
        e.end_ns = e.start_ns + pick(5000);
        e.name = range_names_[pick(range_names_.size())];
        e.set_nvtx_domain(Run::kNoName);
        run.cpu_events.push_back(e);
      }
    }
    add_gpu_time();
    add_memory();
  }

  Run run;

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  CpuEvent event(uint32_t process, uint32_t tid, uint64_t start, uint64_t end) {
    CpuEvent e;
    e.process = process;
    e.tid = tid;
    e.start_ns = start;
    e.end_ns = end;
    e.set_nvtx_domain(Run::kNoName);
    e.input_shape = Run::kNoName;
    return e;
  }

  CpuEvent api_call(uint32_t process, uint32_t tid, uint64_t start, uint64_t end, bool driver) {
    CpuEvent e = event(process, tid, start, end);
    e.kind = CpuEventKind::kApiCall;
    e.set_api_domain(driver ? ApiDomain::kDriver : ApiDomain::kRuntime);
    e.name = (driver ? driver_names_ : runtime_names_)[pick(2)];
    e.input_shape = shapes_[pick(shapes_.size())];
    e.set_correlation_id(++correlation_);
    return e;
  }

  // An event over [start, end] and, below it, children that split it (now
  // and then a tie, a zero-length child or one overlapping its sibling).
  void subtree(uint32_t process, uint32_t tid, uint64_t start, uint64_t end, int depth, std::vector<CpuEvent>& out) {
    const double roll = std::uniform_real_distribution<double>(0, 1)(rng_);
    if (depth >= 4 || roll < 0.35) {
      CpuEvent call = api_call(process, tid, start, end, chance(0.1));
      out.push_back(call);
      if (call.api_domain() != ApiDomain::kRuntime || !chance(0.6)) return;
      // The driver call the runtime call made, inside it (now and then its
      // whole interval: a tie).
      uint64_t from = start + (end - start) / 4;
      uint64_t to = end - (end - start) / 4;
      if (chance(0.05)) {
        from = start;
        to = end;
      }
      out.push_back(api_call(process, tid, from, to, true));
      return;
    }
    CpuEvent range = event(process, tid, start, end);
    range.kind = CpuEventKind::kPushPopRange;
    range.name = range_names_[pick(range_names_.size())];
    if (chance(0.15)) range.set_nvtx_domain(domain_);
    out.push_back(range);
    const size_t children = pick(4);
    uint64_t at = start;
    for (size_t c = 0; c < children && at < end; ++c) {
      const uint64_t left = end - at;
      const uint64_t child_start = at + pick(left / 4 + 1);
      uint64_t child_end = std::min(end, child_start + 1 + pick(left / 2 + 1));
      if (chance(0.03)) child_end = child_start;                   // zero length
      if (chance(0.03) && c > 0) child_end = std::min(end + 7, child_end + 5);  // past its parent: an overlap
      subtree(process, tid, child_start, std::max(child_start, std::min(child_end, end + 7)), depth + 1, out);
      at = child_end;
    }
  }

  // The agent's order (end order, each subtree's children first) or a
  // shuffled one (the sort's path).
  void add_in_file_order(std::vector<CpuEvent>& tree) {
    if (sorted_file_order_) {
      std::stable_sort(tree.begin(), tree.end(), [](const CpuEvent& a, const CpuEvent& b) {
        if (a.end_ns != b.end_ns) return a.end_ns < b.end_ns;
        return a.start_ns > b.start_ns;
      });
    } else {
      std::shuffle(tree.begin(), tree.end(), rng_);
    }
    for (const CpuEvent& e : tree) run.cpu_events.push_back(e);
  }

  // The GPU time each call launched, as a sums load holds it (per call)
  // or as GPU records linked to their calls; some work with no call.
  void add_gpu_time() {
    const size_t n = run.cpu_events.size();
    if (!gpu_records_) run.launched_gpu_ns.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const CpuEvent& e = run.cpu_events[i];
      if (e.kind != CpuEventKind::kApiCall || !chance(0.6)) continue;
      const uint64_t ns = 1 + pick(500);
      if (!gpu_records_) {
        run.launched_gpu_ns[i] += ns;
        continue;
      }
      GpuActivity g;
      g.process = e.process;
      g.start_ns = e.end_ns + pick(50);
      g.end_ns = g.start_ns + ns;
      g.launched_by = chance(0.9) ? static_cast<int32_t>(i) : -1;
      g.name = kernels_[pick(2)];
      g.input_shape = shapes_[pick(shapes_.size())];
      run.gpu_activities.push_back(g);
    }
  }

  // Segments made by calls, and tensor memory (within events and outside
  // any), on one side or both.
  void add_memory() {
    const size_t n = run.cpu_events.size();
    if (chance(0.4)) {
      for (size_t k = 0; k < n / 5; ++k) {
        const size_t i = pick(n);
        MemoryEvent m;
        m.process = run.cpu_events[i].process;
        m.allocation = chance(0.6);
        m.on_device = chance(0.5);
        m.bytes = 1 + pick(1 << 20);
        m.time_ns = run.cpu_events[i].start_ns;
        m.called_by = run.cpu_events[i].kind == CpuEventKind::kApiCall ? static_cast<int64_t>(i) : -1;
        run.memory_events.push_back(m);
      }
    }
    if (chance(0.4)) {
      const bool device = chance(0.7), host = chance(0.5);
      for (size_t k = 0; k < n / 4; ++k) {
        const CpuEvent& e = run.cpu_events[pick(n)];
        TensorMemoryEvent m;
        m.process = e.process;
        m.allocation = chance(0.6);
        m.device = device && (!host || chance(0.5)) ? 0 : -1;
        m.bytes = 1 + pick(1 << 16);
        // Inside the event, at its ends, or just past it (maybe outside all).
        m.time_ns = chance(0.2) ? e.end_ns + 1 + pick(40) : e.start_ns + pick(e.duration_ns() + 1);
        run.tensor_memory_events.push_back(m);
      }
    }
  }

  std::mt19937_64 rng_;
  std::vector<NameId> range_names_, runtime_names_, driver_names_, shapes_, kernels_;
  NameId domain_ = 0;
  uint64_t clock_[64] = {};
  uint32_t correlation_ = 0;
  bool sorted_file_order_ = true;
  bool gpu_records_ = false;
};

bool any_moved_gpu_time(const std::vector<KeyAverage>& rows) {
  return std::any_of(rows.begin(), rows.end(), [](const KeyAverage& r) {
    return !r.is_gpu && r.key.rfind("aten::", 0) == 0 && r.self_cuda_ns > 0;
  });
}

}  // namespace

TEST_CASE("The report's rows summed in one walk per thread equal the per-event figures' rows", "[key_averages][walk]") {
  size_t runs_with_moves = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const RandomRun random(seed, 200 + seed * 20, 1 + seed % 5);
    for (const bool fold : {true, false}) {
      for (const bool by_shape : {false, true}) {
        INFO("seed " << seed << ", fold driver calls " << fold << ", by shape " << by_shape);
        GroupOptions options;
        options.fold_driver_calls = fold;
        options.by_input_shape = by_shape;
        const std::vector<KeyAverage> expected = prof::testing::key_averages_oracle(random.run, options);
        prof::testing::check_same_rows(key_averages(random.run, options), expected);
        if (fold && !by_shape && any_moved_gpu_time(expected)) ++runs_with_moves;
      }
    }
  }
  // The runs exercise the move to operators, not only the plain sums.
  CHECK(runs_with_moves > 20);
}

TEST_CASE("The walk gives the same rows on one thread and on several", "[key_averages][walk]") {
  // Over RangeParents::kEventsForHelpers events, so the threads are walked
  // side by side.
  for (uint64_t seed : {7u, 8u}) {
    const RandomRun random(seed, 90000, 5);
    REQUIRE(random.run.cpu_events.size() > 65536);
    GroupOptions options;
    const std::vector<KeyAverage> one = key_averages(random.run, options, 1);
    prof::testing::check_same_rows(key_averages(random.run, options, 4), one);
    prof::testing::check_same_rows(one, prof::testing::key_averages_oracle(random.run, options));
  }
}

TEST_CASE("The walk hands on the parent links it made, the same as linking the run again", "[key_averages][walk]") {
  // html's flame graphs read the walk's links instead of linking the run's
  // threads a second time: every event's parent must be RangeParents' own,
  // whether the threads were walked on one worker or side by side.
  for (const auto& [seed, events] : {std::pair<uint64_t, size_t>{3, 2000}, std::pair<uint64_t, size_t>{9, 90000}}) {
    const RandomRun random(seed, events, 5);
    const RangeParents expected(random.run);
    for (const unsigned jobs : {1u, 4u}) {
      INFO("seed " << seed << ", jobs " << jobs);
      std::optional<RangeParents> kept;
      const std::vector<KeyAverage> rows = key_averages(random.run, GroupOptions{}, jobs, &kept);
      prof::testing::check_same_rows(rows, key_averages(random.run, GroupOptions{}, jobs));
      REQUIRE(kept.has_value());
      size_t with_parent = 0;
      for (size_t i = 0; i < random.run.cpu_events.size(); ++i) {
        REQUIRE(kept->parent(i) == expected.parent(i));
        with_parent += expected.parent(i) != RangeParents::kNoParent;
      }
      CHECK(with_parent > random.run.cpu_events.size() / 2);  // the runs nest
    }
  }
}
