#include "views/module_tree.h"

#include <algorithm>
#include <map>

#include "model/torch_ranges.h"

namespace prof::analyzer {
namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";

struct Node {
  std::string path;
  uint32_t depth = 0;
  uint64_t first_start_ns = UINT64_MAX;
  ModuleRow sums;
  std::map<std::pair<uint64_t, std::string>, size_t> children;  // (first start, path) -> node, filled at the end
};

}  // namespace

std::vector<ModuleRow> module_tree(const Run& run, const RangeTree& tree) {
  const TorchRanges torch(run);
  auto is_module = [&](size_t i) {
    const CpuEvent& e = run.cpu_events[i];
    return e.kind == CpuEventKind::kPushPopRange && e.nvtx_domain() == Run::kNoName &&
           torch.of(e.name).kind == TorchRangeKind::kModule;
  };
  // Node 0 is the root; a node per (parent node, module path).
  std::vector<Node> nodes(1);
  std::map<std::pair<size_t, std::string>, size_t> node_of;
  std::vector<int64_t> node_of_event(run.cpu_events.size(), -1);
  // Parents before children: by start, the longer first, as the tree nests.
  std::vector<size_t> order;
  for (size_t i = 0; i < run.cpu_events.size(); ++i)
    if (is_module(i)) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const CpuEvent& x = run.cpu_events[a];
    const CpuEvent& y = run.cpu_events[b];
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;
    return a < b;
  });
  for (size_t i : order) {
    size_t parent = 0;
    for (int64_t p = tree.parent(i); p != RangeTree::kNoParent; p = tree.parent(static_cast<size_t>(p)))
      if (node_of_event[static_cast<size_t>(p)] >= 0) {
        parent = static_cast<size_t>(node_of_event[static_cast<size_t>(p)]);
        break;
      }
    const CpuEvent& e = run.cpu_events[i];
    std::string path = torch.of(e.name).name.substr(kModulePrefix.size());
    auto [it, added] = node_of.try_emplace({parent, path}, nodes.size());
    if (added) {
      Node node;
      node.path = path;
      node.depth = nodes[parent].depth + (parent == 0 ? 0 : 1);
      node.first_start_ns = e.start_ns;
      nodes.push_back(std::move(node));
      nodes[parent].children.emplace(std::make_pair(e.start_ns, std::move(path)), it->second);
    }
    node_of_event[i] = static_cast<int64_t>(it->second);
    ModuleRow& sums = nodes[it->second].sums;
    ++sums.calls;
    sums.cpu_total_ns += e.duration_ns();
    sums.cuda_total_ns += tree.gpu_total_ns(i);
  }
  std::vector<ModuleRow> rows;
  std::vector<size_t> stack;
  for (auto it = nodes[0].children.rbegin(); it != nodes[0].children.rend(); ++it) stack.push_back(it->second);
  while (!stack.empty()) {
    const size_t n = stack.back();
    stack.pop_back();
    ModuleRow row = nodes[n].sums;
    row.path = nodes[n].path;
    row.depth = nodes[n].depth;
    rows.push_back(std::move(row));
    for (auto it = nodes[n].children.rbegin(); it != nodes[n].children.rend(); ++it) stack.push_back(it->second);
  }
  return rows;
}

std::string format_module_tree(const std::vector<ModuleRow>& rows, TimeUnit unit) {
  if (rows.empty()) return "no module ranges (\"nn.Module: <path>\") in this run\n";
  const std::vector<std::string> headers = {"Module", "# of Calls", "CPU total", "CPU time avg", "CUDA total", "CUDA time avg"};
  std::vector<std::vector<std::string>> cells;
  for (const ModuleRow& r : rows) {
    // Averages as torch's table makes them: in microseconds, not rounded to a ns first.
    const double calls = static_cast<double>(std::max<uint64_t>(r.calls, 1));
    const auto avg_us = [&](uint64_t ns) { return format_time(static_cast<double>(ns) / 1000.0 / calls, unit); };
    cells.push_back({std::string(2 * r.depth, ' ') + r.path, std::to_string(r.calls), format_time_ns(r.cpu_total_ns, unit),
                     avg_us(r.cpu_total_ns), format_time_ns(r.cuda_total_ns, unit), avg_us(r.cuda_total_ns)});
  }
  std::vector<size_t> widths;
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& c : cells)
    for (size_t i = 0; i < c.size(); ++i) widths[i] = std::max(widths[i], c[i].size());
  // The tree column left-aligned, numbers right-aligned, two spaces after
  // each cell as torch's table.
  auto line = [&](const std::vector<std::string>& c) {
    std::string out;
    for (size_t i = 0; i < c.size(); ++i) {
      const std::string pad(widths[i] - c[i].size(), ' ');
      out += i == 0 ? c[i] + pad : pad + c[i];
      out += "  ";
    }
    return out + "\n";
  };
  std::string separator;
  for (size_t w : widths) separator += std::string(w, '-') + "  ";
  separator += "\n";
  std::string out = separator + line(headers) + separator;
  for (const auto& c : cells) out += line(c);
  return out + separator;
}

ViewTable module_tree_cells(const std::vector<ModuleRow>& rows) {
  ViewTable t;
  t.columns = {{"Module", "name", CellType::kString},
               {"Depth", "depth", CellType::kNumber},
               {"Calls", "calls", CellType::kNumber},
               {"CPU total (ns)", "cpu_total_ns", CellType::kNumber},
               {"CUDA total (ns)", "cuda_total_ns", CellType::kNumber}};
  for (const ModuleRow& r : rows)
    t.rows.push_back({r.path, std::to_string(r.depth), std::to_string(r.calls), std::to_string(r.cpu_total_ns),
                      std::to_string(r.cuda_total_ns)});
  return t;
}

}  // namespace prof::analyzer
