#pragma once
// A view's rows as machine-readable cells, for `--format csv` (RFC 4180) and
// `--format json`. Times are integer ns, memory integer bytes: exact, so
// tests can compare with a simulator's ground truth. The text layouts
// (torch's, nsys's) are formatted by the views themselves.
#include <string>
#include <vector>

namespace prof::analyzer {

enum class CellType {
  kNumber,      // written bare in both formats; empty: no value (json null)
  kString,      // quoted when needed (csv), always (json)
  kStringList,  // items joined by kListSeparator: ";" in csv, an array in json
};

struct ViewColumn {
  std::string csv_header;
  std::string json_key;
  CellType type = CellType::kNumber;
};

struct ViewTable {
  static constexpr char kListSeparator = '\x1f';
  std::vector<ViewColumn> columns;
  std::vector<std::vector<std::string>> rows;  // one cell per column
};

// RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled.
std::string csv_field(const std::string& text);

// The first column is the window. Lines end in "\n", not RFC 4180's CRLF:
// every CSV reader accepts it, and shell tools prefer it.
std::string csv_header(const ViewTable& table);
std::string csv_rows(const ViewTable& table, const std::string& window);
// `[{...},{...}]`, one object per row.
std::string json_rows(const ViewTable& table);

}  // namespace prof::analyzer
