#include "views/key_average_cells.h"

#include <cstdio>

namespace prof::analyzer {
namespace {

std::string decimal(double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", value);
  return buf;
}

// Percent with torch's two decimals; empty (null) when the total is 0.
std::string percent(uint64_t part, uint64_t total) {
  if (total == 0) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(part) * 100.0 / static_cast<double>(total));
  return buf;
}

}  // namespace

ViewTable key_average_cells(const std::vector<KeyAverage>& rows, const TableTotals& totals) {
  ViewTable t;
  t.columns = {
      {"Name", "name", CellType::kString},
      {"Self CPU %", "self_cpu_pct"},
      {"Self CPU (ns)", "self_cpu_ns"},
      {"CPU total %", "cpu_total_pct"},
      {"CPU total (ns)", "cpu_total_ns"},
      {"CPU time avg (ns)", "cpu_avg_ns"},
      {"Self CUDA (ns)", "self_cuda_ns"},
      {"Self CUDA %", "self_cuda_pct"},
      {"CUDA total (ns)", "cuda_total_ns"},
      {"CUDA time avg (ns)", "cuda_avg_ns"},
      {"CPU Mem (B)", "cpu_mem_bytes"},
      {"Self CPU Mem (B)", "self_cpu_mem_bytes"},
      {"CUDA Mem (B)", "cuda_mem_bytes"},
      {"Self CUDA Mem (B)", "self_cuda_mem_bytes"},
      {"# of Calls", "calls"},
      {"GPU", "is_gpu"},
      {"Top Level", "top_level"},
      {"Input Shapes", "input_shapes", CellType::kString},
      {"Source Location", "stack", CellType::kStringList},
  };
  for (const KeyAverage& r : rows) {
    const double count = r.count ? static_cast<double>(r.count) : 1.0;
    std::string stack;
    for (size_t i = 0; i < r.stack.size(); ++i) {
      if (i) stack += ViewTable::kListSeparator;
      stack += r.stack[i];
    }
    t.rows.push_back({r.key,
                      percent(r.self_cpu_ns, totals.self_cpu_ns),
                      std::to_string(r.self_cpu_ns),
                      percent(r.cpu_total_ns, totals.self_cpu_ns),
                      std::to_string(r.cpu_total_ns),
                      decimal(static_cast<double>(r.cpu_total_ns) / count),
                      std::to_string(r.self_cuda_ns),
                      percent(r.self_cuda_ns, totals.self_cuda_ns),
                      std::to_string(r.cuda_total_ns),
                      decimal(static_cast<double>(r.cuda_total_ns) / count),
                      std::to_string(r.cpu_mem_bytes),
                      std::to_string(r.self_cpu_mem_bytes),
                      std::to_string(r.cuda_mem_bytes),
                      std::to_string(r.self_cuda_mem_bytes),
                      std::to_string(r.count),
                      r.is_gpu ? "true" : "false",
                      r.top_level ? "true" : "false",
                      r.input_shapes,
                      stack});
  }
  return t;
}

}  // namespace prof::analyzer
