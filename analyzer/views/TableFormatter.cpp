#include "views/TableFormatter.h"

#include <algorithm>

#include "views/SortKey.h"

namespace prof::analyzer {
namespace {

constexpr const char* kSpacing = "  ";

bool isContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; }

void appendRightAligned(std::string& line, const std::string& cell, size_t width) {
  const size_t length = displayLength(cell);
  if (length < width) line.append(width - length, ' ');
  line += cell;
  line += kSpacing;
}

}  // namespace

size_t displayLength(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) { return !isContinuationByte(c); }));
}

std::string truncateName(const std::string& name) {
  constexpr size_t kKeep = TableFormatter::kMaxNameWidth - 3;
  if (displayLength(name) < kKeep) return name;
  size_t chars = 0;
  size_t end = 0;
  while (end < name.size()) {
    if (!isContinuationByte(name[end])) {
      if (chars == kKeep) break;
      ++chars;
    }
    ++end;
  }
  return name.substr(0, end) + "...";
}

std::string TableFormatter::format(std::vector<KeyAverage> rows) const {
  if (options_.sortBy) sortRows(rows, *options_.sortBy);

  size_t longest = 0;
  uint64_t sumSelfCpuNs = 0;
  uint64_t sumSelfCudaNs = 0;
  bool hasCuda = false;
  for (const KeyAverage& row : rows) {
    longest = std::max(longest, displayLength(row.key));
    sumSelfCpuNs += row.selfCpuNs;
    // Self CUDA % divides by GPU rows only: a CPU row's self CUDA time is
    // the same GPU work again, seen from its launch.
    if (row.isGpu) sumSelfCudaNs += row.selfCudaNs;
    hasCuda = hasCuda || row.selfCudaNs > 0;
  }
  const size_t nameWidth = std::min(longest + 4, kMaxNameWidth);

  std::vector<std::string> headers = {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"};
  if (hasCuda)
    for (const char* h : {"Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"}) headers.emplace_back(h);
  headers.emplace_back("# of Calls");

  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i) appendRightAligned(out, cells[i], i == 0 ? nameWidth : kColumnWidth);
    return out + "\n";
  };
  std::string separator = std::string(nameWidth, '-') + kSpacing;
  for (size_t i = 1; i < headers.size(); ++i) separator += std::string(kColumnWidth, '-') + kSpacing;
  separator += "\n";

  const TimeUnit unit = options_.timeUnit;
  auto time = [unit](double ns) { return formatTime(ns / 1000.0, unit); };
  auto share = [](uint64_t part, uint64_t total) {
    return formatShare(static_cast<double>(part), static_cast<double>(total));
  };

  std::string out = separator + line(headers) + separator;
  int64_t printed = 0;
  for (const KeyAverage& row : rows) {
    if (printed == options_.rowLimit) break;  // -1 never matches: all rows
    ++printed;
    const double count = static_cast<double>(row.count);
    std::vector<std::string> cells = {truncateName(row.key),
                                      share(row.selfCpuNs, sumSelfCpuNs),
                                      time(static_cast<double>(row.selfCpuNs)),
                                      share(row.cpuTotalNs, sumSelfCpuNs),
                                      time(static_cast<double>(row.cpuTotalNs)),
                                      time(static_cast<double>(row.cpuTotalNs) / count)};
    if (hasCuda) {
      cells.push_back(time(static_cast<double>(row.selfCudaNs)));
      cells.push_back(share(row.selfCudaNs, sumSelfCudaNs));
      cells.push_back(time(static_cast<double>(row.cudaTotalNs)));
      cells.push_back(time(static_cast<double>(row.cudaTotalNs) / count));
    }
    cells.push_back(std::to_string(row.count));
    out += line(cells);
  }
  out += separator;
  out += "Self CPU time total: " + time(static_cast<double>(sumSelfCpuNs)) + "\n";
  if (hasCuda) out += "Self CUDA time total: " + time(static_cast<double>(sumSelfCudaNs)) + "\n";
  return out;
}

}  // namespace prof::analyzer
