#include "views/chrome_trace.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "model/gpu_names.h"
#include "model/launching_calls.h"
#include "model/range_tree.h"
#include "views/folded_stacks.h"
#include "views/text_escape.h"
#include "views/occupancy.h"

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
bool is_runtime_call(const CpuEvent& e) { return e.api_domain() != ApiDomain::kDriver; }

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
// stream, padded as Kineto pads it (1 ns before, 2 ns after) so that viewers
// draw the range above its work rather than beside it.
struct AnnotationSpan {
  size_t range = 0;  // index into Run::cpu_events
  uint32_t process = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

enum class ItemKind : uint8_t { kCpu, kGpu, kAnnotation, kSync, kMemory };

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

// Where a viewer puts an "X" event's end: ts and dur are read as doubles
// (microseconds) and added. Two events that end on the same nanosecond can
// land a rounding step apart that way, the inner one after the outer.
double reader_end_us(uint64_t start_ns, uint64_t duration_ns) {
  return static_cast<double>(start_ns) / 1000.0 + static_cast<double>(duration_ns) / 1000.0;
}

// Kineto's names of CUPTI's synchronization kinds.
const char* sync_name(SyncKind kind) {
  switch (kind) {
    case SyncKind::kEventSynchronize: return "Event Sync";
    case SyncKind::kStreamWaitEvent: return "Stream Wait Event";
    case SyncKind::kStreamSynchronize: return "Stream Sync";
    case SyncKind::kContextSynchronize: return "Context Sync";
    case SyncKind::kUnknown: break;
  }
  return "Unknown Sync";
}

// CUPTI's stream id when no stream applies; Kineto writes -1.
constexpr uint32_t kNoStream = 0xffffffffu;
// Synchronizations get rows of their own beside their stream's (Kineto's
// offset), so that a wait does not overlap the kernels it waits for.
constexpr int64_t kSyncRowOffset = 1000000;

class TraceWriter {
 public:
  TraceWriter(const Run& run, const ChromeTraceOptions& options, JsonOut& out)
      : run_(run), options_(options), out_(out), tree_(run), launching_(run) {}

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
    return f.kind == FrameKind::kNative && f.module >= 0 && static_cast<size_t>(f.module) < run_.modules.size() &&
           is_cuda_or_agent_module(run_.modules[static_cast<size_t>(f.module)].path);
  }
  std::map<uint32_t, std::vector<std::string>> stack_names_;
  void mark_launchers();
  void fit_cpu_events_in_parents();
  void fit_annotations_in_parents();
  void header();
  void device_properties();
  void distributed_info();
  void metadata();
  void begin_event() {
    out_.raw(first_ ? "\n" : ",\n");
    first_ = false;
  }
  void common(const char* ph, std::string_view cat, std::string_view name, uint64_t pid, int64_t tid) {
    begin_event();
    out_.raw("{\"ph\":\"").raw(ph).raw("\",\"cat\":").str(cat).raw(",\"name\":").str(name);
    out_.key("pid").num(pid).key("tid").snum(tid);
  }
  void span(uint64_t start_ns, uint64_t duration_ns) { out_.key("ts").micros(ts(start_ns)).key("dur").micros(duration_ns); }
  void meta_event(const char* name, uint64_t pid, const int64_t* tid, const char* arg_key, const std::string* text,
                 const int64_t* number) {
    begin_event();
    out_.raw("{\"ph\":\"M\",\"name\":").str(name).key("pid").num(pid);
    if (tid) out_.key("tid").snum(*tid);
    out_.key("ts").raw("0").key("args").raw("{").str(arg_key).raw(":");
    if (text) out_.str(*text);
    else out_.snum(*number);
    out_.raw("}").end_event();
  }
  void cpu_event(size_t index);
  void api_call(size_t index);
  void gpu_event(size_t index);
  void kernel_args(const GpuActivity& g);
  void annotation(size_t index);
  void sync(size_t index);
  void memory(size_t index);
  uint64_t ts(uint64_t ns) const { return ns >= origin_ ? ns - origin_ : 0; }
  // Kineto's "External id" of a push/pop range: its index + 1, the same on
  // its CPU event and its GPU spans.
  static uint64_t external_id(size_t range) { return range + 1; }
  // The driver calls a runtime call makes share its correlation id; the
  // outermost call of an id (LaunchingCalls' choice) is the one readers
  // join its GPU work to. The others are nested, also when their runtime
  // call was not recorded (the one that started CUDA).
  bool nested_call(size_t index) const {
    const CpuEvent& e = run_.cpu_events[index];
    return e.correlation_id != 0 && launching_.find(e.process, e.correlation_id) != static_cast<int64_t>(index);
  }

  const Run& run_;
  const ChromeTraceOptions& options_;
  JsonOut& out_;
  RangeTree tree_;
  LaunchingCalls launching_;
  bool first_ = true;
  uint64_t origin_ = 0;
  std::vector<uint64_t> cpu_pid_;
  std::vector<AnnotationSpan> annotations_;
  std::vector<int64_t> memory_in_use_;  // per memory event, the running total after it
  std::vector<bool> launcher_;        // per CPU event: launched GPU work (starts an ac2g flow)
  std::vector<uint8_t> cpu_extra_ns_;   // per CPU event: added to dur (fit_cpu_events_in_parents)
  uint64_t async_ids_ = 0;
};

void TraceWriter::assign_pids() {
  // OS pids, unless two files share one (two hosts) or a file has none.
  std::set<uint64_t> used;
  for (size_t p = 0; p < run_.processes.size(); ++p) {
    const auto& info = run_.processes[p].process;
    uint64_t pid = info ? info->pid : 0;
    if (pid == 0 || used.count(pid)) pid = 0x60000000ull + p;
    used.insert(pid);
    cpu_pid_.push_back(pid);
  }
}

void TraceWriter::collect_annotations() {
  // (range, device, stream) -> span of the work launched inside it.
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
  for (auto& [k, s] : spans) {
    s.start_ns = s.start_ns > 0 ? s.start_ns - 1 : 0;
    s.end_ns += 2;
    annotations_.push_back(s);
  }
}

void TraceWriter::mark_launchers() {
  launcher_.assign(run_.cpu_events.size(), false);
  for (const GpuActivity& g : run_.gpu_activities)
    if (g.launched_by >= 0 && g.correlation_id != 0) launcher_[static_cast<size_t>(g.launched_by)] = true;
}

// An event that ends on the same nanosecond as its parent must not end
// after it once read as doubles, or viewers close the parent first and leave
// the child (and everything after it on the row) misplaced. Such a parent
// is lengthened by a nanosecond until it holds; one pass checks, a second
// only runs when a parent grew (its own parent may then need it too).
void TraceWriter::fit_cpu_events_in_parents() {
  cpu_extra_ns_.assign(run_.cpu_events.size(), 0);
  auto end_of = [&](size_t i) {
    const CpuEvent& e = run_.cpu_events[i];
    return reader_end_us(ts(e.start_ns), e.duration_ns() + cpu_extra_ns_[i]);
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < run_.cpu_events.size(); ++i) {
      const int64_t p = tree_.parent(i);
      if (p == RangeTree::kNoParent || run_.cpu_events[i].kind == CpuEventKind::kStartEndRange) continue;
      const auto parent = static_cast<size_t>(p);
      if (run_.cpu_events[i].end_ns + cpu_extra_ns_[i] > run_.cpu_events[parent].end_ns + cpu_extra_ns_[parent]) continue;
      while (end_of(i) > end_of(parent) && cpu_extra_ns_[parent] < UINT8_MAX) {
        ++cpu_extra_ns_[parent];
        grew = true;
      }
    }
  }
}

// The same for the GPU spans of nested ranges, which often end together
// (a step and its last phase end with the same kernel). Per row, by start
// and longest first, children are settled before their parent is compared
// with its own.
void TraceWriter::fit_annotations_in_parents() {
  std::vector<size_t> order(annotations_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto row = [&](const AnnotationSpan& s) { return std::tuple(s.process, s.device, s.stream); };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const AnnotationSpan &x = annotations_[a], &y = annotations_[b];
    return std::tuple(row(x), x.start_ns, ~x.end_ns) < std::tuple(row(y), y.start_ns, ~y.end_ns);
  });
  auto end_of = [&](size_t i) {
    return reader_end_us(ts(annotations_[i].start_ns), annotations_[i].end_ns - annotations_[i].start_ns);
  };
  // Open spans in start order, with the innermost span that holds each. The
  // padding makes spans of back-to-back work overlap, so a span's parent is
  // not always the last one opened.
  struct Open {
    size_t span;
    int64_t parent;
  };
  std::vector<Open> open;
  auto close = [&](size_t k) {
    const Open o = open[k];
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(k));
    if (o.parent < 0) return;
    AnnotationSpan& p = annotations_[static_cast<size_t>(o.parent)];
    while (end_of(o.span) > end_of(static_cast<size_t>(o.parent))) ++p.end_ns;
  };
  // Closes the open spans that end by `t`, the latest-starting first, so a
  // child settles before its parent.
  auto close_until = [&](uint64_t t) {
    for (size_t k = open.size(); k-- > 0;)
      if (annotations_[open[k].span].end_ns <= t) close(k);
  };
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t i = order[k];
    if (k > 0 && row(annotations_[order[k - 1]]) != row(annotations_[i])) close_until(UINT64_MAX);
    close_until(annotations_[i].start_ns);
    int64_t parent = -1;
    for (size_t j = open.size(); j-- > 0;)
      if (annotations_[i].end_ns <= annotations_[open[j].span].end_ns) {
        parent = static_cast<int64_t>(open[j].span);
        break;
      }
    open.push_back({i, parent});
  }
  close_until(UINT64_MAX);
}

void TraceWriter::device_properties() {
  out_.key("deviceProperties").raw("[");
  bool first_device = true;
  std::set<uint32_t> seen;
  for (const ProcessInfo& p : run_.processes)
    for (const recorded::Device& d : p.devices) {
      if (!seen.insert(d.id).second) continue;  // same index on another rank: listed once
      out_.raw(first_device ? "{" : ",{");
      first_device = false;
      // Kineto's keys and order (cudaDeviceProp's fields).
      out_.raw("\"id\":").num(d.id).key("name").str(d.name).key("totalGlobalMem").num(d.global_memory_bytes);
      out_.key("computeMajor").num(d.compute_major).key("computeMinor").num(d.compute_minor);
      out_.key("maxThreadsPerBlock").num(d.max_threads_per_block);
      out_.key("maxThreadsPerMultiprocessor").num(uint64_t{d.max_warps_per_multiprocessor} * d.warp_size);
      out_.key("regsPerBlock").num(d.max_registers_per_block);
      out_.key("regsPerMultiprocessor").num(d.max_registers_per_multiprocessor);
      out_.key("warpSize").num(d.warp_size).key("sharedMemPerBlock").num(d.max_shared_memory_per_block);
      out_.key("sharedMemPerMultiprocessor").num(d.max_shared_memory_per_multiprocessor);
      out_.key("numSms").num(d.sm_count);
      out_.key("sharedMemPerBlockOptin").num(d.max_shared_memory_per_block_optin).raw("}");
    }
  out_.raw("]");
}

// Kineto's distributed_info, of the first process; every process's rank and
// host are also in its process_labels. HTA finds a file's rank with the
// pattern "rank":\s+(\d+), as Kineto writes it (a space after the colon),
// and takes a file without one for rank 0: a process that was given no rank
// is rank 0 of 1 here too, said rather than left for readers to guess.
void TraceWriter::distributed_info() {
  for (const ProcessInfo& p : run_.processes) {
    if (!p.process) continue;
    const bool ranked = p.process->rank >= 0;
    out_.key("distributedInfo").raw("{\"rank\": ").snum(ranked ? p.process->rank : 0);
    out_.raw(", \"world_size\": ").snum(ranked && p.process->world_size > 0 ? p.process->world_size : 1);
    out_.raw(", \"hostname\": ").str(p.process->hostname).raw(", \"pid\": ").num(p.process->pid).raw("}");
    return;
  }
  out_.key("distributedInfo").raw("{\"rank\": 0, \"world_size\": 1}");
}

void TraceWriter::header() {
  out_.raw("{\"schemaVersion\":1");
  distributed_info();
  device_properties();
  out_.key("displayTimeUnit").str("ms");
  for (const ProcessInfo& p : run_.processes) {
    // RunBuilder put every file on the clock of the first one with an anchor.
    if (!p.process || !p.process->clock_anchor) continue;
    const recorded::ClockAnchor& a = *p.process->clock_anchor;
    out_.key("baseTimeNanoseconds").num(origin_ - a.monotonic_ns + a.realtime_ns);
    break;
  }
  out_.key("traceName").str(options_.trace_name);
  out_.key("traceEvents").raw("[");
}

void TraceWriter::metadata() {
  std::map<uint32_t, std::set<uint32_t>> threads;                     // process -> tids
  std::map<std::pair<uint32_t, uint32_t>, std::set<int64_t>> streams;  // (process, device) -> rows
  for (size_t p = 0; p < run_.processes.size(); ++p)
    for (const auto& [tid, name] : run_.processes[p].threads) threads[static_cast<uint32_t>(p)].insert(tid);
  for (const CpuEvent& e : run_.cpu_events) threads[e.process].insert(e.tid);
  for (const GpuActivity& g : run_.gpu_activities) streams[{g.process, g.device_id}].insert(g.stream_id);
  for (const Synchronization& s : run_.synchronizations)
    streams[{s.process, s.device_id}].insert(s.stream_id == kNoStream ? -1 : kSyncRowOffset + s.stream_id);
  for (const MemoryEvent& m : run_.memory_events)
    if (m.on_device) streams[{m.process, m.device_id}];

  for (size_t p = 0; p < run_.processes.size(); ++p) {
    const ProcessInfo& info = run_.processes[p];
    const uint64_t pid = cpu_pid_[p];
    std::string name = info.process && !info.process->executable.empty() ? base_name(info.process->executable)
                                                                           : base_name(info.path);
    std::string labels = "CPU";
    if (info.process) {
      if (info.process->rank >= 0) labels += ", rank " + std::to_string(info.process->rank);
      if (!info.process->hostname.empty()) labels += ", host " + info.process->hostname;
    }
    const auto sort_index = static_cast<int64_t>(p);
    meta_event("process_name", pid, nullptr, "name", &name, nullptr);
    meta_event("process_labels", pid, nullptr, "labels", &labels, nullptr);
    meta_event("process_sort_index", pid, nullptr, "sort_index", nullptr, &sort_index);
    for (uint32_t tid : threads[static_cast<uint32_t>(p)]) {
      const int64_t t = tid;
      std::string thread_name = "thread " + std::to_string(tid);
      if (auto it = info.threads.find(tid); it != info.threads.end() && !it->second.empty())
        thread_name += " (" + it->second + ")";
      meta_event("thread_name", pid, &t, "name", &thread_name, nullptr);
      meta_event("thread_sort_index", pid, &t, "sort_index", nullptr, &t);
    }
  }
  for (const auto& [key, rows] : streams) {
    const auto [process, device] = key;
    const uint64_t pid = gpu_pid(process, device);
    std::string name = "GPU " + std::to_string(device);
    if (run_.processes.size() > 1) name += " (pid " + std::to_string(cpu_pid_[process]) + ")";
    std::string labels = "GPU " + std::to_string(device);
    for (const recorded::Device& d : run_.processes[process].devices)
      if (d.id == device && !d.name.empty()) labels += ", " + d.name;
    const auto sort_index = static_cast<int64_t>(0x1000000ull + pid);
    meta_event("process_name", pid, nullptr, "name", &name, nullptr);
    meta_event("process_labels", pid, nullptr, "labels", &labels, nullptr);
    meta_event("process_sort_index", pid, nullptr, "sort_index", nullptr, &sort_index);
    for (int64_t row : rows) {
      // Kineto's row names: "stream N", "stream N (sync)", and "Device N"
      // for device-wide synchronizations.
      std::string row_name = row < 0                 ? "Device " + std::to_string(device)
                            : row >= kSyncRowOffset ? "stream " + std::to_string(row - kSyncRowOffset) + " (sync)"
                                                    : "stream " + std::to_string(row);
      const int64_t sort = row >= kSyncRowOffset ? row - kSyncRowOffset : row;
      meta_event("thread_name", pid, &row, "name", &row_name, nullptr);
      meta_event("thread_sort_index", pid, &row, "sort_index", nullptr, &sort);
    }
  }
}

void TraceWriter::api_call(size_t index) {
  const CpuEvent& e = run_.cpu_events[index];
  const uint64_t pid = cpu_pid_[e.process];
  const std::string& name = run_.name(e.name);
  // Readers (HTA, TensorBoard) join GPU work to the CPU event that carries
  // its correlation id, one per id, as in Kineto's traces. A driver call
  // made inside a runtime call shares the runtime call's id, so it goes in a
  // category of its own and names the id under another key: joined on, it
  // would count the work twice.
  const bool runtime = is_runtime_call(e);
  const bool inner = nested_call(index);
  common("X", runtime ? "cuda_runtime" : inner ? "cuda_driver_nested" : "cuda_driver", name, pid,
         e.tid);
  span(e.start_ns, e.duration_ns() + cpu_extra_ns_[index]);
  out_.key("args").raw("{\"cbid\":").num(run_.callback_id(e.name));
  out_.key(inner ? "runtime correlation" : "correlation").num(e.correlation_id);
  if (options_.namer != nullptr && e.stack != 0 && e.stack <= run_.stacks.size()) {
    out_.raw(",\"stack\":[");
    const std::vector<std::string>& names = stack_names(e.stack);
    for (size_t i = 0; i < names.size(); ++i) out_.raw(i == 0 ? "" : ",").str(names[i]);
    out_.raw("]");
  }
  out_.raw("}").end_event();
  // One flow start per call that launched work, however many operations
  // it launched (a graph launch runs many).
  if (launcher_[index]) {
    common("s", "ac2g", "ac2g", pid, e.tid);
    out_.key("id").num(flow_id(e.process, e.correlation_id)).key("ts").micros(ts(e.start_ns)).end_event();
  }
}

void TraceWriter::cpu_event(size_t index) {
  const CpuEvent& e = run_.cpu_events[index];
  if (e.kind == CpuEventKind::kApiCall) return api_call(index);
  const uint64_t pid = cpu_pid_[e.process];
  const std::string full_name = range_name(run_, e);
  auto args = [&] {
    out_.key("args").raw("{\"External id\":").num(external_id(index));
    if (e.domain) out_.key("domain").str(run_.name(e.domain));
    if (e.unterminated) out_.raw(",\"unterminated\":true");
    out_.raw("}");
  };
  if (e.kind == CpuEventKind::kPushPopRange) {
    common("X", "user_annotation", full_name, pid, e.tid);
    span(e.start_ns, e.duration_ns() + cpu_extra_ns_[index]);
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

// Kineto's kernel args, in its order. "queued" is CUPTI's queued
// timestamp, which neither Kineto nor the agent asks CUPTI for: 0 (CUPTI's
// "unknown"), as in Kineto's traces.
void TraceWriter::kernel_args(const GpuActivity& g) {
  const KernelConfig& k = run_.kernel_configs[g.kernel_config];
  out_.key("args").raw("{\"queued\":0").key("device").num(g.device_id).key("context").num(g.context_id);
  out_.key("stream").num(g.stream_id).key("correlation").num(g.correlation_id);
  out_.key("registers per thread").num(k.registers_per_thread);
  out_.key("shared memory").num(uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
  const recorded::Device* device = nullptr;
  for (const recorded::Device& d : run_.processes[g.process].devices)
    if (d.id == g.device_id) device = &d;
  const Occupancy occupancy = estimate_occupancy(k, device);
  if (device && device->sm_count > 0) {
    out_.key("blocks per SM").real(occupancy.blocks_per_sm);
    out_.key("warps per SM").real(occupancy.warps_per_sm);
  }
  out_.key("grid").raw("[").num(k.grid[0]).raw(",").num(k.grid[1]).raw(",").num(k.grid[2]).raw("]");
  out_.key("block").raw("[").num(k.block[0]).raw(",").num(k.block[1]).raw(",").num(k.block[2]).raw("]");
  out_.key("est. achieved occupancy %").num(occupancy.achieved_percent);
  out_.key("graph id").num(g.graph_id).key("graph node id").num(k.graph_node_id);
  out_.raw("}");
}

void TraceWriter::gpu_event(size_t index) {
  const GpuActivity& g = run_.gpu_activities[index];
  const uint64_t pid = gpu_pid(g.process, g.device_id);
  const char* cat = g.kind == GpuKind::kKernel ? "kernel" : g.kind == GpuKind::kMemcpy ? "gpu_memcpy" : "gpu_memset";
  common("X", cat, run_.name(g.name), pid, g.stream_id);
  span(g.start_ns, g.duration_ns());
  if (g.kind == GpuKind::kKernel) {
    kernel_args(g);
  } else {
    out_.key("args").raw("{\"device\":").num(g.device_id).key("context").num(g.context_id);
    out_.key("stream").num(g.stream_id).key("correlation").num(g.correlation_id);
    out_.key("bytes").num(g.bytes);
    // bytes per ns is GB/s.
    const double bandwidth = g.duration_ns() ? static_cast<double>(g.bytes) / static_cast<double>(g.duration_ns()) : 0;
    out_.key("memory bandwidth (GB/s)").real(bandwidth);
    if (g.kind == GpuKind::kMemcpy) out_.key("kind").str(copy_kind_name(g.copy_kind));
    out_.key("graph id").num(g.graph_id);
    out_.raw("}");
  }
  out_.end_event();

  // The launch arrow's end; its start is on the launching call.
  if (g.launched_by < 0 || g.correlation_id == 0) return;
  common("f", "ac2g", "ac2g", pid, g.stream_id);
  out_.key("id").num(flow_id(g.process, g.correlation_id)).key("ts").micros(ts(g.start_ns)).raw(",\"bp\":\"e\"").end_event();
}

// Kineto gives a GPU span of a range its range's External id and nothing
// else: readers (HTA, TensorBoard) take an event with device and stream
// args for GPU work and would count the span as a kernel.
void TraceWriter::annotation(size_t index) {
  const AnnotationSpan& s = annotations_[index];
  const CpuEvent& range = run_.cpu_events[s.range];
  common("X", "gpu_user_annotation", range_name(run_, range), gpu_pid(s.process, s.device), s.stream);
  span(s.start_ns, s.end_ns - s.start_ns);
  out_.key("args").raw("{\"External id\":").num(external_id(s.range)).raw("}").end_event();
}

void TraceWriter::sync(size_t index) {
  const Synchronization& s = run_.synchronizations[index];
  const bool on_stream = s.stream_id != kNoStream;
  const char* name = sync_name(s.kind);
  common("X", "cuda_sync", name, gpu_pid(s.process, s.device_id), on_stream ? kSyncRowOffset + s.stream_id : -1);
  span(s.start_ns, s.duration_ns());
  out_.key("args").raw("{\"cuda_sync_kind\":").str(name);
  if (s.kind == SyncKind::kEventSynchronize || s.kind == SyncKind::kStreamWaitEvent)
    out_.key("wait_on_cuda_event_id").num(s.event);
  out_.key("stream").snum(on_stream ? int64_t{s.stream_id} : -1).key("correlation").num(s.correlation_id);
  out_.key("device").num(s.device_id).key("context").num(s.context_id).raw("}").end_event();
}

// Memory in use as a counter (the clearer picture), and each allocation and
// release as Kineto's "[memory]" instant event, which TensorBoard's memory
// view reads.
void TraceWriter::memory(size_t index) {
  const MemoryEvent& m = run_.memory_events[index];
  const uint64_t cpu_pid = cpu_pid_[m.process];
  begin_event();
  if (m.on_device) {
    out_.raw("{\"ph\":\"C\",\"name\":").str("GPU " + std::to_string(m.device_id) + " memory in use");
    out_.key("pid").num(gpu_pid(m.process, m.device_id));
  } else {
    out_.raw("{\"ph\":\"C\",\"name\":").str("CUDA host memory in use");
    out_.key("pid").num(cpu_pid);
  }
  out_.key("ts").micros(ts(m.time_ns)).key("args").raw("{\"bytes\":").snum(memory_in_use_[index]).raw("}").end_event();

  begin_event();
  out_.raw("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\"");
  // On the allocating thread's row; CUPTI names it only for some kinds.
  const uint32_t tid = m.tid || m.called_by < 0 ? m.tid : run_.cpu_events[static_cast<size_t>(m.called_by)].tid;
  out_.key("pid").num(cpu_pid).key("tid").num(tid).key("ts").micros(ts(m.time_ns));
  // Kineto's device types: 0 CPU, 1 CUDA. Allocated and reserved are the
  // same here: CUDA's own allocator keeps no cache.
  out_.key("args").raw("{\"Device Type\":").num(m.on_device ? 1 : 0).key("Device Id").snum(m.on_device ? m.device_id : -1);
  out_.key("Addr").num(m.address).key("Bytes").snum(m.signed_bytes());
  out_.key("Total Allocated").snum(memory_in_use_[index]).key("Total Reserved").snum(memory_in_use_[index]);
  out_.raw("}").end_event();
}

ChromeTraceStats TraceWriter::write() {
  assign_pids();
  collect_annotations();
  mark_launchers();
  std::vector<Item> items;
  items.reserve(run_.cpu_events.size() + run_.gpu_activities.size() + annotations_.size() +
                run_.synchronizations.size() + run_.memory_events.size());
  for (size_t i = 0; i < run_.cpu_events.size(); ++i)
    items.push_back({run_.cpu_events[i].start_ns, ItemKind::kCpu, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < run_.gpu_activities.size(); ++i)
    items.push_back({run_.gpu_activities[i].start_ns, ItemKind::kGpu, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < annotations_.size(); ++i)
    items.push_back({annotations_[i].start_ns, ItemKind::kAnnotation, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < run_.synchronizations.size(); ++i)
    items.push_back({run_.synchronizations[i].start_ns, ItemKind::kSync, static_cast<uint32_t>(i)});
  for (size_t i = 0; i < run_.memory_events.size(); ++i)
    items.push_back({run_.memory_events[i].time_ns, ItemKind::kMemory, static_cast<uint32_t>(i)});
  std::sort(items.begin(), items.end());
  origin_ = items.empty() ? 0 : items.front().start_ns;
  for (const GpuActivity& g : run_.gpu_activities)  // a flow's start may precede (clock skew)
    if (g.launched_by >= 0) origin_ = std::min(origin_, run_.cpu_events[static_cast<size_t>(g.launched_by)].start_ns);
  fit_cpu_events_in_parents();
  fit_annotations_in_parents();

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
      case ItemKind::kAnnotation: annotation(item.index); break;
      case ItemKind::kSync: sync(item.index); break;
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
