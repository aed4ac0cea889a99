#include "views/TableFormatter.h"

#include <algorithm>

#include "views/MemoryFormat.h"
#include "views/SortKey.h"

namespace prof::analyzer {
namespace {

constexpr const char* kSpacing = "  ";

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

void appendAligned(std::string& line, const std::string& cell, size_t width, bool left) {
  const size_t length = displayLength(cell);
  if (!left && length < width) line.append(width - length, ' ');
  line += cell;
  if (left && length < width) line.append(width - length, ' ');
  line += kSpacing;
}

// The byte offset after the first `chars` code points of text.
size_t byteOffset(const std::string& text, size_t chars) {
  size_t seen = 0;
  size_t end = 0;
  while (end < text.size()) {
    if (!isContinuationByte(text[end])) {
      if (seen == chars) break;
      ++seen;
    }
    ++end;
  }
  return end;
}

}  // namespace

size_t displayLength(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return !isContinuationByte(c); }));
}

std::string truncateName(const std::string& name) {
  constexpr size_t kKeep = TableFormatter::kMaxNameWidth - 3;
  if (displayLength(name) < kKeep) return name;
  return name.substr(0, byteOffset(name, kKeep)) + "...";
}

std::string trimSourcePath(const std::string& path, size_t width) {
  const size_t length = displayLength(path);
  if (length <= width) return path;
  std::string tail = path.substr(byteOffset(path, length - width));
  if (displayLength(tail) > 3) tail = "..." + tail.substr(byteOffset(tail, 3));
  return tail;
}

TableTotals tableTotals(const std::vector<KeyAverage>& rows) {
  TableTotals t;
  for (const KeyAverage& row : rows) {
    t.selfCpuNs += row.selfCpuNs;
    if (row.isGpu) t.selfCudaNs += row.selfCudaNs;
    t.hasCuda = t.hasCuda || row.selfCudaNs > 0;
  }
  return t;
}

std::vector<KeyAverage> selectRows(std::vector<KeyAverage> rows, const TableOptions& options) {
  if (options.sortBy) sortRows(rows, *options.sortBy);
  std::vector<KeyAverage> out;
  for (KeyAverage& row : rows) {
    if (static_cast<int64_t>(out.size()) == options.rowLimit) break;  // -1 never matches: all rows
    if (options.topLevelOnly && !row.topLevel) continue;
    out.push_back(std::move(row));
  }
  return out;
}

std::string TableFormatter::format(std::vector<KeyAverage> rows) const {
  const TableTotals totals = tableTotals(rows);
  // Widths come from every row, printed or not, as torch's do.
  size_t longest = 0;
  size_t longestShape = 0;
  size_t longestFrame = 0;
  for (const KeyAverage& row : rows) {
    longest = std::max(longest, displayLength(row.key));
    longestShape = std::max(longestShape, displayLength(row.inputShapes));
    for (const std::string& frame : row.stack) longestFrame = std::max(longestFrame, displayLength(frame));
  }
  const size_t nameWidth = std::min(longest + 4, kMaxNameWidth);
  const size_t shapesWidth = std::min(longestShape + 4, kMaxShapesWidth);
  const size_t sourceWidth = std::min(longestFrame + 4, kMaxSourceWidth);
  const bool hasCuda = totals.hasCuda;

  std::vector<std::string> headers = {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
  if (hasCuda)
    for (const char* h : {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"}) headers.emplace_back(h);
  if (options_.showCpuMemory)
    for (const char* h : {"CPU Mem", "Self CPU Mem"}) headers.emplace_back(h);
  if (options_.showCudaMemory)
    for (const char* h : {"CUDA Mem", "Self CUDA Mem"}) headers.emplace_back(h);
  headers.emplace_back("# of Calls");
  if (options_.showInputShapes) headers.emplace_back("Input Shapes");
  if (options_.showStacks) headers.emplace_back("Source Location");

  std::vector<size_t> widths(headers.size(), kColumnWidth);
  widths.front() = nameWidth;
  if (options_.showInputShapes) widths[headers.size() - (options_.showStacks ? 2 : 1)] = shapesWidth;
  if (options_.showStacks) widths.back() = sourceWidth;

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i)
      appendAligned(out, cells[i], widths[i], options_.showStacks && i + 1 == cells.size());
    return out + "\n";
  };
  std::string separator;
  for (size_t w : widths) separator += std::string(w, '-') + kSpacing;
  separator += "\n";

  const TimeUnit unit = options_.timeUnit;
  auto time = [unit](double ns) { return formatTime(ns / 1000.0, unit); };
  auto share = [](uint64_t part, uint64_t total) {
    return formatShare(static_cast<double>(part), static_cast<double>(total));
  };

  std::string out = separator + line(headers) + separator;
  for (const KeyAverage& row : selectRows(std::move(rows), options_)) {
    const double count = static_cast<double>(row.count);
    std::vector<std::string> cells = {truncateName(row.key),
                                      share(row.selfCpuNs, totals.selfCpuNs),
                                      time(static_cast<double>(row.selfCpuNs)),
                                      share(row.cpuTotalNs, totals.selfCpuNs),
                                      time(static_cast<double>(row.cpuTotalNs)),
                                      time(static_cast<double>(row.cpuTotalNs) / count)};
    if (hasCuda) {
      cells.push_back(time(static_cast<double>(row.selfCudaNs)));
      cells.push_back(share(row.selfCudaNs, totals.selfCudaNs));
      cells.push_back(time(static_cast<double>(row.cudaTotalNs)));
      cells.push_back(time(static_cast<double>(row.cudaTotalNs) / count));
    }
    if (options_.showCpuMemory) {
      cells.push_back(formatMemory(row.cpuMemBytes));
      cells.push_back(formatMemory(row.selfCpuMemBytes));
    }
    if (options_.showCudaMemory) {
      cells.push_back(formatMemory(row.cudaMemBytes));
      cells.push_back(formatMemory(row.selfCudaMemBytes));
    }
    cells.push_back(std::to_string(row.count));
    if (options_.showInputShapes) cells.push_back(row.inputShapes.substr(0, byteOffset(row.inputShapes, shapesWidth)));
    if (options_.showStacks) cells.push_back(row.stack.empty() ? "" : trimSourcePath(row.stack.front(), sourceWidth));
    out += line(cells);
    if (options_.showStacks) {
      // torch: each further frame on a row of empty cells, then a blank row.
      std::vector<std::string> empty(headers.size(), "");
      for (size_t i = 1; i < row.stack.size(); ++i) {
        empty.back() = trimSourcePath(row.stack[i], sourceWidth);
        out += line(empty);
      }
      empty.back().clear();
      out += line(empty);
    }
  }
  out += separator;
  out += "Self CPU time total: " + time(static_cast<double>(totals.selfCpuNs)) + "\n";
  if (hasCuda) out += "Self CUDA time total: " + time(static_cast<double>(totals.selfCudaNs)) + "\n";
  return out;
}

}  // namespace prof::analyzer
