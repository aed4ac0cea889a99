#pragma once
// torch's key_averages().table() layout (profiler_util._build_table): every
// cell right-aligned to its width plus two spaces, 12-wide numeric columns,
// a Name column min(longest + 4, 55) wide with names of 52 characters or
// more cut to 52 plus "...", CUDA columns only when some row has self CUDA
// time, memory columns when the run recorded memory, Input Shapes and the
// left-aligned Source Location when grouping by them, then the
// "Self CPU time total" footer(s).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "views/key_averages.h"
#include "views/time_format.h"

namespace prof::analyzer {

struct TableOptions {
  std::optional<std::string> sort_by;  // a sort_key_names() key; none: first occurrence
  int64_t row_limit = 100;             // torch's default; -1: all, 0: none
  TimeUnit time_unit = TimeUnit::kAuto;
  bool top_level_only = false;          // hidden rows do not count toward row_limit
  bool show_cpu_memory = false;         // CPU Mem, Self CPU Mem
  bool show_cuda_memory = false;        // CUDA Mem, Self CUDA Mem
  bool show_input_shapes = false;
  bool show_stacks = false;            // Source Location
};

// Sums over every row (printed or not), as torch's footers and shares use.
struct TableTotals {
  uint64_t self_cpu_ns = 0;
  uint64_t self_cuda_ns = 0;  // GPU rows only: a CPU row's self CUDA is the same work again
  bool has_cuda = false;     // some row has self CUDA time: the CUDA columns show
};
TableTotals table_totals(const std::vector<KeyAverage>& rows);

// The rows to print, in order: sorted, top-level filtered, row-limited.
std::vector<KeyAverage> select_rows(std::vector<KeyAverage> rows, const TableOptions& options);

class TableFormatter {
 public:
  static constexpr size_t kMaxNameWidth = 55;
  static constexpr size_t kMaxShapesWidth = 80;
  static constexpr size_t kMaxSourceWidth = 75;
  static constexpr size_t kColumnWidth = 12;

  explicit TableFormatter(TableOptions options) : options_(std::move(options)) {}

  std::string format(std::vector<KeyAverage> rows) const;

 private:
  TableOptions options_;
};

// Length in characters (UTF-8 code points), as Python's len() counts.
size_t display_length(const std::string& text);
// torch's name cut: 52 or more characters -> the first 52 and "...".
std::string truncate_name(const std::string& name);
// torch's trim_path: longer than width -> the last `width` characters with
// the first three replaced by "...".
std::string trim_source_path(const std::string& path, size_t width);

}  // namespace prof::analyzer
