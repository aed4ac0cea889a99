#include "views/view_table.h"

#include "views/text_escape.h"

namespace prof::analyzer {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(ViewTable::kListSeparator, start);
    items.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return items;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_header(const ViewTable& table) {
  std::string out = "Window";
  for (const ViewColumn& c : table.columns) {
    out += ',';
    out += csv_field(c.csv_header);
  }
  return out + "\n";
}

std::string csv_rows(const ViewTable& table, const std::string& window) {
  std::string out;
  for (const auto& row : table.rows) {
    out += csv_field(window);
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cell = row[i];
      if (table.columns[i].type == CellType::kStringList)
        for (char& c : cell)
          if (c == ViewTable::kListSeparator) c = ';';
      out += ',';
      out += table.columns[i].type == CellType::kNumber ? cell : csv_field(cell);
    }
    out += "\n";
  }
  return out;
}

std::string json_rows(const ViewTable& table) {
  std::string out = "[";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    out += r ? ",{" : "{";
    for (size_t i = 0; i < table.columns.size(); ++i) {
      const ViewColumn& c = table.columns[i];
      if (i) out += ',';
      out += json_string(c.json_key);
      out += ':';
      const std::string& cell = table.rows[r][i];
      if (c.type == CellType::kNumber) {
        out += cell.empty() ? "null" : cell;
      } else if (c.type == CellType::kString) {
        out += json_string(cell);
      } else {
        out += "[";
        const auto items = split_list(cell);
        for (size_t k = 0; k < items.size(); ++k) {
          if (k) out += ',';
          out += json_string(items[k]);
        }
        out += "]";
      }
    }
    out += "}";
  }
  return out + "]";
}

}  // namespace prof::analyzer
