#include "views/ChromeTrace.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "model/GpuNames.h"
#include "model/RangeTree.h"
#include "views/TextEscape.h"

namespace prof::analyzer {
namespace {

// Buffered JSON text; hands full buffers to the sink.
class JsonOut {
 public:
  explicit JsonOut(TraceSink& sink) : sink_(sink) { buffer_.reserve(kFlushAt + 4096); }
  ~JsonOut() { flush(); }
  JsonOut(const JsonOut&) = delete;
  JsonOut& operator=(const JsonOut&) = delete;

  JsonOut& raw(std::string_view text) {
    buffer_ += text;
    return *this;
  }
  JsonOut& str(std::string_view text) {
    appendJsonString(buffer_, text);
    return *this;
  }
  // Numbers go through to_chars into the buffer: snprintf and to_string
  // were a fifth of writing a trace of millions of events.
  JsonOut& num(uint64_t value) { return chars(value); }
  JsonOut& snum(int64_t value) { return chars(value); }
  // As "%.3f" (to_chars with a precision is printf's conversion).
  JsonOut& real(double value) { return chars(value, std::chars_format::fixed, 3); }
  // Microseconds with exact nanosecond decimals: 1234567 ns -> 1234.567.
  JsonOut& micros(uint64_t ns) {
    chars(ns / 1000);
    const auto fraction = static_cast<unsigned>(ns % 1000);
    const char digits[4] = {'.', static_cast<char>('0' + fraction / 100), static_cast<char>('0' + fraction / 10 % 10),
                            static_cast<char>('0' + fraction % 10)};
    buffer_.append(digits, sizeof digits);
    return *this;
  }
  // `,"key":`
  JsonOut& key(std::string_view name) {
    buffer_ += ',';
    appendJsonString(buffer_, name);
    buffer_ += ':';
    return *this;
  }
  // Ends one event; flushes now and then.
  void endEvent() {
    buffer_ += "}";
    if (buffer_.size() >= kFlushAt) flush();
  }
  void flush() {
    if (buffer_.empty()) return;
    sink_.write(buffer_);
    bytes_ += buffer_.size();
    buffer_.clear();
  }
  uint64_t bytes() const { return bytes_ + buffer_.size(); }

 private:
  template <typename... Args>
  JsonOut& chars(Args... args) {
    char buf[64];
    const std::to_chars_result end = std::to_chars(buf, buf + sizeof buf, args...);
    buffer_.append(buf, end.ptr);
    return *this;
  }

  static constexpr size_t kFlushAt = 1 << 16;
  TraceSink& sink_;
  std::string buffer_;
  uint64_t bytes_ = 0;
};


// The model keeps no API domain; CUDA's naming tells them apart: runtime
// calls are cuda* (and the __cuda* entry points of <<<>>> launches),
// driver calls cu*. Calls recorded without a name say which in brackets.
bool isRuntimeCall(std::string_view name) {
  if (name.starts_with("<cuda ")) return name.starts_with("<cuda runtime");
  return name.starts_with("cuda") || name.starts_with("__cuda");
}

// "domain:name" outside the default domain, as the report names rows, but
// "ProfilerStep#3" stays itself: on a timeline every step is its own.
std::string rangeName(const Run& run, const CpuEvent& e) {
  return e.domain == Run::kNoName ? run.name(e.name) : run.name(e.domain) + ":" + run.name(e.name);
}

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One span of gpu_user_annotation: a push/pop range's launched work on one
// stream.
struct AnnotationSpan {
  size_t range = 0;  // index into Run::cpuEvents
  uint32_t process = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint64_t startNs = 0;
  uint64_t endNs = 0;
};

enum class ItemKind : uint8_t { kCpu, kGpu, kAnnotation, kMemory };

struct Item {
  uint64_t startNs;
  ItemKind kind;
  uint32_t index;
  bool operator<(const Item& o) const {
    if (startNs != o.startNs) return startNs < o.startNs;
    if (kind != o.kind) return kind < o.kind;
    return index < o.index;
  }
};

class TraceWriter {
 public:
  TraceWriter(const Run& run, const ChromeTraceOptions& options, JsonOut& out)
      : run_(run), options_(options), out_(out), tree_(run) {}

  ChromeTraceStats write();

 private:
  void assignPids();
  uint64_t gpuPid(uint32_t process, uint32_t device) const {
    return run_.processes.size() > 1 ? 0x70000000ull + uint64_t{process} * 256 + device : device;
  }
  uint64_t flowId(uint32_t process, uint32_t correlation) const {
    return run_.processes.size() > 1 ? (uint64_t{process} << 32) | correlation : correlation;
  }
  void collectAnnotations();
  void header();
  void metadata();
  void beginEvent() {
    out_.raw(first_ ? "\n" : ",\n");
    first_ = false;
  }
  void common(const char* ph, std::string_view cat, std::string_view name, uint64_t pid, uint64_t tid) {
    beginEvent();
    out_.raw("{\"ph\":\"").raw(ph).raw("\",\"cat\":").str(cat).raw(",\"name\":").str(name);
    out_.key("pid").num(pid).key("tid").num(tid);
  }
  void metaEvent(const char* name, uint64_t pid, const uint64_t* tid, const char* argKey, const std::string* text,
                 const uint64_t* number) {
    beginEvent();
    out_.raw("{\"ph\":\"M\",\"name\":").str(name).key("pid").num(pid);
    if (tid) out_.key("tid").num(*tid);
    out_.key("ts").raw("0").key("args").raw("{").str(argKey).raw(":");
    if (text) out_.str(*text);
    else out_.num(*number);
    out_.raw("}").endEvent();
  }
  void cpuEvent(size_t index);
  void gpuEvent(size_t index);
  void annotation(const AnnotationSpan& span);
  void memory(size_t index);
  uint64_t ts(uint64_t ns) const { return ns >= origin_ ? ns - origin_ : 0; }

  const Run& run_;
  const ChromeTraceOptions& options_;
  JsonOut& out_;
  RangeTree tree_;
  bool first_ = true;
  uint64_t origin_ = 0;
  std::vector<uint64_t> cpuPid_;
  std::vector<AnnotationSpan> annotations_;
  std::vector<int64_t> memoryInUse_;  // per item, the running total after it
  uint64_t asyncIds_ = 0;
};

void TraceWriter::assignPids() {
  // OS pids, unless two files share one (two hosts) or a file has none.
  std::set<uint64_t> used;
  for (size_t p = 0; p < run_.processes.size(); ++p) {
    const auto& info = run_.processes[p].process;
    uint64_t pid = info ? info->pid() : 0;
    if (pid == 0 || used.count(pid)) pid = 0x60000000ull + p;
    used.insert(pid);
    cpuPid_.push_back(pid);
  }
}

void TraceWriter::collectAnnotations() {
  // (range, process, device, stream) -> span of the work launched inside it.
  std::map<std::tuple<size_t, uint32_t, uint32_t>, AnnotationSpan> spans;
  for (const GpuActivity& g : run_.gpuActivities) {
    if (g.launchedBy < 0) continue;
    for (int64_t p = tree_.parent(static_cast<size_t>(g.launchedBy)); p != RangeTree::kNoParent;
         p = tree_.parent(static_cast<size_t>(p))) {
      const CpuEvent& e = run_.cpuEvents[static_cast<size_t>(p)];
      if (e.kind != CpuEventKind::kPushPopRange) continue;
      auto [it, added] = spans.try_emplace({static_cast<size_t>(p), g.deviceId, g.streamId});
      AnnotationSpan& s = it->second;
      if (added) s = AnnotationSpan{static_cast<size_t>(p), g.process, g.deviceId, g.streamId, g.startNs, g.endNs};
      s.startNs = std::min(s.startNs, g.startNs);
      s.endNs = std::max(s.endNs, g.endNs);
    }
  }
  for (auto& [k, s] : spans) annotations_.push_back(s);
}

void TraceWriter::header() {
  out_.raw("{\"schemaVersion\":1");
  out_.key("deviceProperties").raw("[");
  bool firstDevice = true;
  std::set<uint32_t> seen;
  for (const ProcessInfo& p : run_.processes)
    for (const prof::proto::Device& d : p.devices) {
      if (!seen.insert(d.id()).second) continue;  // same index on another rank: listed once
      out_.raw(firstDevice ? "{" : ",{");
      firstDevice = false;
      out_.raw("\"id\":").num(d.id()).key("name").str(d.name()).key("totalGlobalMem").num(d.global_memory_bytes());
      out_.key("computeMajor").num(d.compute_major()).key("computeMinor").num(d.compute_minor());
      out_.key("maxThreadsPerBlock").num(d.max_threads_per_block()).key("regsPerBlock").num(d.max_registers_per_block());
      out_.key("warpSize").num(d.warp_size()).key("sharedMemPerBlock").num(d.max_shared_memory_per_block());
      out_.key("numSms").num(d.sm_count()).raw("}");
    }
  out_.raw("]");
  // Kineto's distributedInfo, of the first process; every process's rank
  // and host are also in its process_labels.
  for (const ProcessInfo& p : run_.processes) {
    if (!p.process) continue;
    out_.key("distributedInfo").raw("{\"hostname\":").str(p.process->hostname()).key("pid").num(p.process->pid());
    if (p.process->rank() >= 0)
      out_.key("rank").snum(p.process->rank()).key("world_size").snum(p.process->world_size());
    out_.raw("}");
    break;
  }
  out_.key("displayTimeUnit").str("ms");
  for (const ProcessInfo& p : run_.processes) {
    // RunBuilder put every file on the clock of the first one with an anchor.
    if (!p.process || !p.process->has_clock_anchor()) continue;
    const auto& a = p.process->clock_anchor();
    out_.key("baseTimeNanoseconds").num(origin_ - a.monotonic_ns() + a.realtime_ns());
    break;
  }
  out_.key("traceName").str(options_.traceName);
  out_.key("traceEvents").raw("[");
}

void TraceWriter::metadata() {
  std::map<uint32_t, std::set<uint32_t>> threads;                      // process -> tids
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> streams;  // (process, device) -> streams
  std::set<std::pair<uint32_t, uint32_t>> memoryDevices;
  for (size_t p = 0; p < run_.processes.size(); ++p)
    for (const auto& [tid, name] : run_.processes[p].threads) threads[static_cast<uint32_t>(p)].insert(tid);
  for (const CpuEvent& e : run_.cpuEvents) threads[e.process].insert(e.tid);
  for (const GpuActivity& g : run_.gpuActivities) streams[{g.process, g.deviceId}].insert(g.streamId);
  for (const MemoryEvent& m : run_.memoryEvents)
    if (m.onDevice) streams[{m.process, m.deviceId}];

  for (size_t p = 0; p < run_.processes.size(); ++p) {
    const ProcessInfo& info = run_.processes[p];
    const uint64_t pid = cpuPid_[p];
    std::string name = info.process && !info.process->executable().empty() ? baseName(info.process->executable())
                                                                           : baseName(info.path);
    std::string labels = "CPU";
    if (info.process) {
      if (info.process->rank() >= 0) labels += ", rank " + std::to_string(info.process->rank());
      if (!info.process->hostname().empty()) labels += ", host " + info.process->hostname();
    }
    const uint64_t sortIndex = p;
    metaEvent("process_name", pid, nullptr, "name", &name, nullptr);
    metaEvent("process_labels", pid, nullptr, "labels", &labels, nullptr);
    metaEvent("process_sort_index", pid, nullptr, "sort_index", nullptr, &sortIndex);
    for (uint32_t tid : threads[static_cast<uint32_t>(p)]) {
      const uint64_t t = tid;
      std::string threadName = "thread " + std::to_string(tid);
      if (auto it = info.threads.find(tid); it != info.threads.end() && !it->second.empty())
        threadName += " (" + it->second + ")";
      metaEvent("thread_name", pid, &t, "name", &threadName, nullptr);
      metaEvent("thread_sort_index", pid, &t, "sort_index", nullptr, &t);
    }
  }
  for (const auto& [key, streamIds] : streams) {
    const auto [process, device] = key;
    const uint64_t pid = gpuPid(process, device);
    std::string name = "GPU " + std::to_string(device);
    if (run_.processes.size() > 1) name += " (pid " + std::to_string(cpuPid_[process]) + ")";
    std::string labels = "GPU " + std::to_string(device);
    for (const prof::proto::Device& d : run_.processes[process].devices)
      if (d.id() == device && !d.name().empty()) labels += ", " + d.name();
    const uint64_t sortIndex = 0x1000000ull + pid;
    metaEvent("process_name", pid, nullptr, "name", &name, nullptr);
    metaEvent("process_labels", pid, nullptr, "labels", &labels, nullptr);
    metaEvent("process_sort_index", pid, nullptr, "sort_index", nullptr, &sortIndex);
    for (uint32_t stream : streamIds) {
      const uint64_t t = stream;
      std::string streamName = "stream " + std::to_string(stream);
      metaEvent("thread_name", pid, &t, "name", &streamName, nullptr);
      metaEvent("thread_sort_index", pid, &t, "sort_index", nullptr, &t);
    }
  }
}

void TraceWriter::cpuEvent(size_t index) {
  const CpuEvent& e = run_.cpuEvents[index];
  const uint64_t pid = cpuPid_[e.process];
  const std::string& name = run_.name(e.name);
  if (e.kind == CpuEventKind::kApiCall) {
    common("X", isRuntimeCall(name) ? "cuda_runtime" : "cuda_driver", name, pid, e.tid);
    out_.key("ts").micros(ts(e.startNs)).key("dur").micros(e.durationNs());
    out_.key("args").raw("{\"correlation\":").num(e.correlationId).raw("}").endEvent();
    return;
  }
  const std::string fullName = rangeName(run_, e);
  auto args = [&] {
    out_.key("args").raw("{");
    bool any = false;
    if (e.domain) {
      out_.raw("\"domain\":").str(run_.name(e.domain));
      any = true;
    }
    if (e.unterminated) out_.raw(any ? "," : "").raw("\"unterminated\":true");
    out_.raw("}");
  };
  if (e.kind == CpuEventKind::kPushPopRange) {
    common("X", "user_annotation", fullName, pid, e.tid);
    out_.key("ts").micros(ts(e.startNs)).key("dur").micros(e.durationNs());
    args();
    out_.endEvent();
    return;
  }
  // Start/end ranges may overlap each other and end on another thread:
  // async events, which viewers lay out on their own rows.
  const uint64_t id = ++asyncIds_;
  common("b", "user_annotation", fullName, pid, e.tid);
  out_.key("id").num(id).key("ts").micros(ts(e.startNs));
  args();
  out_.endEvent();
  common("e", "user_annotation", fullName, pid, e.tid);
  out_.key("id").num(id).key("ts").micros(ts(e.endNs)).endEvent();
}

void TraceWriter::gpuEvent(size_t index) {
  const GpuActivity& g = run_.gpuActivities[index];
  const uint64_t pid = gpuPid(g.process, g.deviceId);
  const char* cat = g.kind == GpuKind::kKernel ? "kernel" : g.kind == GpuKind::kMemcpy ? "gpu_memcpy" : "gpu_memset";
  common("X", cat, run_.name(g.name), pid, g.streamId);
  out_.key("ts").micros(ts(g.startNs)).key("dur").micros(g.durationNs());
  out_.key("args").raw("{\"device\":").num(g.deviceId).key("stream").num(g.streamId);
  out_.key("correlation").num(g.correlationId);
  if (g.kind == GpuKind::kKernel) {
    const KernelConfig& k = run_.kernelConfigs[g.kernelConfig];
    out_.key("registers per thread").num(k.registersPerThread);
    out_.key("shared memory").num(uint64_t{k.staticSharedBytes} + k.dynamicSharedBytes);
    const uint64_t blocks = uint64_t{k.grid[0]} * k.grid[1] * k.grid[2];
    const uint64_t threads = uint64_t{k.block[0]} * k.block[1] * k.block[2];
    for (const prof::proto::Device& d : run_.processes[g.process].devices)
      if (d.id() == g.deviceId && d.sm_count() > 0) {
        const double sms = d.sm_count();
        const uint64_t warpSize = d.warp_size() ? d.warp_size() : 32;
        out_.key("blocks per SM").real(static_cast<double>(blocks) / sms);
        out_.key("warps per SM").real(static_cast<double>(blocks * ((threads + warpSize - 1) / warpSize)) / sms);
      }
    out_.key("grid").raw("[").num(k.grid[0]).raw(",").num(k.grid[1]).raw(",").num(k.grid[2]).raw("]");
    out_.key("block").raw("[").num(k.block[0]).raw(",").num(k.block[1]).raw(",").num(k.block[2]).raw("]");
  } else {
    out_.key("bytes").num(g.bytes);
    if (g.kind == GpuKind::kMemcpy) out_.key("kind").str(copyKindName(g.copyKind));
    // bytes per ns is GB/s.
    const double bandwidth = g.durationNs() ? static_cast<double>(g.bytes) / static_cast<double>(g.durationNs()) : 0;
    out_.key("memory bandwidth (GB/s)").real(bandwidth);
  }
  out_.raw("}").endEvent();

  // The launch arrow. Its start binds to the innermost slice at the call's
  // start on the launching thread: the API call itself.
  if (g.launchedBy < 0 || g.correlationId == 0) return;
  const CpuEvent& call = run_.cpuEvents[static_cast<size_t>(g.launchedBy)];
  const uint64_t id = flowId(g.process, g.correlationId);
  common("s", "ac2g", "ac2g", cpuPid_[call.process], call.tid);
  out_.key("id").num(id).key("ts").micros(ts(call.startNs)).endEvent();
  common("f", "ac2g", "ac2g", pid, g.streamId);
  out_.key("id").num(id).key("ts").micros(ts(g.startNs)).raw(",\"bp\":\"e\"").endEvent();
}

void TraceWriter::annotation(const AnnotationSpan& span) {
  const CpuEvent& range = run_.cpuEvents[span.range];
  common("X", "gpu_user_annotation", rangeName(run_, range), gpuPid(span.process, span.device), span.stream);
  out_.key("ts").micros(ts(span.startNs)).key("dur").micros(span.endNs - span.startNs);
  out_.key("args").raw("{\"device\":").num(span.device).key("stream").num(span.stream).raw("}").endEvent();
}

void TraceWriter::memory(size_t index) {
  const MemoryEvent& m = run_.memoryEvents[index];
  beginEvent();
  if (m.onDevice) {
    out_.raw("{\"ph\":\"C\",\"name\":").str("GPU " + std::to_string(m.deviceId) + " memory in use");
    out_.key("pid").num(gpuPid(m.process, m.deviceId));
  } else {
    out_.raw("{\"ph\":\"C\",\"name\":").str("CUDA host memory in use");
    out_.key("pid").num(cpuPid_[m.process]);
  }
  out_.key("ts").micros(ts(m.timeNs)).key("args").raw("{\"bytes\":").snum(memoryInUse_[index]).raw("}").endEvent();
}

ChromeTraceStats TraceWriter::write() {
  assignPids();
  collectAnnotations();
  std::vector<Item> items;
  items.reserve(run_.cpuEvents.size() + run_.gpuActivities.size() + annotations_.size() + run_.memoryEvents.size());
  for (size_t i = 0; i < run_.cpuEvents.size(); ++i)
    items.push_back({run_.cpuEvents[i].startNs, ItemKind::kCpu, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < run_.gpuActivities.size(); ++i)
    items.push_back({run_.gpuActivities[i].startNs, ItemKind::kGpu, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < annotations_.size(); ++i)
    items.push_back({annotations_[i].startNs, ItemKind::kAnnotation, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < run_.memoryEvents.size(); ++i)
    items.push_back({run_.memoryEvents[i].timeNs, ItemKind::kMemory, static_cast<uint32_t>(i)});
  std::sort(items.begin(), items.end());
  origin_ = items.empty() ? 0 : items.front().startNs;
  for (const GpuActivity& g : run_.gpuActivities)  // a flow's start may precede (clock skew)
    if (g.launchedBy >= 0) origin_ = std::min(origin_, run_.cpuEvents[static_cast<size_t>(g.launchedBy)].startNs);

  // Memory in use, per (process, device or host), in time order.
  memoryInUse_.assign(run_.memoryEvents.size(), 0);
  std::map<std::tuple<uint32_t, bool, uint32_t>, int64_t> inUse;
  for (const Item& item : items) {
    if (item.kind != ItemKind::kMemory) continue;
    const MemoryEvent& m = run_.memoryEvents[item.index];
    int64_t& total = inUse[{m.process, m.onDevice, m.onDevice ? m.deviceId : 0}];
    total += m.signedBytes();
    memoryInUse_[item.index] = total;
  }

  header();
  metadata();
  ChromeTraceStats stats;
  for (const Item& item : items) {
    if (options_.maxEvents && stats.events >= options_.maxEvents) {
      stats.eventsLeftOut = items.size() - stats.events;
      break;
    }
    switch (item.kind) {
      case ItemKind::kCpu: cpuEvent(item.index); break;
      case ItemKind::kGpu: gpuEvent(item.index); break;
      case ItemKind::kAnnotation: annotation(annotations_[item.index]); break;
      case ItemKind::kMemory: memory(item.index); break;
    }
    ++stats.events;
  }
  out_.raw("\n]");
  out_.key("profanalyze").raw("{\"events\":").num(stats.events).key("events_left_out").num(stats.eventsLeftOut);
  out_.raw("}}\n");
  out_.flush();
  stats.bytes = out_.bytes();
  return stats;
}

}  // namespace

ChromeTraceStats writeChromeTrace(const Run& run, const ChromeTraceOptions& options, TraceSink& sink) {
  JsonOut out(sink);
  return TraceWriter(run, options, out).write();
}

}  // namespace prof::analyzer
