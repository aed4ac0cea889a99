#include "views/tensor_memory.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <tuple>

#include "views/memory_format.h"

namespace prof::analyzer {
namespace {

// Push/pop ranges of one thread sorted by start: the innermost range open
// at a time is the latest-starting one that has not ended (they nest).
class ThreadRanges {
 public:
  explicit ThreadRanges(const Run& run) {
    for (size_t i = 0; i < run.cpu_events.size(); ++i) {
      const CpuEvent& e = run.cpu_events[i];
      if (e.kind == CpuEventKind::kPushPopRange) by_thread_[{e.process, e.tid}].push_back(i);
    }
    for (auto& [key, list] : by_thread_)
      std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
        return run.cpu_events[a].start_ns < run.cpu_events[b].start_ns;
      });
  }

  const CpuEvent* innermost(const Run& run, uint32_t process, uint32_t tid, uint64_t time_ns) const {
    auto it = by_thread_.find({process, tid});
    if (it == by_thread_.end()) return nullptr;
    const std::vector<size_t>& list = it->second;
    auto after = std::upper_bound(list.begin(), list.end(), time_ns,
                                  [&](uint64_t t, size_t i) { return t < run.cpu_events[i].start_ns; });
    while (after != list.begin()) {
      --after;
      const CpuEvent& e = run.cpu_events[*after];
      if (e.end_ns >= time_ns) return &e;
    }
    return nullptr;
  }

 private:
  std::map<std::pair<uint32_t, uint32_t>, std::vector<size_t>> by_thread_;
};

std::string millis(uint64_t ns) {
  char text[32];
  snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e6);
  return text;
}

// The leaf Python frame of an allocation's stack: where the program asked.
std::string python_line(const Run& run, uint32_t stack) {
  if (stack == 0 || stack > run.stacks.size()) return {};
  for (uint32_t index : run.stacks[stack - 1]) {
    const Frame& f = run.frames[index];
    if (f.kind != FrameKind::kPython) continue;
    std::string file = run.name(f.file);
    const size_t slash = file.rfind('/');
    if (slash != std::string::npos) file = file.substr(slash + 1);
    return run.name(f.function) + " (" + file + ":" + std::to_string(f.line) + ")";
  }
  return {};
}

std::string device_title(const TensorMemoryDevice& d) {
  return "process " + std::to_string(d.pid) + ", " + (d.device < 0 ? std::string("CPU") : "CUDA " + std::to_string(d.device));
}

}  // namespace

std::string holder_name(const std::string& range_name) {
  size_t cut = range_name.size();
  for (const char* suffix : {", seq = ", ", op_id = ", ", sizes = "}) cut = std::min(cut, range_name.find(suffix));
  return range_name.substr(0, cut);
}

std::vector<TensorMemoryDevice> tensor_memory(const Run& run) {
  std::map<std::pair<uint32_t, int32_t>, std::vector<const TensorMemoryEvent*>> per_device;
  for (const TensorMemoryEvent& m : run.tensor_memory_events) per_device[{m.process, m.device}].push_back(&m);
  const ThreadRanges ranges(run);
  std::vector<TensorMemoryDevice> out;
  for (auto& [key, events] : per_device) {
    std::stable_sort(events.begin(), events.end(),
                     [](const TensorMemoryEvent* a, const TensorMemoryEvent* b) { return a->time_ns < b->time_ns; });
    TensorMemoryDevice d;
    d.process = key.first;
    d.device = key.second;
    const ProcessInfo& info = run.processes[key.first];
    d.pid = info.process ? info.process->pid : 0;
    // The allocator's totals when the events carry them; else summed here.
    const bool carry_totals = std::any_of(events.begin(), events.end(), [](const TensorMemoryEvent* m) {
      return m->total_allocated != 0 || m->total_reserved != 0;
    });
    int64_t summed = 0;
    size_t peak_index = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      const TensorMemoryEvent& m = *events[i];
      summed = std::max<int64_t>(0, summed + m.signed_bytes());
      TensorMemoryPoint p{m.time_ns, carry_totals ? m.total_allocated : static_cast<uint64_t>(summed), m.total_reserved};
      d.timeline.push_back(p);
      d.peak_reserved = std::max(d.peak_reserved, p.reserved);
      if (p.allocated > d.peak.allocated) {
        d.peak = p;
        peak_index = i;
      }
    }
    // The blocks live at the peak: allocated at or before it, not freed by then.
    std::map<std::pair<int32_t, uint64_t>, const TensorMemoryEvent*> live;  // (device, address)
    for (size_t i = 0; i <= peak_index && i < events.size(); ++i) {
      const TensorMemoryEvent& m = *events[i];
      if (m.allocation) live[{m.device, m.address}] = &m;
      else live.erase({m.device, m.address});
    }
    std::map<std::pair<std::string, std::string>, TensorMemoryHolder> holders;
    for (const auto& [where, m] : live) {
      const CpuEvent* range = ranges.innermost(run, m->process, m->tid, m->time_ns);
      const std::string name = range ? holder_name(run.name(range->name)) : "(no range)";
      const std::string line = python_line(run, m->stack);
      TensorMemoryHolder& h = holders[{name, line}];
      h.held_by = name;
      h.line = line;
      h.bytes += m->bytes;
      ++h.blocks;
    }
    for (auto& [name, h] : holders) d.holders.push_back(h);
    std::stable_sort(d.holders.begin(), d.holders.end(),
                     [](const TensorMemoryHolder& a, const TensorMemoryHolder& b) { return a.bytes > b.bytes; });
    out.push_back(std::move(d));
  }
  return out;
}

std::string format_tensor_memory(const std::vector<TensorMemoryDevice>& devices, size_t samples, size_t holders) {
  if (devices.empty()) {
    return "No tensor memory recorded (PyTorch's caching allocator, PROF_TORCH=memory: torch >= 2.1 with CUDA).\n";
  }
  std::string out;
  for (const TensorMemoryDevice& d : devices) {
    if (!out.empty()) out += '\n';
    out += "Tensor memory, " + device_title(d) + ": " + std::to_string(d.timeline.size()) + " events\n";
    char line[160];
    snprintf(line, sizeof line, "%12s  %12s  %12s\n", "Time (ms)", "Allocated", "Reserved");
    out += line;
    const uint64_t t0 = d.timeline.front().time_ns;
    const size_t n = d.timeline.size();
    const size_t rows = std::min(samples, n);
    for (size_t r = 0; r < rows; ++r) {
      const size_t i = rows == 1 ? n - 1 : r * (n - 1) / (rows - 1);
      const TensorMemoryPoint& p = d.timeline[i];
      snprintf(line, sizeof line, "%12s  %12s  %12s\n", millis(p.time_ns - t0).c_str(),
               format_memory(static_cast<int64_t>(p.allocated)).c_str(),
               format_memory(static_cast<int64_t>(p.reserved)).c_str());
      out += line;
    }
    out += "Peak allocated " + format_memory(static_cast<int64_t>(d.peak.allocated)) + " at " +
           millis(d.peak.time_ns - t0) + " ms (reserved then " + format_memory(static_cast<int64_t>(d.peak.reserved)) +
           ", at most " + format_memory(static_cast<int64_t>(d.peak_reserved)) + "); held by:\n";
    snprintf(line, sizeof line, "%12s  %8s  %s\n", "Bytes", "Blocks", "Allocated in");
    out += line;
    for (size_t i = 0; i < d.holders.size() && i < holders; ++i) {
      const TensorMemoryHolder& h = d.holders[i];
      snprintf(line, sizeof line, "%12s  %8" PRIu64 "  ", format_memory(static_cast<int64_t>(h.bytes)).c_str(), h.blocks);
      out += line + h.held_by + (h.line.empty() ? "" : " at " + h.line) + '\n';
    }
    if (d.holders.size() > holders) out += "  ... " + std::to_string(d.holders.size() - holders) + " more\n";
  }
  return out;
}

ViewTable tensor_memory_cells(const std::vector<TensorMemoryDevice>& devices) {
  ViewTable t;
  t.columns = {{"Pid", "pid"},
               {"Device", "device"},
               {"Peak Time (ns)", "peak_ns"},
               {"Peak Allocated (B)", "peak_allocated"},
               {"Reserved At Peak (B)", "reserved_at_peak"},
               {"Max Reserved (B)", "max_reserved"},
               {"Held By", "held_by", CellType::kString},
               {"Line", "line", CellType::kString},
               {"Bytes", "bytes"},
               {"Blocks", "blocks"}};
  for (const TensorMemoryDevice& d : devices)
    for (const TensorMemoryHolder& h : d.holders)
      t.rows.push_back({std::to_string(d.pid), std::to_string(d.device), std::to_string(d.peak.time_ns),
                        std::to_string(d.peak.allocated), std::to_string(d.peak.reserved),
                        std::to_string(d.peak_reserved), h.held_by, h.line, std::to_string(h.bytes),
                        std::to_string(h.blocks)});
  return t;
}

}  // namespace prof::analyzer
