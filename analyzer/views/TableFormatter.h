#pragma once
// torch's key_averages().table() layout (profiler_util._build_table): every
// cell right-aligned to its width plus two spaces, 12-wide numeric columns,
// a Name column min(longest + 4, 55) wide with names of 52 characters or
// more cut to 52 plus "...", CUDA columns only when some row has self CUDA
// time, then the "Self CPU time total" footer(s).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "views/KeyAverages.h"
#include "views/TimeFormat.h"

namespace prof::analyzer {

struct TableOptions {
  std::optional<std::string> sortBy;  // a sortKeyNames() key; none: first occurrence
  int64_t rowLimit = 100;             // torch's default; -1: all, 0: none
  TimeUnit timeUnit = TimeUnit::kAuto;
};

class TableFormatter {
 public:
  static constexpr size_t kMaxNameWidth = 55;
  static constexpr size_t kColumnWidth = 12;

  explicit TableFormatter(TableOptions options) : options_(std::move(options)) {}

  std::string format(std::vector<KeyAverage> rows) const;

 private:
  TableOptions options_;
};

// Length in characters (UTF-8 code points), as Python's len() counts.
size_t displayLength(const std::string& text);
// torch's name cut: 52 or more characters -> the first 52 and "...".
std::string truncateName(const std::string& name);

}  // namespace prof::analyzer
