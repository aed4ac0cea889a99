#include "views/nsys_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>

#include "views/key_averages.h"
#include "views/number_format.h"

namespace prof::analyzer {
namespace {

// nsys's Operation names (cuda_gpu_mem_time_sum).
std::string memory_operation(const Run& run, const GpuActivity& g) {
  if (g.kind == GpuKind::kMemset) return "[CUDA memset]";
  switch (run.transfer(g).copy_kind) {
    case CopyKind::kHostToDevice: return "[CUDA memcpy Host-to-Device]";
    case CopyKind::kDeviceToHost: return "[CUDA memcpy Device-to-Host]";
    case CopyKind::kHostToHost: return "[CUDA memcpy Host-to-Host]";
    case CopyKind::kDeviceToDevice: return "[CUDA memcpy Device-to-Device]";
    case CopyKind::kPeerToPeer: return "[CUDA memcpy Peer-to-Peer]";
    default: return "[CUDA memcpy Unknown]";
  }
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

const char* count_header(NsysView view) {
  switch (view) {
    case NsysView::kApi: return "Num Calls";
    case NsysView::kMemcpy: return "Count";
    default: return "Instances";
  }
}

const char* name_header(NsysView view) {
  switch (view) {
    case NsysView::kMemcpy: return "Operation";
    case NsysView::kNvtx: return "Range";
    default: return "Name";
  }
}

}  // namespace

std::optional<NsysView> parse_nsys_view(const std::string& text) {
  if (text == "kernels") return NsysView::kKernels;
  if (text == "api") return NsysView::kApi;
  if (text == "memcpy") return NsysView::kMemcpy;
  if (text == "nvtx") return NsysView::kNvtx;
  return std::nullopt;
}

std::vector<NsysRow> nsys_summary(const Run& run, NsysView view) {
  // (style, name) -> durations, in first-seen order for stable ties.
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<NsysRow> rows;
  std::vector<std::vector<uint64_t>> durations;
  auto row_of = [&](const std::string& style, const std::string& name) {
    auto [it, inserted] = index.try_emplace({style, name}, rows.size());
    if (inserted) {
      rows.push_back(NsysRow{name, style});
      durations.emplace_back();
    }
    return it->second;
  };
  auto add = [&](const std::string& style, const std::string& name, uint64_t ns) {
    durations[row_of(style, name)].push_back(ns);
  };
  // A kernel's or an API call's row is its name's: each NameId's row is
  // looked up by text once, where building and comparing the (style, name)
  // key per record was 60% of the kernels' table (173 of 288 M instructions
  // at 1M events, html's longest stage beside the flame graphs). The rows
  // are found and counted in a first pass, so that each list is allocated
  // once at its size: grown by doubling, the kernels' lists held up to
  // twice their 8 bytes a kernel beside the flame graphs.
  // 4 bytes a name: a run's names already take 32 or more each.
  constexpr uint32_t kNoRow = UINT32_MAX;
  std::vector<uint32_t> row_of_name;
  auto each_named = [&](auto&& add_named) {
    if (view == NsysView::kKernels) {
      for (const GpuActivity& g : run.gpu_activities)
        if (g.kind == GpuKind::kKernel) add_named(g.name, g.duration_ns());
    } else {
      for (const CpuEvent& e : run.cpu_events)
        if (e.kind == CpuEventKind::kApiCall) add_named(e.name, e.duration_ns());
    }
  };
  if (view == NsysView::kKernels || view == NsysView::kApi) {
    row_of_name.assign(run.name_count(), kNoRow);
    std::vector<size_t> counts;
    each_named([&](NameId name, uint64_t) {
      uint32_t& row = row_of_name[name];
      if (row == kNoRow) {
        row = static_cast<uint32_t>(row_of("", run.name(name)));
        counts.resize(rows.size());
      }
      ++counts[row];
    });
    for (size_t i = 0; i < rows.size(); ++i) durations[i].reserve(counts[i]);
    each_named([&](NameId name, uint64_t ns) { durations[row_of_name[name]].push_back(ns); });
  } else if (view == NsysView::kMemcpy) {
    for (const GpuActivity& g : run.gpu_activities)
      if (g.kind != GpuKind::kKernel) add("", memory_operation(run, g), g.duration_ns());
  } else {
    for (const CpuEvent& e : run.cpu_events) {
      if (e.kind == CpuEventKind::kApiCall) continue;
      // nsys names ranges as given (no ProfilerStep* folding), with their domain.
      const std::string name = e.nvtx_domain() == Run::kNoName ? run.name(e.name) : run.name(e.nvtx_domain()) + ":" + run.name(e.name);
      add(e.kind == CpuEventKind::kStartEndRange ? "StartEnd" : "PushPop", name, e.duration_ns());
    }
  }
  uint64_t grand = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& d = durations[i];
    std::sort(d.begin(), d.end());
    NsysRow& r = rows[i];
    r.count = d.size();
    for (uint64_t x : d) r.total_ns += x;
    r.min_ns = d.front();
    r.max_ns = d.back();
    r.avg_ns = static_cast<double>(r.total_ns) / static_cast<double>(r.count);
    const size_t mid = d.size() / 2;
    r.median_ns = d.size() % 2 ? static_cast<double>(d[mid]) : (static_cast<double>(d[mid - 1]) + static_cast<double>(d[mid])) / 2.0;
    if (d.size() > 1) {
      double sq = 0;
      for (uint64_t x : d) sq += (static_cast<double>(x) - r.avg_ns) * (static_cast<double>(x) - r.avg_ns);
      r.stddev_ns = std::sqrt(sq / static_cast<double>(d.size() - 1));
    }
    grand += r.total_ns;
  }
  for (NsysRow& r : rows) r.percent = grand ? static_cast<double>(r.total_ns) * 100.0 / static_cast<double>(grand) : 0.0;
  std::stable_sort(rows.begin(), rows.end(), [](const NsysRow& a, const NsysRow& b) { return a.total_ns > b.total_ns; });
  return rows;
}

std::string format_nsys_summary(const std::vector<NsysRow>& rows, NsysView view) {
  std::vector<std::string> headers = {"Time (%)", "Total Time (ns)", count_header(view), "Avg (ns)", "Med (ns)",
                                      "Min (ns)", "Max (ns)", "StdDev (ns)"};
  if (view == NsysView::kNvtx) headers.emplace_back("Style");
  headers.emplace_back(name_header(view));
  std::vector<std::vector<std::string>> cells;
  for (const NsysRow& r : rows) {
    std::vector<std::string> c = {fixed(r.percent, 1),
                                  with_commas(std::to_string(r.total_ns)),
                                  with_commas(std::to_string(r.count)),
                                  with_commas(fixed(r.avg_ns, 1)),
                                  with_commas(fixed(r.median_ns, 1)),
                                  with_commas(std::to_string(r.min_ns)),
                                  with_commas(std::to_string(r.max_ns)),
                                  with_commas(fixed(r.stddev_ns, 1))};
    if (view == NsysView::kNvtx) c.push_back(r.style);
    c.push_back(r.name);
    cells.push_back(std::move(c));
  }
  std::vector<size_t> widths;
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& c : cells)
    for (size_t i = 0; i < c.size(); ++i) widths[i] = std::max(widths[i], c[i].size());
  // Text columns (Style, Name) are left-aligned, numbers right-aligned.
  const size_t first_text = 8;
  auto line = [&](const std::vector<std::string>& c) {
    std::string out;
    for (size_t i = 0; i < c.size(); ++i) {
      out += i ? "  " : " ";
      const std::string pad(widths[i] - c[i].size(), ' ');
      if (i >= first_text) {
        out += c[i];
        if (i + 1 < c.size()) out += pad;
      } else {
        out += pad + c[i];
      }
    }
    return out + "\n";
  };
  std::vector<std::string> dashes;
  for (size_t w : widths) dashes.emplace_back(w, '-');
  std::string out = line(headers) + line(dashes);
  for (const auto& c : cells) out += line(c);
  return out;
}

ViewTable nsys_cells(const std::vector<NsysRow>& rows, NsysView view) {
  ViewTable t;
  t.columns = {{"Time (%)", "time_pct"},    {"Total Time (ns)", "total_ns"}, {count_header(view), "instances"},
               {"Avg (ns)", "avg_ns"},      {"Med (ns)", "med_ns"},          {"Min (ns)", "min_ns"},
               {"Max (ns)", "max_ns"},      {"StdDev (ns)", "stddev_ns"}};
  if (view == NsysView::kNvtx) t.columns.push_back({"Style", "style", CellType::kString});
  t.columns.push_back({name_header(view), "name", CellType::kString});
  for (const NsysRow& r : rows) {
    std::vector<std::string> c = {fixed(r.percent, 4),          std::to_string(r.total_ns), std::to_string(r.count),
                                  fixed(r.avg_ns, 1),            fixed(r.median_ns, 1),      std::to_string(r.min_ns),
                                  std::to_string(r.max_ns),      fixed(r.stddev_ns, 1)};
    if (view == NsysView::kNvtx) c.push_back(r.style);
    c.push_back(r.name);
    t.rows.push_back(std::move(c));
  }
  return t;
}

}  // namespace prof::analyzer
