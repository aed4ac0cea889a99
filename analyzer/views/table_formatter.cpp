#include "views/table_formatter.h"

#include <algorithm>

#include "views/memory_format.h"
#include "views/sort_key.h"

namespace prof::analyzer {
namespace {

constexpr const char* kSpacing = "  ";

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

void append_aligned(std::string& line, const std::string& cell, size_t width, bool left) {
  const size_t length = display_length(cell);
  if (!left && length < width) line.append(width - length, ' ');
  line += cell;
  if (left && length < width) line.append(width - length, ' ');
  line += kSpacing;
}

// The byte offset after the first `chars` code points of text.
size_t byte_offset(const std::string& text, size_t chars) {
  size_t seen = 0;
  size_t end = 0;
  while (end < text.size()) {
    if (!is_continuation_byte(text[end])) {
      if (seen == chars) break;
      ++seen;
    }
    ++end;
  }
  return end;
}

}  // namespace

size_t display_length(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation_byte(c); }));
}

std::string truncate_name(const std::string& name) {
  constexpr size_t kKeep = TableFormatter::kMaxNameWidth - 3;
  if (display_length(name) < kKeep) return name;
  return name.substr(0, byte_offset(name, kKeep)) + "...";
}

std::string trim_source_path(const std::string& path, size_t width) {
  const size_t length = display_length(path);
  if (length <= width) return path;
  std::string tail = path.substr(byte_offset(path, length - width));
  if (display_length(tail) > 3) tail = "..." + tail.substr(byte_offset(tail, 3));
  return tail;
}

TableTotals table_totals(const std::vector<KeyAverage>& rows) {
  TableTotals t;
  for (const KeyAverage& row : rows) {
    t.self_cpu_ns += row.self_cpu_ns;
    if (row.is_gpu) t.self_cuda_ns += row.self_cuda_ns;
    t.has_cuda = t.has_cuda || row.self_cuda_ns > 0;
  }
  return t;
}

std::vector<KeyAverage> select_rows(std::vector<KeyAverage> rows, const TableOptions& options) {
  if (options.sort_by) sort_rows(rows, *options.sort_by);
  std::vector<KeyAverage> out;
  for (KeyAverage& row : rows) {
    if (static_cast<int64_t>(out.size()) == options.row_limit) break;  // -1 never matches: all rows
    if (options.top_level_only && !row.top_level) continue;
    out.push_back(std::move(row));
  }
  return out;
}

std::string TableFormatter::format(std::vector<KeyAverage> rows) const {
  const TableTotals totals = table_totals(rows);
  // Widths come from every row, printed or not, as torch's do.
  size_t longest = 0;
  size_t longest_shape = 0;
  size_t longest_frame = 0;
  for (const KeyAverage& row : rows) {
    longest = std::max(longest, display_length(row.key));
    longest_shape = std::max(longest_shape, display_length(row.input_shapes));
    for (const std::string& frame : row.stack) longest_frame = std::max(longest_frame, display_length(frame));
  }
  const size_t name_width = std::min(longest + 4, kMaxNameWidth);
  const size_t shapes_width = std::min(longest_shape + 4, kMaxShapesWidth);
  const size_t source_width = std::min(longest_frame + 4, kMaxSourceWidth);
  const bool has_cuda = totals.has_cuda;

  std::vector<std::string> headers = {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
  if (has_cuda)
    for (const char* h : {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"}) headers.emplace_back(h);
  if (options_.show_cpu_memory)
    for (const char* h : {"CPU Mem", "Self CPU Mem"}) headers.emplace_back(h);
  if (options_.show_cuda_memory)
    for (const char* h : {"CUDA Mem", "Self CUDA Mem"}) headers.emplace_back(h);
  headers.emplace_back("# of Calls");
  if (options_.show_input_shapes) headers.emplace_back("Input Shapes");
  if (options_.show_stacks) headers.emplace_back("Source Location");

  std::vector<size_t> widths(headers.size(), kColumnWidth);
  widths.front() = name_width;
  if (options_.show_input_shapes) widths[headers.size() - (options_.show_stacks ? 2 : 1)] = shapes_width;
  if (options_.show_stacks) widths.back() = source_width;

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i)
      append_aligned(out, cells[i], widths[i], options_.show_stacks && i + 1 == cells.size());
    return out + "\n";
  };
  std::string separator;
  for (size_t w : widths) separator += std::string(w, '-') + kSpacing;
  separator += "\n";

  const TimeUnit unit = options_.time_unit;
  auto time = [unit](double ns) { return format_time(ns / 1000.0, unit); };
  auto share = [](uint64_t part, uint64_t total) {
    return format_share(static_cast<double>(part), static_cast<double>(total));
  };

  std::string out = separator + line(headers) + separator;
  for (const KeyAverage& row : select_rows(std::move(rows), options_)) {
    const double count = static_cast<double>(row.count);
    std::vector<std::string> cells = {truncate_name(row.key),
                                      share(row.self_cpu_ns, totals.self_cpu_ns),
                                      time(static_cast<double>(row.self_cpu_ns)),
                                      share(row.cpu_total_ns, totals.self_cpu_ns),
                                      time(static_cast<double>(row.cpu_total_ns)),
                                      time(static_cast<double>(row.cpu_total_ns) / count)};
    if (has_cuda) {
      cells.push_back(time(static_cast<double>(row.self_cuda_ns)));
      cells.push_back(share(row.self_cuda_ns, totals.self_cuda_ns));
      cells.push_back(time(static_cast<double>(row.cuda_total_ns)));
      cells.push_back(time(static_cast<double>(row.cuda_total_ns) / count));
    }
    if (options_.show_cpu_memory) {
      cells.push_back(format_memory(row.cpu_mem_bytes));
      cells.push_back(format_memory(row.self_cpu_mem_bytes));
    }
    if (options_.show_cuda_memory) {
      cells.push_back(format_memory(row.cuda_mem_bytes));
      cells.push_back(format_memory(row.self_cuda_mem_bytes));
    }
    cells.push_back(std::to_string(row.count));
    if (options_.show_input_shapes) cells.push_back(row.input_shapes.substr(0, byte_offset(row.input_shapes, shapes_width)));
    if (options_.show_stacks) cells.push_back(row.stack.empty() ? "" : trim_source_path(row.stack.front(), source_width));
    out += line(cells);
    if (options_.show_stacks) {
      // torch: each further frame on a row of empty cells, then a blank row.
      std::vector<std::string> empty(headers.size(), "");
      for (size_t i = 1; i < row.stack.size(); ++i) {
        empty.back() = trim_source_path(row.stack[i], source_width);
        out += line(empty);
      }
      empty.back().clear();
      out += line(empty);
    }
  }
  out += separator;
  out += "Self CPU time total: " + time(static_cast<double>(totals.self_cpu_ns)) + "\n";
  if (has_cuda) out += "Self CUDA time total: " + time(static_cast<double>(totals.self_cuda_ns)) + "\n";
  return out;
}

}  // namespace prof::analyzer
