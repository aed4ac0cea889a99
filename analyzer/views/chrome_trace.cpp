#include "views/chrome_trace.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "model/gpu_names.h"
#include "model/range_tree.h"
#include "views/folded_stacks.h"
#include "views/text_escape.h"

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
    append_json_string(buffer_, text);
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
    append_json_string(buffer_, name);
    buffer_ += ':';
    return *this;
  }
  // Ends one event; flushes now and then.
  void end_event() {
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


// The recorded domain; a call without one counts as runtime, as the model
// names an unnamed call of no domain "<cuda runtime cbid N>".
bool is_runtime_call(const CpuEvent& e) { return e.api_domain != ApiDomain::kDriver; }

// "domain:name" outside the default domain, as the report names rows, but
// "ProfilerStep#3" stays itself: on a timeline every step is its own.
std::string range_name(const Run& run, const CpuEvent& e) {
  return e.domain == Run::kNoName ? run.name(e.name) : run.name(e.domain) + ":" + run.name(e.name);
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One span of gpu_user_annotation: a push/pop range's launched work on one
// stream.
struct AnnotationSpan {
  size_t range = 0;  // index into Run::cpu_events
  uint32_t process = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

enum class ItemKind : uint8_t { kCpu, kGpu, kAnnotation, kMemory };

struct Item {
  uint64_t start_ns;
  ItemKind kind;
  uint32_t index;
  bool operator<(const Item& o) const {
    if (start_ns != o.start_ns) return start_ns < o.start_ns;
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
  void assign_pids();
  uint64_t gpu_pid(uint32_t process, uint32_t device) const {
    return run_.processes.size() > 1 ? 0x70000000ull + uint64_t{process} * 256 + device : device;
  }
  uint64_t flow_id(uint32_t process, uint32_t correlation) const {
    return run_.processes.size() > 1 ? (uint64_t{process} << 32) | correlation : correlation;
  }
  void collect_annotations();
  // Frame names of stack `stack` (1-based), root first, computed once.
  const std::vector<std::string>& stack_names(uint32_t stack) {
    auto [it, added] = stack_names_.try_emplace(stack);
    if (added) {
      const std::vector<uint32_t>& frames = run_.stacks[stack - 1];  // leaf first
      size_t leaf = 0;
      while (leaf < frames.size() && in_cuda_or_agent(run_.frames[frames[leaf]])) ++leaf;
      for (size_t i = frames.size(); i > leaf; --i)
        it->second.push_back(options_.namer->name(run_, run_.frames[frames[i - 1]]));
    }
    return it->second;
  }
  bool in_cuda_or_agent(const Frame& f) const {
    return f.kind == prof::proto::Frame::NATIVE && f.module >= 0 && static_cast<size_t>(f.module) < run_.modules.size() &&
           is_cuda_or_agent_module(run_.modules[static_cast<size_t>(f.module)].path);
  }
  std::map<uint32_t, std::vector<std::string>> stack_names_;
  void header();
  void metadata();
  void begin_event() {
    out_.raw(first_ ? "\n" : ",\n");
    first_ = false;
  }
  void common(const char* ph, std::string_view cat, std::string_view name, uint64_t pid, uint64_t tid) {
    begin_event();
    out_.raw("{\"ph\":\"").raw(ph).raw("\",\"cat\":").str(cat).raw(",\"name\":").str(name);
    out_.key("pid").num(pid).key("tid").num(tid);
  }
  void meta_event(const char* name, uint64_t pid, const uint64_t* tid, const char* arg_key, const std::string* text,
                 const uint64_t* number) {
    begin_event();
    out_.raw("{\"ph\":\"M\",\"name\":").str(name).key("pid").num(pid);
    if (tid) out_.key("tid").num(*tid);
    out_.key("ts").raw("0").key("args").raw("{").str(arg_key).raw(":");
    if (text) out_.str(*text);
    else out_.num(*number);
    out_.raw("}").end_event();
  }
  void cpu_event(size_t index);
  void gpu_event(size_t index);
  void annotation(const AnnotationSpan& span);
  void memory(size_t index);
  uint64_t ts(uint64_t ns) const { return ns >= origin_ ? ns - origin_ : 0; }

  const Run& run_;
  const ChromeTraceOptions& options_;
  JsonOut& out_;
  RangeTree tree_;
  bool first_ = true;
  uint64_t origin_ = 0;
  std::vector<uint64_t> cpu_pid_;
  std::vector<AnnotationSpan> annotations_;
  std::vector<int64_t> memory_in_use_;  // per item, the running total after it
  uint64_t async_ids_ = 0;
};

void TraceWriter::assign_pids() {
  // OS pids, unless two files share one (two hosts) or a file has none.
  std::set<uint64_t> used;
  for (size_t p = 0; p < run_.processes.size(); ++p) {
    const auto& info = run_.processes[p].process;
    uint64_t pid = info ? info->pid() : 0;
    if (pid == 0 || used.count(pid)) pid = 0x60000000ull + p;
    used.insert(pid);
    cpu_pid_.push_back(pid);
  }
}

void TraceWriter::collect_annotations() {
  // (range, process, device, stream) -> span of the work launched inside it.
  std::map<std::tuple<size_t, uint32_t, uint32_t>, AnnotationSpan> spans;
  for (const GpuActivity& g : run_.gpu_activities) {
    if (g.launched_by < 0) continue;
    for (int64_t p = tree_.parent(static_cast<size_t>(g.launched_by)); p != RangeTree::kNoParent;
         p = tree_.parent(static_cast<size_t>(p))) {
      const CpuEvent& e = run_.cpu_events[static_cast<size_t>(p)];
      if (e.kind != CpuEventKind::kPushPopRange) continue;
      auto [it, added] = spans.try_emplace({static_cast<size_t>(p), g.device_id, g.stream_id});
      AnnotationSpan& s = it->second;
      if (added) s = AnnotationSpan{static_cast<size_t>(p), g.process, g.device_id, g.stream_id, g.start_ns, g.end_ns};
      s.start_ns = std::min(s.start_ns, g.start_ns);
      s.end_ns = std::max(s.end_ns, g.end_ns);
    }
  }
  for (auto& [k, s] : spans) annotations_.push_back(s);
}

void TraceWriter::header() {
  out_.raw("{\"schemaVersion\":1");
  out_.key("deviceProperties").raw("[");
  bool first_device = true;
  std::set<uint32_t> seen;
  for (const ProcessInfo& p : run_.processes)
    for (const prof::proto::Device& d : p.devices) {
      if (!seen.insert(d.id()).second) continue;  // same index on another rank: listed once
      out_.raw(first_device ? "{" : ",{");
      first_device = false;
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
  out_.key("traceName").str(options_.trace_name);
  out_.key("traceEvents").raw("[");
}

void TraceWriter::metadata() {
  std::map<uint32_t, std::set<uint32_t>> threads;                      // process -> tids
  std::map<std::pair<uint32_t, uint32_t>, std::set<uint32_t>> streams;  // (process, device) -> streams
  std::set<std::pair<uint32_t, uint32_t>> memory_devices;
  for (size_t p = 0; p < run_.processes.size(); ++p)
    for (const auto& [tid, name] : run_.processes[p].threads) threads[static_cast<uint32_t>(p)].insert(tid);
  for (const CpuEvent& e : run_.cpu_events) threads[e.process].insert(e.tid);
  for (const GpuActivity& g : run_.gpu_activities) streams[{g.process, g.device_id}].insert(g.stream_id);
  for (const MemoryEvent& m : run_.memory_events)
    if (m.on_device) streams[{m.process, m.device_id}];

  for (size_t p = 0; p < run_.processes.size(); ++p) {
    const ProcessInfo& info = run_.processes[p];
    const uint64_t pid = cpu_pid_[p];
    std::string name = info.process && !info.process->executable().empty() ? base_name(info.process->executable())
                                                                           : base_name(info.path);
    std::string labels = "CPU";
    if (info.process) {
      if (info.process->rank() >= 0) labels += ", rank " + std::to_string(info.process->rank());
      if (!info.process->hostname().empty()) labels += ", host " + info.process->hostname();
    }
    const uint64_t sort_index = p;
    meta_event("process_name", pid, nullptr, "name", &name, nullptr);
    meta_event("process_labels", pid, nullptr, "labels", &labels, nullptr);
    meta_event("process_sort_index", pid, nullptr, "sort_index", nullptr, &sort_index);
    for (uint32_t tid : threads[static_cast<uint32_t>(p)]) {
      const uint64_t t = tid;
      std::string thread_name = "thread " + std::to_string(tid);
      if (auto it = info.threads.find(tid); it != info.threads.end() && !it->second.empty())
        thread_name += " (" + it->second + ")";
      meta_event("thread_name", pid, &t, "name", &thread_name, nullptr);
      meta_event("thread_sort_index", pid, &t, "sort_index", nullptr, &t);
    }
  }
  for (const auto& [key, stream_ids] : streams) {
    const auto [process, device] = key;
    const uint64_t pid = gpu_pid(process, device);
    std::string name = "GPU " + std::to_string(device);
    if (run_.processes.size() > 1) name += " (pid " + std::to_string(cpu_pid_[process]) + ")";
    std::string labels = "GPU " + std::to_string(device);
    for (const prof::proto::Device& d : run_.processes[process].devices)
      if (d.id() == device && !d.name().empty()) labels += ", " + d.name();
    const uint64_t sort_index = 0x1000000ull + pid;
    meta_event("process_name", pid, nullptr, "name", &name, nullptr);
    meta_event("process_labels", pid, nullptr, "labels", &labels, nullptr);
    meta_event("process_sort_index", pid, nullptr, "sort_index", nullptr, &sort_index);
    for (uint32_t stream : stream_ids) {
      const uint64_t t = stream;
      std::string stream_name = "stream " + std::to_string(stream);
      meta_event("thread_name", pid, &t, "name", &stream_name, nullptr);
      meta_event("thread_sort_index", pid, &t, "sort_index", nullptr, &t);
    }
  }
}

void TraceWriter::cpu_event(size_t index) {
  const CpuEvent& e = run_.cpu_events[index];
  const uint64_t pid = cpu_pid_[e.process];
  const std::string& name = run_.name(e.name);
  if (e.kind == CpuEventKind::kApiCall) {
    common("X", is_runtime_call(e) ? "cuda_runtime" : "cuda_driver", name, pid, e.tid);
    out_.key("ts").micros(ts(e.start_ns)).key("dur").micros(e.duration_ns());
    out_.key("args").raw("{\"correlation\":").num(e.correlation_id);
    if (options_.namer != nullptr && e.stack != 0 && e.stack <= run_.stacks.size()) {
      out_.raw(",\"stack\":[");
      const std::vector<std::string>& names = stack_names(e.stack);
      for (size_t i = 0; i < names.size(); ++i) out_.raw(i == 0 ? "" : ",").str(names[i]);
      out_.raw("]");
    }
    out_.raw("}").end_event();
    return;
  }
  const std::string full_name = range_name(run_, e);
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
    common("X", "user_annotation", full_name, pid, e.tid);
    out_.key("ts").micros(ts(e.start_ns)).key("dur").micros(e.duration_ns());
    args();
    out_.end_event();
    return;
  }
  // Start/end ranges may overlap each other and end on another thread:
  // async events, which viewers lay out on their own rows.
  const uint64_t id = ++async_ids_;
  common("b", "user_annotation", full_name, pid, e.tid);
  out_.key("id").num(id).key("ts").micros(ts(e.start_ns));
  args();
  out_.end_event();
  common("e", "user_annotation", full_name, pid, e.tid);
  out_.key("id").num(id).key("ts").micros(ts(e.end_ns)).end_event();
}

void TraceWriter::gpu_event(size_t index) {
  const GpuActivity& g = run_.gpu_activities[index];
  const uint64_t pid = gpu_pid(g.process, g.device_id);
  const char* cat = g.kind == GpuKind::kKernel ? "kernel" : g.kind == GpuKind::kMemcpy ? "gpu_memcpy" : "gpu_memset";
  common("X", cat, run_.name(g.name), pid, g.stream_id);
  out_.key("ts").micros(ts(g.start_ns)).key("dur").micros(g.duration_ns());
  out_.key("args").raw("{\"device\":").num(g.device_id).key("stream").num(g.stream_id);
  out_.key("correlation").num(g.correlation_id);
  if (g.kind == GpuKind::kKernel) {
    const KernelConfig& k = run_.kernel_configs[g.kernel_config];
    out_.key("registers per thread").num(k.registers_per_thread);
    out_.key("shared memory").num(uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
    const uint64_t blocks = uint64_t{k.grid[0]} * k.grid[1] * k.grid[2];
    const uint64_t threads = uint64_t{k.block[0]} * k.block[1] * k.block[2];
    for (const prof::proto::Device& d : run_.processes[g.process].devices)
      if (d.id() == g.device_id && d.sm_count() > 0) {
        const double sms = d.sm_count();
        const uint64_t warp_size = d.warp_size() ? d.warp_size() : 32;
        out_.key("blocks per SM").real(static_cast<double>(blocks) / sms);
        out_.key("warps per SM").real(static_cast<double>(blocks * ((threads + warp_size - 1) / warp_size)) / sms);
      }
    out_.key("grid").raw("[").num(k.grid[0]).raw(",").num(k.grid[1]).raw(",").num(k.grid[2]).raw("]");
    out_.key("block").raw("[").num(k.block[0]).raw(",").num(k.block[1]).raw(",").num(k.block[2]).raw("]");
  } else {
    out_.key("bytes").num(g.bytes);
    if (g.kind == GpuKind::kMemcpy) out_.key("kind").str(copy_kind_name(g.copy_kind));
    // bytes per ns is GB/s.
    const double bandwidth = g.duration_ns() ? static_cast<double>(g.bytes) / static_cast<double>(g.duration_ns()) : 0;
    out_.key("memory bandwidth (GB/s)").real(bandwidth);
  }
  out_.raw("}").end_event();

  // The launch arrow. Its start binds to the innermost slice at the call's
  // start on the launching thread: the API call itself.
  if (g.launched_by < 0 || g.correlation_id == 0) return;
  const CpuEvent& call = run_.cpu_events[static_cast<size_t>(g.launched_by)];
  const uint64_t id = flow_id(g.process, g.correlation_id);
  common("s", "ac2g", "ac2g", cpu_pid_[call.process], call.tid);
  out_.key("id").num(id).key("ts").micros(ts(call.start_ns)).end_event();
  common("f", "ac2g", "ac2g", pid, g.stream_id);
  out_.key("id").num(id).key("ts").micros(ts(g.start_ns)).raw(",\"bp\":\"e\"").end_event();
}

void TraceWriter::annotation(const AnnotationSpan& span) {
  const CpuEvent& range = run_.cpu_events[span.range];
  common("X", "gpu_user_annotation", range_name(run_, range), gpu_pid(span.process, span.device), span.stream);
  out_.key("ts").micros(ts(span.start_ns)).key("dur").micros(span.end_ns - span.start_ns);
  out_.key("args").raw("{\"device\":").num(span.device).key("stream").num(span.stream).raw("}").end_event();
}

void TraceWriter::memory(size_t index) {
  const MemoryEvent& m = run_.memory_events[index];
  begin_event();
  if (m.on_device) {
    out_.raw("{\"ph\":\"C\",\"name\":").str("GPU " + std::to_string(m.device_id) + " memory in use");
    out_.key("pid").num(gpu_pid(m.process, m.device_id));
  } else {
    out_.raw("{\"ph\":\"C\",\"name\":").str("CUDA host memory in use");
    out_.key("pid").num(cpu_pid_[m.process]);
  }
  out_.key("ts").micros(ts(m.time_ns)).key("args").raw("{\"bytes\":").snum(memory_in_use_[index]).raw("}").end_event();
}

ChromeTraceStats TraceWriter::write() {
  assign_pids();
  collect_annotations();
  std::vector<Item> items;
  items.reserve(run_.cpu_events.size() + run_.gpu_activities.size() + annotations_.size() + run_.memory_events.size());
  for (size_t i = 0; i < run_.cpu_events.size(); ++i)
    items.push_back({run_.cpu_events[i].start_ns, ItemKind::kCpu, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < run_.gpu_activities.size(); ++i)
    items.push_back({run_.gpu_activities[i].start_ns, ItemKind::kGpu, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < annotations_.size(); ++i)
    items.push_back({annotations_[i].start_ns, ItemKind::kAnnotation, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < run_.memory_events.size(); ++i)
    items.push_back({run_.memory_events[i].time_ns, ItemKind::kMemory, static_cast<uint32_t>(i)});
  std::sort(items.begin(), items.end());
  origin_ = items.empty() ? 0 : items.front().start_ns;
  for (const GpuActivity& g : run_.gpu_activities)  // a flow's start may precede (clock skew)
    if (g.launched_by >= 0) origin_ = std::min(origin_, run_.cpu_events[static_cast<size_t>(g.launched_by)].start_ns);

  // Memory in use, per (process, device or host), in time order.
  memory_in_use_.assign(run_.memory_events.size(), 0);
  std::map<std::tuple<uint32_t, bool, uint32_t>, int64_t> in_use;
  for (const Item& item : items) {
    if (item.kind != ItemKind::kMemory) continue;
    const MemoryEvent& m = run_.memory_events[item.index];
    int64_t& total = in_use[{m.process, m.on_device, m.on_device ? m.device_id : 0}];
    total += m.signed_bytes();
    memory_in_use_[item.index] = total;
  }

  header();
  metadata();
  ChromeTraceStats stats;
  for (const Item& item : items) {
    if (options_.max_events && stats.events >= options_.max_events) {
      stats.events_left_out = items.size() - stats.events;
      break;
    }
    switch (item.kind) {
      case ItemKind::kCpu: cpu_event(item.index); break;
      case ItemKind::kGpu: gpu_event(item.index); break;
      case ItemKind::kAnnotation: annotation(annotations_[item.index]); break;
      case ItemKind::kMemory: memory(item.index); break;
    }
    ++stats.events;
  }
  out_.raw("\n]");
  out_.key("profanalyze").raw("{\"events\":").num(stats.events).key("events_left_out").num(stats.events_left_out);
  out_.raw("}}\n");
  out_.flush();
  stats.bytes = out_.bytes();
  return stats;
}

}  // namespace

ChromeTraceStats write_chrome_trace(const Run& run, const ChromeTraceOptions& options, TraceSink& sink) {
  JsonOut out(sink);
  return TraceWriter(run, options, out).write();
}

}  // namespace prof::analyzer
