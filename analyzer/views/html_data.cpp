#include "views/html_data.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "views/folded_stacks.h"
#include "views/text_escape.h"

namespace prof::analyzer {
namespace {


std::string num(uint64_t v) { return std::to_string(v); }
std::string num(int64_t v) { return std::to_string(v); }

// One place that reads the recorded (protobuf-shaped) process fields, so a
// change of the model's types touches this function only.
struct ProcessFacts {
  uint32_t pid = 0;
  std::string host;
  int32_t rank = -1;
  int32_t world_size = 0;
  std::vector<std::pair<uint32_t, std::string>> devices;  // id, name
  uint64_t ring_full = 0;
  uint64_t cupti_records = 0;
  uint64_t truncated_payloads = 0;
};

ProcessFacts facts_of(const ProcessInfo& p) {
  ProcessFacts f;
  if (p.process) {
    f.pid = p.process->pid;
    f.host = p.process->hostname;
    f.rank = p.process->rank;
    f.world_size = p.process->world_size;
  }
  for (const auto& d : p.devices) f.devices.emplace_back(d.id, d.name);
  if (p.drops) {
    f.ring_full = p.drops->ring_full;
    f.cupti_records = p.drops->cupti_records;
    f.truncated_payloads = p.drops->truncated_payloads;
  }
  return f;
}

}  // namespace

std::string run_facts_json(const Run& run) {
  std::string out = "[";
  for (size_t i = 0; i < run.processes.size(); ++i) {
    const ProcessInfo& p = run.processes[i];
    const ProcessFacts f = facts_of(p);
    out += i ? ",{" : "{";
    out += "\"file\":";
    append_json_string(out, p.path);
    out += ",\"pid\":" + num(uint64_t{f.pid}) + ",\"host\":";
    append_json_string(out, f.host);
    out += ",\"rank\":" + (f.rank < 0 ? std::string("null") : num(int64_t{f.rank}));
    out += ",\"world_size\":" + num(int64_t{f.world_size});
    out += ",\"devices\":[";
    for (size_t d = 0; d < f.devices.size(); ++d) {
      out += (d ? ",{\"id\":" : "{\"id\":") + num(uint64_t{f.devices[d].first}) + ",\"name\":";
      append_json_string(out, f.devices[d].second);
      out += "}";
    }
    const uint64_t start = p.start_ns(), end = p.end_ns();
    out += "],\"start_ns\":" + num(start) + ",\"duration_ns\":" + num(end > start ? end - start : uint64_t{0});
    out += ",\"cut_short\":" + std::string(p.cut_short() ? "true" : "false");
    out += ",\"drops\":{\"ring_full\":" + num(f.ring_full) + ",\"cupti_records\":" + num(f.cupti_records) +
           ",\"truncated_payloads\":" + num(f.truncated_payloads) +
           ",\"unterminated_ranges\":" + num(p.unterminated_ranges) + "}}";
  }
  return out + "]";
}

std::string kernel_histograms_json(const Run& run, size_t bins) {
  // Two passes over the kernels, the range of each name, then its counts,
  // rather than a list of every duration per name (8 bytes per kernel, 25
  // MB at 10M events, grown by doubling beside the flame graphs).
  struct Histogram {
    uint64_t min = UINT64_MAX, max = 0;
    std::vector<uint64_t> counts;
  };
  // Each kernel name's histogram by a slot per NameId (4 bytes a name: a
  // run's names already take 32 or more each), not a map's look-up per
  // kernel; written in the ids' order, as the map was.
  constexpr uint32_t kNone = UINT32_MAX;
  std::vector<uint32_t> slot_of_name(run.name_count(), kNone);
  std::vector<Histogram> histograms;
  for (const GpuActivity& g : run.gpu_activities) {
    if (g.kind != GpuKind::kKernel) continue;
    uint32_t& slot = slot_of_name[g.name];
    if (slot == kNone) {
      slot = static_cast<uint32_t>(histograms.size());
      histograms.emplace_back();
    }
    Histogram& h = histograms[slot];
    h.min = std::min(h.min, g.duration_ns());
    h.max = std::max(h.max, g.duration_ns());
  }
  for (Histogram& h : histograms) h.counts.assign(bins, 0);
  for (const GpuActivity& g : run.gpu_activities) {
    if (g.kind != GpuKind::kKernel) continue;
    Histogram& h = histograms[slot_of_name[g.name]];
    const uint64_t min = h.min, max = h.max, v = g.duration_ns();
    const double width = max > min ? static_cast<double>(max - min) / static_cast<double>(bins) : 1.0;
    size_t b = max > min ? static_cast<size_t>(static_cast<double>(v - min) / width) : 0;
    ++h.counts[std::min(b, bins - 1)];
  }
  std::string out = "{";
  bool first = true;
  for (NameId name = 0; name < slot_of_name.size(); ++name) {
    if (slot_of_name[name] == kNone) continue;
    const Histogram& h = histograms[slot_of_name[name]];
    if (!first) out += ",";
    first = false;
    append_json_string(out, run.name(name));
    out += ":{\"min_ns\":" + num(h.min) + ",\"max_ns\":" + num(h.max) + ",\"counts\":[";
    for (size_t b = 0; b < bins; ++b) {
      if (b) out += ',';
      out += num(h.counts[b]);
    }
    out += "]}";
  }
  return out + "}";
}

std::string copy_bandwidth_json(const Run& run) {
  struct Totals {
    bool memset = false;
    uint64_t count = 0, bytes = 0, ns = 0;
  };
  std::map<NameId, Totals> by_name;
  for (const GpuActivity& g : run.gpu_activities) {
    if (g.kind == GpuKind::kKernel) continue;
    Totals& t = by_name[g.name];
    t.memset = g.kind == GpuKind::kMemset;
    ++t.count;
    t.bytes += run.transfer(g).bytes;
    t.ns += g.duration_ns();
  }
  std::vector<std::pair<NameId, Totals>> rows(by_name.begin(), by_name.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Totals& t = rows[i].second;
    out += i ? ",{\"name\":" : "{\"name\":";
    append_json_string(out, run.name(rows[i].first));
    // bytes per ns is GB/s (10^9 bytes per second).
    const double gbps = t.ns ? static_cast<double>(t.bytes) / static_cast<double>(t.ns) : 0.0;
    out += ",\"memset\":" + std::string(t.memset ? "true" : "false") + ",\"count\":" + num(t.count) +
           ",\"bytes\":" + num(t.bytes) + ",\"total_ns\":" + num(t.ns) + ",\"gbps\":" + std::to_string(gbps) + "}";
  }
  return out + "]";
}

std::string memory_json(const Run& run, const FrameNamer& namer, size_t max_points, size_t largest) {
  // (process, device) -> indices of its device memory events in time order.
  std::map<std::pair<uint32_t, uint32_t>, std::vector<size_t>> by_device;
  for (size_t i = 0; i < run.memory_events.size(); ++i) {
    const MemoryEvent& m = run.memory_events[i];
    if (m.on_device) by_device[{m.process, m.device_id}].push_back(i);
  }
  std::string out = "[";
  bool first_device = true;
  for (auto& [key, events] : by_device) {
    std::stable_sort(events.begin(), events.end(), [&](size_t a, size_t b) {
      return run.memory_events[a].time_ns < run.memory_events[b].time_ns;
    });
    const uint64_t t0 = run.memory_events[events.front()].time_ns;
    const uint64_t t1 = run.memory_events[events.back()].time_ns;
    const double bucket_ns = t1 > t0 ? static_cast<double>(t1 - t0) / static_cast<double>(max_points) : 1.0;
    // Points: (time, in use). Within a bucket only the highest value is kept.
    std::vector<std::pair<uint64_t, int64_t>> points;
    int64_t in_use = 0, peak = 0;
    uint64_t peak_ns = t0;
    size_t last_bucket = SIZE_MAX;
    for (size_t i : events) {
      const MemoryEvent& m = run.memory_events[i];
      in_use += m.signed_bytes();
      if (in_use > peak) peak = in_use, peak_ns = m.time_ns;
      const size_t bucket = static_cast<size_t>(static_cast<double>(m.time_ns - t0) / bucket_ns);
      if (bucket != last_bucket || points.empty()) {
        points.emplace_back(m.time_ns, in_use);
        last_bucket = bucket;
      } else if (in_use > points.back().second) {
        points.back().second = in_use;
      }
    }
    if (points.back().first != t1 || points.back().second != in_use) points.emplace_back(t1, in_use);  // the end state
    std::vector<size_t> allocations;
    for (size_t i : events)
      if (run.memory_events[i].allocation) allocations.push_back(i);
    std::stable_sort(allocations.begin(), allocations.end(),
                     [&](size_t a, size_t b) { return run.memory_events[a].bytes > run.memory_events[b].bytes; });
    if (allocations.size() > largest) allocations.resize(largest);

    out += first_device ? "{" : ",{";
    first_device = false;
    out += "\"process\":" + num(uint64_t{key.first}) + ",\"device\":" + num(uint64_t{key.second}) +
           ",\"peak_bytes\":" + num(peak) + ",\"peak_ns\":" + num(peak_ns) + ",\"points\":[";
    for (size_t p = 0; p < points.size(); ++p)
      out += (p ? ",[" : "[") + num(points[p].first) + "," + num(points[p].second) + "]";
    out += "],\"largest\":[";
    for (size_t a = 0; a < allocations.size(); ++a) {
      const MemoryEvent& m = run.memory_events[allocations[a]];
      out += (a ? ",{" : "{") + std::string("\"bytes\":") + num(m.bytes) + ",\"time_ns\":" + num(m.time_ns) +
             ",\"api\":";
      const CpuEvent* call = m.called_by >= 0 ? &run.cpu_events[static_cast<size_t>(m.called_by)] : nullptr;
      append_json_string(out, call ? run.name(call->name) : std::string());
      out += ",\"frames\":[";
      if (call && call->stack) {
        const std::vector<uint32_t>& stack = run.stacks[call->stack - 1];
        bool first_frame = true;
        for (uint32_t f : stack) {
          const Frame& frame = run.frames[f];
          if (frame.module >= 0 && is_cuda_or_agent_module(run.modules[static_cast<size_t>(frame.module)].path))
            continue;
          if (!first_frame) out += ",";
          first_frame = false;
          append_json_string(out, namer.name(run, frame));
        }
      }
      out += "]}";
    }
    out += "]}";
  }
  return out + "]";
}

namespace {

// The folded stacks of one metric as a tree: one node per distinct path,
// so a frame shared by many stacks is sent once.
class StackTree {
 public:
  explicit StackTree(const std::vector<FoldedStack>& stacks) {
    for (const FoldedStack& f : stacks) {
      total_ += f.ns;
      uint32_t parent = kRoot;
      std::string_view rest = f.frames;
      while (!rest.empty()) {
        const size_t cut = rest.find(';');
        const std::string_view frame = rest.substr(0, cut);
        rest = cut == std::string_view::npos ? std::string_view() : rest.substr(cut + 1);
        const uint32_t name = intern(frame);
        auto [it, added] = child_of_.try_emplace((uint64_t{parent} << 32) | name, static_cast<uint32_t>(nodes_.size()));
        if (added) {
          nodes_.push_back(Node{name, 0, {}});
          (parent == kRoot ? roots_ : nodes_[parent].children).push_back(it->second);
        }
        parent = it->second;
        nodes_[parent].value += f.ns;
      }
    }
  }

  uint64_t total() const { return total_; }

  // stack_tree_json's text (html_data.h).
  std::string json(uint64_t smallest_share, size_t max_nodes) const {
    uint64_t share = std::max<uint64_t>(1, smallest_share);
    std::vector<int64_t> out;
    std::vector<std::string> merged_names;
    while (true) {
      out.clear();
      merged_names.clear();
      emit(roots_, -1, total_ / share, out, merged_names);
      if (out.size() / 3 <= max_nodes || share < 2) break;
      share /= 2;
    }
    // Only the names of the nodes sent, numbered in order of first use.
    std::vector<int64_t> renumbered(names_.size() + merged_names.size(), -1);
    std::string names;
    int64_t used = 0;
    for (size_t i = 1; i < out.size(); i += 3) {
      int64_t& id = renumbered[static_cast<size_t>(out[i])];
      if (id < 0) {
        id = used++;
        const size_t old = static_cast<size_t>(out[i]);
        if (id) names += ",";
        append_json_string(names, old < names_.size() ? names_[old] : merged_names[old - names_.size()]);
      }
      out[i] = id;
    }
    std::string s = "{\"min_share\":" + std::to_string(share) + ",\"names\":[" + names + "],\"nodes\":[";
    for (size_t i = 0; i < out.size(); ++i) {
      if (i) s += ',';
      s += std::to_string(out[i]);
    }
    return s + "]}";
  }

 private:
  static constexpr uint32_t kRoot = UINT32_MAX;
  struct Node {
    uint32_t name;
    uint64_t value;
    std::vector<uint32_t> children;
  };

  uint32_t intern(std::string_view name) {
    auto [it, added] = name_ids_.try_emplace(std::string(name), static_cast<uint32_t>(names_.size()));
    if (added) names_.emplace_back(name);
    return it->second;
  }

  // Appends the nodes of `children` (and their subtrees) under `parent`.
  // Merged nodes get names after names_ (ids names_.size() + i).
  void emit(const std::vector<uint32_t>& children, int64_t parent, uint64_t smallest, std::vector<int64_t>& out,
            std::vector<std::string>& merged_names) const {
    uint64_t small = 0;
    size_t small_count = 0;
    for (uint32_t c : children) {
      const Node& n = nodes_[c];
      if (n.value < smallest || n.value == 0) {
        small += n.value;
        ++small_count;
        continue;
      }
      const int64_t index = static_cast<int64_t>(out.size() / 3);
      out.insert(out.end(), {parent, int64_t{n.name}, static_cast<int64_t>(n.value)});
      emit(n.children, index, smallest, out, merged_names);
    }
    if (small) {
      const int64_t name = static_cast<int64_t>(names_.size() + merged_names.size());
      std::string label = "[";
      label += std::to_string(small_count);
      label += small_count == 1 ? " frame too small to draw]" : " frames too small to draw]";
      merged_names.push_back(std::move(label));
      out.insert(out.end(), {parent, name, static_cast<int64_t>(small)});
    }
  }

  std::vector<Node> nodes_;
  std::vector<uint32_t> roots_;
  std::unordered_map<uint64_t, uint32_t> child_of_;  // parent << 32 | name -> node
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t> name_ids_;
  uint64_t total_ = 0;
};

}  // namespace

std::string stack_tree_json(const std::vector<FoldedStack>& stacks, uint64_t smallest_share, size_t max_nodes) {
  return StackTree(stacks).json(smallest_share, max_nodes);
}

std::string stacks_json(const Run& run, const RangeParents& parents, const FrameNamer& namer) {
  FoldedStacksOptions options;
  options.namer = &namer;
  const std::vector<std::vector<FoldedStack>> stacks =
      folded_stacks_of_metrics(run, parents, options, {StackMetric::kSelfCuda, StackMetric::kSelfCpu});
  return "{\"cuda\":" + stack_tree_json(stacks[0]) + ",\"cpu\":" + stack_tree_json(stacks[1]) + "}";
}

}  // namespace prof::analyzer
