#pragma once
// The report's rows computed the way key_averages did before its one walk
// per thread (views/cpu_group_sums.h): RangeTree's per-event figures,
// adjusted per event (driver calls folded into their runtime call, GPU time
// moved up the parent links to the innermost operator or record_function
// scope), then every event added to its row on its own. Slow and simple:
// the tests' reference for the walk. No grouping by stack.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model/range_tree.h"
#include "model/torch_ranges.h"
#include "views/key_averages.h"

namespace prof::testing {

inline std::vector<analyzer::KeyAverage> key_averages_oracle(const analyzer::Run& run,
                                                             const analyzer::GroupOptions& options) {
  using namespace prof::analyzer;
  const RangeTree tree(run);
  const size_t n = run.cpu_events.size();
  std::vector<uint64_t> self_cpu(n), self_gpu(n), gpu_total(n);
  std::vector<int64_t> self_cuda_mem(n), self_cpu_mem(n);
  for (size_t i = 0; i < n; ++i) {
    self_cpu[i] = tree.self_ns(i);
    self_gpu[i] = tree.self_gpu_ns(i);
    gpu_total[i] = tree.gpu_total_ns(i);
    self_cuda_mem[i] = tree.self_cuda_mem_bytes(i);
    self_cpu_mem[i] = tree.self_cpu_mem_bytes(i);
  }
  std::vector<bool> hidden(n, false);
  auto is_runtime = [](const CpuEvent& e) { return e.kind == CpuEventKind::kApiCall && e.api_domain() != ApiDomain::kDriver; };
  auto is_driver = [](const CpuEvent& e) { return e.kind == CpuEventKind::kApiCall && e.api_domain() == ApiDomain::kDriver; };
  if (options.fold_driver_calls) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t p = tree.parent(i);
      if (p == RangeTree::kNoParent || !is_driver(run.cpu_events[i]) || !is_runtime(run.cpu_events[static_cast<size_t>(p)]))
        continue;
      hidden[i] = true;
      const auto up = static_cast<size_t>(p);
      self_cpu[up] += self_cpu[i];
      self_gpu[up] += self_gpu[i];
      self_cuda_mem[up] += self_cuda_mem[i];
      self_cpu_mem[up] += self_cpu_mem[i];
    }
  }
  const TorchRanges torch(run);
  if (torch.any_operator()) {
    auto owns_gpu_work = [&](const CpuEvent& e) {
      if (e.kind != CpuEventKind::kPushPopRange || e.nvtx_domain() != Run::kNoName) return false;
      const TorchRangeKind kind = torch.of(e.name).kind;
      return kind == TorchRangeKind::kOperator || kind == TorchRangeKind::kAnnotation;
    };
    for (size_t i = 0; i < n; ++i) {
      const uint64_t moved = self_gpu[i];
      if (moved == 0 || hidden[i] || run.cpu_events[i].kind != CpuEventKind::kApiCall) continue;
      int64_t owner = tree.parent(i);
      while (owner != RangeTree::kNoParent && !owns_gpu_work(run.cpu_events[static_cast<size_t>(owner)]))
        owner = tree.parent(static_cast<size_t>(owner));
      if (owner == RangeTree::kNoParent) continue;
      self_gpu[static_cast<size_t>(owner)] += moved;
      self_gpu[i] = 0;
      for (int64_t p = static_cast<int64_t>(i); p != owner; p = tree.parent(static_cast<size_t>(p)))
        if (run.cpu_events[static_cast<size_t>(p)].kind == CpuEventKind::kApiCall) gpu_total[static_cast<size_t>(p)] -= moved;
    }
  }

  KeyAverageRows rows;
  const std::vector<std::string> no_stack;
  for (size_t i = 0; i < n; ++i) {
    if (hidden[i]) continue;
    const CpuEvent& e = run.cpu_events[i];
    std::string shape;
    if (options.by_input_shape)
      shape = e.kind == CpuEventKind::kApiCall ? run.name(e.input_shape)
                                               : parse_torch_range(run.name(e.name)).sizes.value_or("");
    KeyAverage sums;
    sums.count = 1;
    sums.cpu_total_ns = e.duration_ns();
    sums.self_cpu_ns = self_cpu[i];
    sums.cuda_total_ns = gpu_total[i];
    sums.self_cuda_ns = self_gpu[i];
    sums.cpu_mem_bytes = tree.cpu_mem_bytes(i);
    sums.self_cpu_mem_bytes = self_cpu_mem[i];
    sums.cuda_mem_bytes = tree.cuda_mem_bytes(i);
    sums.self_cuda_mem_bytes = self_cuda_mem[i];
    rows.add(false, row_key(run, e), shape, no_stack, {e.start_ns, e.process, false, i},
             tree.parent(i) == RangeTree::kNoParent, sums);
  }
  const TensorMemoryOutside& outside = tree.tensor_memory_outside();
  if (outside.events > 0) {
    KeyAverage sums;
    sums.count = outside.events;
    sums.cuda_mem_bytes = sums.self_cuda_mem_bytes = outside.device_bytes;
    sums.cpu_mem_bytes = sums.self_cpu_mem_bytes = outside.host_bytes;
    rows.add(false, "[memory]", "", no_stack, {outside.first_ns, outside.first_process, false, 0}, true, sums);
  }
  for (size_t i = 0; i < run.gpu_activities.size(); ++i) {
    const GpuActivity& a = run.gpu_activities[i];
    KeyAverage sums;
    sums.count = 1;
    sums.cuda_total_ns = sums.self_cuda_ns = a.duration_ns();
    rows.add(true, run.name(a.name), options.by_input_shape ? run.name(a.input_shape) : "", no_stack,
             {a.start_ns, a.process, true, i}, a.launched_by < 0, sums);
  }
  for (const GpuWorkSum& s : run.gpu_work_sums) {
    KeyAverage sums;
    sums.count = s.count;
    sums.cuda_total_ns = sums.self_cuda_ns = s.total_ns;
    rows.add(true, run.name(s.name), options.by_input_shape ? run.name(s.input_shape) : "", no_stack,
             {s.first_start_ns, s.process, true, s.first_index}, s.first_top_level, sums);
  }
  return std::move(rows).take();
}

// Every column of every row equal, rows in the same order.
inline void check_same_rows(const std::vector<analyzer::KeyAverage>& got,
                            const std::vector<analyzer::KeyAverage>& expected) {
  using analyzer::KeyAverage;
  REQUIRE(got.size() == expected.size());
  for (size_t r = 0; r < got.size(); ++r) {
    const KeyAverage& a = got[r];
    const KeyAverage& b = expected[r];
    INFO("row " << r << ": " << b.key << " [" << b.input_shapes << "]");
    REQUIRE(a.key == b.key);
    CHECK(a.is_gpu == b.is_gpu);
    CHECK(a.input_shapes == b.input_shapes);
    CHECK(a.top_level == b.top_level);
    CHECK(a.count == b.count);
    CHECK(a.cpu_total_ns == b.cpu_total_ns);
    CHECK(a.self_cpu_ns == b.self_cpu_ns);
    CHECK(a.cuda_total_ns == b.cuda_total_ns);
    CHECK(a.self_cuda_ns == b.self_cuda_ns);
    CHECK(a.cpu_mem_bytes == b.cpu_mem_bytes);
    CHECK(a.self_cpu_mem_bytes == b.self_cpu_mem_bytes);
    CHECK(a.cuda_mem_bytes == b.cuda_mem_bytes);
    CHECK(a.self_cuda_mem_bytes == b.self_cuda_mem_bytes);
  }
}

}  // namespace prof::testing
