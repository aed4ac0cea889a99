#include "views/chrome_trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "model/cores.h"
#include "model/gpu_names.h"
#include "model/launching_calls.h"
#include "model/range_tree.h"
#include "model/sorted_runs.h"
#include "views/cpu_start_order.h"
#include "views/folded_stacks.h"
#include "views/json_numbers.h"
#include "views/text_escape.h"
#include "views/trace_operators.h"
#include "views/occupancy.h"
#include "views/ordered_blocks.h"
#include "views/start_order.h"

namespace prof::analyzer {
namespace {

// Buffered JSON text; hands full buffers to the sink. Its own buffer, not
// a std::string: each piece is copied in after one inline room check, the
// literals at their known length and numbers converted in place, where
// std::string::append's out-of-line call and a libc memcpy per piece were
// a third of writing a trace. Made without a sink, it keeps its text (a
// block of items formatted on another thread) until another JsonOut appends it.
class JsonOut {
 public:
  explicit JsonOut(TraceSink& sink) : JsonOut(&sink) {}
  JsonOut() : JsonOut(nullptr) {}
  ~JsonOut() { flush(); }
  JsonOut(const JsonOut&) = delete;
  JsonOut& operator=(const JsonOut&) = delete;

  // A literal: its length is known where it is written, so the copy is a
  // few moves inline, where put()'s out-of-line call and libc memcpy per
  // literal were a tenth of writing a trace.
  template <size_t N>
  JsonOut& raw(const char (&text)[N]) {
    std::memcpy(room(N - 1), text, N - 1);
    size_ += N - 1;
    return *this;
  }
  JsonOut& raw(std::string_view text) {
    put(text.data(), text.size());
    return *this;
  }
  JsonOut& str(std::string_view text) {
    escaped_.clear();
    append_json_string(escaped_, text);
    return raw(escaped_);
  }
  // Numbers are written straight into the buffer (json_numbers.h):
  // snprintf and to_string were a fifth of writing a trace of millions of
  // events, to_chars still a sixth.
  JsonOut& num(uint64_t value) { return decimal(value); }
  JsonOut& snum(int64_t value) { return decimal(value); }
  // As "%.3f" (to_chars with a precision is printf's conversion).
  JsonOut& real(double value) {
    char* out = room(kNumberRoom);
    char* end = write_fixed3(out, value);
    if (end == nullptr) return chars(value, std::chars_format::fixed, 3);
    size_ += static_cast<size_t>(end - out);
    return *this;
  }
  // Microseconds with exact nanosecond decimals: 1234567 ns -> 1234.567.
  JsonOut& micros(uint64_t ns) {
    decimal(ns / 1000);
    const auto fraction = static_cast<unsigned>(ns % 1000);
    char* out = room(4);
    out[0] = '.';
    out[1] = static_cast<char>('0' + fraction / 100);
    out[2] = static_cast<char>('0' + fraction / 10 % 10);
    out[3] = static_cast<char>('0' + fraction % 10);
    size_ += 4;
    return *this;
  }
  // The dur of [start_ns, end_ns) as the exact difference of the doubles
  // readers parse for the two ends, so that any reader's sum comes out
  // exactly: ts + dur (5029.716 + 1.328 is 5031.044000000001, past an
  // event that starts at 5031.044), or speedscope's (ts - first ts) + dur.
  // Both differences are exact in doubles (Sterbenz's lemma) because every
  // ts is at least half of any other (the trace's time offset sees to it).
  // Three decimals where they are that double, else its shortest round-trip
  // digits (1.3279999999999745).
  JsonOut& duration_between(uint64_t start_ns, uint64_t end_ns) {
    const uint64_t exact_ns = end_ns >= start_ns ? end_ns - start_ns : 0;
    // Below 2^53 ns (104 days) ns / 1000.0 is the double nearest the
    // decimal micros() writes, as both are correctly rounded.
    const double start = static_cast<double>(start_ns) / 1000.0;
    const double end = static_cast<double>(start_ns + exact_ns) / 1000.0;
    const double dur = end - start;
    if (dur == static_cast<double>(exact_ns) / 1000.0 || start + dur != end) return micros(exact_ns);
    return chars(dur, std::chars_format::fixed);
  }
  // `,"key":`. Keys are this file's literals, printable ASCII with no quote
  // or backslash, so they go in as they are: escaping them cost a twentieth
  // of writing a trace.
  template <size_t N>
  JsonOut& key(const char (&name)[N]) {
    char* out = room(N + 3);
    out[0] = ',';
    out[1] = '"';
    std::memcpy(out + 2, name, N - 1);
    out[N + 1] = '"';
    out[N + 2] = ':';
    size_ += N + 3;
    return *this;
  }
  JsonOut& key(std::string_view name) {
    raw(",\"").raw(name).raw("\":");
    return *this;
  }
  // Ends one event; flushes now and then.
  void end_event() {
    raw("}");
    ++events_;
    if (size_ >= kFlushAt && sink_ != nullptr) flush();
  }
  // Events ended so far: every entry of traceEvents, metadata and flows too.
  uint64_t events() const { return events_; }
  void flush() {
    if (size_ == 0 || sink_ == nullptr) return;
    sink_->write(std::string_view(data_.get(), size_));
    bytes_ += size_;
    size_ = 0;
  }
  uint64_t bytes() const { return bytes_ + size_; }
  // A kept text (made without a sink) after this one's, straight to the
  // sink: its events and bytes count as this one's.
  void append(const JsonOut& kept) {
    flush();
    if (kept.size_ != 0) sink_->write(std::string_view(kept.data_.get(), kept.size_));
    bytes_ += kept.size_;
    events_ += kept.events_;
  }
  // Empties a kept text, keeping its buffer.
  void clear() {
    size_ = 0;
    events_ = 0;
  }

 private:
  explicit JsonOut(TraceSink* sink) : sink_(sink), data_(new char[kFlushAt + kRoom]), capacity_(kFlushAt + kRoom) {}
  // Where the next `n` bytes go; the caller adds them to size_.
  char* room(size_t n) {
    if (n > capacity_ - size_) grow(n);
    return data_.get() + size_;
  }
  void put(const char* text, size_t n) {
    std::memcpy(room(n), text, n);
    size_ += n;
  }
  // An event longer than the room left (long names, deep stacks).
  void grow(size_t n) {
    const size_t capacity = std::max(capacity_ * 2, size_ + n);
    std::unique_ptr<char[]> bigger(new char[capacity]);
    std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = capacity;
  }
  template <typename Integer>
  JsonOut& decimal(Integer value) {
    char* out = room(kNumberRoom);
    size_ += static_cast<size_t>(write_decimal(out, value) - out);
    return *this;
  }
  template <typename... Args>
  JsonOut& chars(Args... args) {
    char* out = room(kNumberRoom);
    const std::to_chars_result end = std::to_chars(out, out + kNumberRoom, args...);
    size_ += static_cast<size_t>(end.ptr - out);
    return *this;
  }

  static constexpr size_t kFlushAt = 1 << 16;
  static constexpr size_t kRoom = 4096;       // past kFlushAt, so that most events never grow the buffer
  static constexpr size_t kNumberRoom = 64;   // a double's fixed digits up to 1e40 and more
  uint64_t events_ = 0;
  TraceSink* sink_;  // null: the text is kept
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
  std::string escaped_;  // str()'s scratch
  uint64_t bytes_ = 0;
};


// The recorded domain; a call without one counts as runtime, as the model
// names an unnamed call of no domain "<cuda runtime cbid N>".
bool is_runtime_call(const CpuEvent& e) { return e.api_domain() != ApiDomain::kDriver; }

// TraceWriter::nested_call's answer for each CPU event (false for all but
// API calls).
std::vector<bool> nested_calls(const Run& run) {
  const LaunchingCalls launching(run);
  std::vector<bool> nested(run.cpu_events.size(), false);
  for (size_t i = 0; i < run.cpu_events.size(); ++i) {
    const CpuEvent& e = run.cpu_events[i];
    if (e.kind == CpuEventKind::kApiCall && e.correlation_id() != 0)
      nested[i] = launching.find(e.process, e.correlation_id()) != static_cast<int64_t>(i);
  }
  return nested;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
// One gpu_user_annotation, as Kineto writes them: one per GPU operation
// launched inside a push/pop range, named after the innermost range only
// (never a ProfilerStep#N: readers count each event of that name as a
// step), padded around its operation (Kineto: 1 ns before, 2 ns after) so
// that viewers draw the range above its work rather than beside it. The
// padding stops at the stream's neighbouring operations and annotations,
// so annotations never overlap and always nest.
//
// About one per GPU record (3.2M at 10M events), held while writing: the
// ends are kept as the padding around the operation's own (0-1 ns before,
// 0-2 after), 12 bytes where the two times took 24 (38 MB of trace's peak).
struct GpuAnnotation {
  uint32_t range = 0;      // index into Run::cpu_events
  uint32_t operation = 0;  // index into Run::gpu_activities
  uint8_t before_ns = 0;   // start: the operation's start less this
  uint8_t after_ns = 0;    // end: the operation's end (at least its start) plus this

  uint64_t start_ns(const Run& run) const { return run.gpu_activities[operation].start_ns - before_ns; }
  uint64_t end_ns(const Run& run) const {
    const GpuActivity& g = run.gpu_activities[operation];
    return std::max(g.start_ns, g.end_ns) + after_ns;
  }
};
static_assert(sizeof(GpuAnnotation) == 12, "one per GPU record: keep it packed");

// In this order at equal start times: a step before the call that begins
// it, and an annotation before an operation it may equal (no room to pad),
// so that readers that keep file order for ties nest them the same way.
enum class ItemKind : uint8_t { kStep, kCpu, kAnnotation, kGpu, kSync, kMemory, kTensorMemory };

// A ProfilerStep#N CPU annotation the program did not mark itself.
struct StepMark {
  uint32_t process = 0;
  uint32_t tid = 0;
  int64_t index = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  bool whole_run = false;  // no steps at all: the process's CPU events
};

constexpr size_t kItemKinds = static_cast<size_t>(ItemKind::kTensorMemory) + 1;
constexpr size_t slot(ItemKind kind) { return static_cast<size_t>(kind); }

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

// The trace's items and everything their text depends on, made before the
// first item is written and only read while items are formatted, on every
// formatting thread at once. (stack_args is the exception: the merging
// thread fills a stack's entry before it hands out the first item that
// reads it; ordered_blocks.h's hand-over orders the two.)
struct TraceItems {
  TraceItems(const Run& run, const ChromeTraceOptions& options)
      : run(run),
        options(options),
        parents(run, cpu_start_order.collector(run.cpu_events), cores_for(options.jobs)),
        operators(run, parents),
        profiler_step(run.name_count()),
        stack_args(run.stacks.size()) {
    for (NameId id = 0; id < run.name_count(); ++id) profiler_step[id] = run.name(id).rfind("ProfilerStep#", 0) == 0;
  }

  uint64_t gpu_pid(uint32_t process, uint32_t device) const {
    return run.processes.size() > 1 ? 0x70000000ull + uint64_t{process} * 256 + device : device;
  }
  uint64_t flow_id(uint32_t process, uint32_t correlation) const {
    return run.processes.size() > 1 ? (uint64_t{process} << 32) | correlation : correlation;
  }
  // Microseconds since origin, plus offset_ns.
  uint64_t ts(uint64_t ns) const { return (ns >= origin ? ns - origin : 0) + offset_ns; }
  // When an item starts: where it goes in the file.
  uint64_t item_start(ItemKind kind, uint32_t index) const;
  // The driver calls a runtime call makes share its correlation id; the
  // outermost call of an id (LaunchingCalls' choice) is the one readers
  // join its GPU work to. The others are nested, also when their runtime
  // call was not recorded (the one that started CUDA).
  bool nested_call(size_t index) const { return nested_calls[index]; }
  // A driver call inside a runtime call, left out unless driver_calls.
  bool folded_driver_call(size_t index) const {
    // The bit first: the CPU order asks of every event, and most are not
    // nested, which spares a read of the event.
    if (!nested_call(index)) return false;
    const CpuEvent& e = run.cpu_events[index];
    return e.kind == CpuEventKind::kApiCall && !is_runtime_call(e);
  }
  bool in_cuda_or_agent(const Frame& f) const {
    return f.kind == FrameKind::kNative && f.module >= 0 && static_cast<size_t>(f.module) < run.modules.size() &&
           is_cuda_or_agent_module(run.modules[static_cast<size_t>(f.module)].path);
  }
  // Makes the "stack" arg of the API call an item names, if it has one and
  // it is not made yet: `,"stack":[...]`, the frames' names root first, once
  // per stack (names and escaping per call were a third of writing a trace
  // of launches with stacks). On the merging thread only: a FrameNamer
  // need not be callable from several threads at once.
  void make_stack_arg(ItemKind kind, uint32_t index);

  const Run& run;
  const ChromeTraceOptions& options;
  // The threads' start orders, kept as the links are made, for write() to
  // merge into the CPU events' order.
  CpuStartOrder cpu_start_order;
  RangeParents parents;
  // Per CPU event: whether it is an API call nested_call() calls nested. A
  // bit each, found once, where LaunchingCalls (4 bytes per correlation id,
  // 13 MB at 10M events) was held through the writing for its lookups.
  // Made by write(), beside the annotations.
  std::vector<bool> nested_calls;
  TraceOperators operators;  // cpu_op events and External ids (trace_operators.h)
  std::vector<bool> profiler_step;  // by NameId: "ProfilerStep#..."
  std::vector<std::string> stack_args;  // by stack index; empty: not made yet
  uint64_t origin = 0;
  // ts of the first event: at least the trace's span (choose_time_offset).
  uint64_t offset_ns = 0;
  std::vector<uint64_t> cpu_pid;
  std::vector<GpuAnnotation> annotations;
  uint64_t annotations_end_ns = 0;  // the last annotation's end, found as they are made
  std::vector<StepMark> steps;
  std::vector<int64_t> memory_in_use;  // per memory event, the running total after it
  // Processes with tensor-level memory (TensorMemoryEvent): their [memory]
  // events are the tensors', as torch.profiler's; the cudaMalloc segments
  // keep only their counter, which is then the memory reserved.
  std::vector<bool> has_tensor_memory;
  std::vector<bool> launcher;  // per CPU event: launched GPU work (starts an ac2g flow)
};

// What a formatting thread makes once and reuses across its blocks: JSON
// strings escaped once, occupancies computed once. One per thread, so that
// none is shared.
struct TextCache {
  explicit TextCache(const Run& run) : json_names(run.name_count()) {}
  std::vector<std::string> json_names;  // by NameId; empty: not escaped yet
  std::unordered_map<uint64_t, std::string> json_range_names;  // by domain << 32 | name
  // Per (process, device, kernel config): the device's record and the
  // kernel's occupancy on it, computed once.
  struct KernelOccupancy {
    const recorded::Device* device = nullptr;
    Occupancy occupancy;
  };
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, KernelOccupancy> occupancies;
};

// Writes items' JSON text to one JsonOut: a run of consecutive items of the
// file (a block), with what the text carries over from the items before
// them given up front (whether any event came before, for the separator;
// how many async ids the start/end ranges before them took), so that blocks
// can be written on several threads and still read as one.
class ItemText {
 public:
  ItemText(const TraceItems& items, TextCache& cache, JsonOut& out, bool first, uint64_t async_ids_before)
      : items_(items), cache_(cache), out_(out), first_(first), async_ids_(async_ids_before) {}

  void item(ItemKind kind, uint32_t index) {
    switch (kind) {
      case ItemKind::kStep: step(index); break;
      case ItemKind::kCpu: cpu_event(index); break;
      case ItemKind::kGpu: gpu_event(index); break;
      case ItemKind::kAnnotation: annotation(index); break;
      case ItemKind::kSync: sync(index); break;
      case ItemKind::kMemory: memory(index); break;
      case ItemKind::kTensorMemory: tensor_memory(index); break;
    }
  }
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
  // Whether no event is written yet, this writer's included: the next
  // one goes without a separator.
  bool first() const { return first_; }
  // Whether a CPU event takes an async id when written (a start/end range).
  static bool takes_async_id(const CpuEvent& e) {
    return e.kind != CpuEventKind::kApiCall && e.kind != CpuEventKind::kPushPopRange;
  }

 private:
  // A name of the Run as a JSON string, escaped once.
  const std::string& json_name(NameId name) {
    std::string& text = cache_.json_names[name];
    if (text.empty()) append_json_string(text, items_.run.name(name));
    return text;
  }
  // A push/pop or start/end range's name (TraceOperators::name) as a JSON
  // string, escaped once per name and domain.
  const std::string& json_range_name(size_t range) {
    const CpuEvent& e = items_.run.cpu_events[range];
    std::string& text = cache_.json_range_names[uint64_t{e.nvtx_domain()} << 32 | e.name];
    if (text.empty()) append_json_string(text, items_.operators.name(range));
    return text;
  }
  void begin_event() {
    out_.raw(first_ ? "\n" : ",\n");
    first_ = false;
  }
  void common(const char* ph, std::string_view cat, std::string_view name, uint64_t pid, int64_t tid) {
    begin_event();
    out_.raw("{\"ph\":\"").raw(ph).raw("\",\"cat\":").str(cat).raw(",\"name\":").str(name);
    out_.key("pid").num(pid).key("tid").snum(tid);
  }
  // The same with the category and name given as JSON strings already.
  void common_json(const char* ph, std::string_view cat_json, std::string_view name_json, uint64_t pid, int64_t tid) {
    begin_event();
    out_.raw("{\"ph\":\"").raw(ph).raw("\",\"cat\":").raw(cat_json).raw(",\"name\":").raw(name_json);
    out_.key("pid").num(pid).key("tid").snum(tid);
  }
  // ts and dur of [start_ns, end_ns), dur exact as readers add it.
  void span(uint64_t start_ns, uint64_t end_ns) {
    out_.key("ts").micros(items_.ts(start_ns)).key("dur").duration_between(items_.ts(start_ns), items_.ts(end_ns));
  }
  void step(size_t index);
  void cpu_event(size_t index);
  void external_id_arg(uint64_t id) {
    if (id != 0) out_.key("External id").num(id);
  }
  void fwdbwd_flow(size_t range);
  void api_call(size_t index);
  void gpu_event(size_t index);
  void kernel_args(const GpuActivity& g);
  void annotation(size_t index);
  void sync(size_t index);
  void memory(size_t index);
  void tensor_memory(size_t index);
  // Kineto's "External id" of a push/pop range: its index + 1, the same on
  // its CPU event and its GPU spans.
  static uint64_t external_id(size_t range) { return TraceOperators::range_external_id(range); }

  const TraceItems& items_;
  TextCache& cache_;
  JsonOut& out_;
  bool first_ = true;
  uint64_t async_ids_ = 0;
};

class TraceWriter {
 public:
  TraceWriter(const Run& run, const ChromeTraceOptions& options, JsonOut& out)
      : items_(run, options), out_(out), cache_(run) {}

  ChromeTraceStats write();

 private:
  void assign_pids();
  void collect_steps();
  int64_t annotated_range(const GpuActivity& operation) const;
  // The annotations, and both their start order and the GPU work's, which
  // come of the streams' orders the annotations are made in.
  void collect_annotations(StartOrder& gpu_order, StartOrder& annotation_order);
  void mark_launchers();
  void choose_time_offset();
  void header();
  void device_properties();
  void distributed_info();
  // Writes the metadata events; whether none was written.
  bool metadata();
  // The items, in the order `next` hands them out, `count` of them, on the
  // formatting threads; whether no event is written before them is `first`.
  template <typename Next>
  void write_items(Next next, uint64_t count, bool first);

  TraceItems items_;
  JsonOut& out_;
  TextCache cache_;  // the calling thread's: metadata, and items when formatted here
};

void TraceWriter::assign_pids() {
  // OS pids, unless two files share one (two hosts) or a file has none.
  std::set<uint64_t> used;
  for (size_t p = 0; p < items_.run.processes.size(); ++p) {
    const auto& info = items_.run.processes[p].process;
    uint64_t pid = info ? info->pid : 0;
    if (pid == 0 || used.count(pid)) pid = 0x60000000ull + p;
    used.insert(pid);
    items_.cpu_pid.push_back(pid);
  }
}

// TensorBoard's plugin finds steps only in events named ProfilerStep#N, and
// without any takes the span of the trace's operators (cpu_op) for its one
// step: none here, which made its step time -2^64 us. So a process without
// ProfilerStep# ranges of its own gets the steps --step found, each on the
// thread of its first event (the call or range that began it), or else one
// ProfilerStep#0 over all its CPU events: the plugin's own choice for a
// trace without steps, with the events it needs to make it.
void TraceWriter::collect_steps() {
  const size_t processes = items_.run.processes.size();
  std::vector<bool> marked(processes, false);
  // (start, tid) of every CPU event, only of the processes given steps.
  std::vector<bool> given_steps(processes, false);
  for (const TraceStep& step : items_.options.steps)
    if (step.process < processes) given_steps[step.process] = true;
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> starts(processes);
  std::vector<uint64_t> cpu_events(processes, 0);
  std::vector<std::map<uint32_t, uint64_t>> events_per_thread(processes);
  std::vector<std::pair<uint64_t, uint64_t>> cpu_span(processes, {UINT64_MAX, 0});
  // Consecutive events are mostly of one thread: count them up before
  // touching the map.
  uint32_t run_process = 0, run_tid = 0;
  uint64_t run_length = 0;
  auto count_run = [&] {
    if (run_length) events_per_thread[run_process][run_tid] += run_length;
  };
  for (const CpuEvent& e : items_.run.cpu_events) {
    if (e.process >= processes) continue;
    if (e.kind == CpuEventKind::kPushPopRange && items_.profiler_step[e.name]) marked[e.process] = true;
    if (given_steps[e.process]) starts[e.process].emplace_back(e.start_ns, e.tid);
    ++cpu_events[e.process];
    if (e.process != run_process || e.tid != run_tid) {
      count_run();
      run_process = e.process;
      run_tid = e.tid;
      run_length = 0;
    }
    ++run_length;
    cpu_span[e.process].first = std::min(cpu_span[e.process].first, e.start_ns);
    cpu_span[e.process].second = std::max(cpu_span[e.process].second, std::max(e.start_ns, e.end_ns));
  }
  count_run();
  auto main_thread = [&](uint32_t p) {
    uint32_t tid = 0;
    uint64_t most = 0;
    for (const auto& [t, n] : events_per_thread[p])
      if (n > most) std::tie(tid, most) = std::tie(t, n);
    return tid;
  };
  std::vector<bool> stepped(processes, false);
  for (const TraceStep& step : items_.options.steps) {
    if (step.process >= processes || marked[step.process] || step.end_ns < step.start_ns) continue;
    std::vector<std::pair<uint64_t, uint32_t>>& s = starts[step.process];
    if (!stepped[step.process]) std::sort(s.begin(), s.end());
    stepped[step.process] = true;
    const auto first = std::lower_bound(s.begin(), s.end(), std::pair<uint64_t, uint32_t>{step.start_ns, 0});
    const uint32_t tid = first != s.end() && first->first < step.end_ns ? first->second : main_thread(step.process);
    items_.steps.push_back({step.process, tid, step.index, step.start_ns, step.end_ns, false});
  }
  for (uint32_t p = 0; p < processes; ++p)
    if (!marked[p] && !stepped[p] && cpu_events[p] != 0)
      items_.steps.push_back({p, main_thread(p), 0, cpu_span[p].first, cpu_span[p].second, true});
}

void ItemText::step(size_t index) {
  const StepMark& s = items_.steps[index];
  common("X", "user_annotation", "ProfilerStep#" + std::to_string(s.index), items_.cpu_pid[s.process], s.tid);
  span(s.start_ns, s.end_ns);
  out_.key("args").raw("{");
  if (s.whole_run) out_.str("steps").raw(":").str("none: the whole run");
  else out_.str("step rule").raw(":").str(items_.options.step_rule);
  out_.raw("}").end_event();
}

// The innermost push/pop range around the call that launched `operation`,
// or -1 (none, or a ProfilerStep#N).
int64_t TraceWriter::annotated_range(const GpuActivity& operation) const {
  if (operation.launched_by < 0) return -1;
  // RangeParents' links form a tree: the walk ends, whatever the file held.
  for (int64_t p = items_.parents.parent(static_cast<size_t>(operation.launched_by)); p != RangeParents::kNoParent;
       p = items_.parents.parent(static_cast<size_t>(p))) {
    const CpuEvent& e = items_.run.cpu_events[static_cast<size_t>(p)];
    if (e.kind != CpuEventKind::kPushPopRange) continue;
    return items_.profiler_step[e.name] ? -1 : p;
  }
  return -1;
}

void TraceWriter::collect_annotations(StartOrder& gpu_order, StartOrder& annotation_order) {
  // Each stream's operations in start order; a single pass per stream.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> streams;
  std::tuple<uint32_t, uint32_t, uint32_t> last{UINT32_MAX, UINT32_MAX, UINT32_MAX};
  std::vector<uint32_t>* last_stream = nullptr;  // consecutive operations are mostly of one stream
  for (size_t i = 0; i < items_.run.gpu_activities.size(); ++i) {
    const GpuActivity& g = items_.run.gpu_activities[i];
    const GpuPlace& place = items_.run.place(g);
    if (!last_stream || std::tuple{g.process, place.device_id, place.stream_id} != last) {
      last = {g.process, place.device_id, place.stream_id};
      last_stream = &streams[last];
    }
    last_stream->push_back(static_cast<uint32_t>(i));
  }
  // At most one annotation per operation, reserved up front: the pages past
  // the last one are never touched, where growing by doubling held the old
  // and the new buffer at once (18 MB more at trace's peak at 10M events).
  items_.annotations.reserve(items_.run.gpu_activities.size());
  // Both tables' start orders are merged from the streams' (a stream's
  // annotations are made in its operations' start order, each starting
  // 0-1 ns before its operation and never before the one before it).
  std::vector<SortedRun> operation_runs, annotation_runs;
  for (auto& [row, operations] : streams) {
    auto earlier = [&](uint32_t a, uint32_t b) {
      const GpuActivity &x = items_.run.gpu_activities[a], &y = items_.run.gpu_activities[b];
      return std::tie(x.start_ns, x.end_ns, a) < std::tie(y.start_ns, y.end_ns, b);
    };
    // A stream's operations come in order but for a few stretches (at
    // 1M events 8 in a stream of 162K), which are merged in: a sort of the
    // whole stream was half of collecting the annotations.
    size_t moves_left = 4 * operations.size() + (size_t{1} << 20);
    if (!merge_sorted_runs(operations.data(), operations.data() + operations.size(), earlier, moves_left))
      std::sort(operations.begin(), operations.end(), earlier);
    operation_runs.push_back({operations.data(), 0, operations.size()});
    const size_t annotations_before = items_.annotations.size();
    uint64_t taken_until = 0;  // the end of the stream's operations and annotations so far
    for (size_t k = 0; k < operations.size(); ++k) {
      const GpuActivity& g = items_.run.gpu_activities[operations[k]];
      const uint64_t end = std::max(g.start_ns, g.end_ns);
      const int64_t range = annotated_range(g);
      if (range >= 0) {
        const uint64_t next_start =
            k + 1 < operations.size() ? items_.run.gpu_activities[operations[k + 1]].start_ns : UINT64_MAX;
        const uint64_t padded_start = std::max(g.start_ns > 0 ? g.start_ns - 1 : 0, std::min(taken_until, g.start_ns));
        const uint64_t padded_end = std::min(end <= UINT64_MAX - 2 ? end + 2 : end, std::max(next_start, end));
        // Squeezed between neighbours on both sides, an annotation would be
        // its operation's interval exactly, and readers could not tell which
        // holds which (speedscope closes the outer one first and keeps it
        // open to the end): then none.
        if (padded_start < g.start_ns || padded_end > end) {
          items_.annotations.push_back({static_cast<uint32_t>(range), operations[k],
                                  static_cast<uint8_t>(g.start_ns - padded_start),
                                  static_cast<uint8_t>(padded_end - end)});
          taken_until = std::max(taken_until, padded_end);
          items_.annotations_end_ns = std::max(items_.annotations_end_ns, padded_end);
        }
      }
      taken_until = std::max(taken_until, end);
    }
    annotation_runs.push_back(
        {nullptr, static_cast<uint32_t>(annotations_before), items_.annotations.size() - annotations_before});
  }
  gpu_order =
      StartOrder::merged(operation_runs, [&](size_t i) { return items_.run.gpu_activities[i].start_ns; });
  operation_runs.clear();
  streams.clear();  // before the annotations' order is made: 13 MB at 10M events
  annotation_order =
      StartOrder::merged(annotation_runs, [&](size_t i) { return items_.annotations[i].start_ns(items_.run); });
  // Nothing refers to an annotation by its index: the table itself is put
  // in start order, the order holding no indices while writing.
  annotation_order.arrange(items_.annotations);
}

void TraceWriter::mark_launchers() {
  items_.launcher.assign(items_.run.cpu_events.size(), false);
  for (const GpuActivity& g : items_.run.gpu_activities)
    if (g.launched_by >= 0 && g.correlation_id != 0) items_.launcher[static_cast<size_t>(g.launched_by)] = true;
}

void TraceWriter::device_properties() {
  out_.key("deviceProperties").raw("[");
  bool first_device = true;
  std::set<uint32_t> seen;
  for (const ProcessInfo& p : items_.run.processes)
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
  for (const ProcessInfo& p : items_.run.processes) {
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
  // Kineto writes "ms", with which the Catapult viewer (chrome://tracing,
  // TensorBoard's Trace tab) decides nesting at whole microseconds and puts
  // sub-microsecond events under the wrong parent; "ns" makes it nanoseconds.
  out_.key("displayTimeUnit").str("ns");
  for (const ProcessInfo& p : items_.run.processes) {
    // RunBuilder put every file on the clock of the first one with an anchor.
    if (!p.process || !p.process->clock_anchor) continue;
    const recorded::ClockAnchor& a = *p.process->clock_anchor;
    out_.key("baseTimeNanoseconds").num(items_.origin - items_.offset_ns - a.monotonic_ns + a.realtime_ns);
    break;
  }
  out_.key("traceName").str(items_.options.trace_name);
  out_.key("traceEvents").raw("[");
}

bool TraceWriter::metadata() {
  ItemText text(items_, cache_, out_, true, 0);
  std::map<uint32_t, std::set<uint32_t>> threads;                     // process -> tids
  std::map<std::pair<uint32_t, uint32_t>, std::set<int64_t>> streams;  // (process, device) -> rows
  for (size_t p = 0; p < items_.run.processes.size(); ++p)
    for (const auto& [tid, name] : items_.run.processes[p].threads) threads[static_cast<uint32_t>(p)].insert(tid);
  // Consecutive events are mostly of one thread or stream: the sets are
  // asked only when that changes.
  std::pair<uint32_t, uint32_t> last{UINT32_MAX, UINT32_MAX};
  for (const CpuEvent& e : items_.run.cpu_events)
    if (std::pair<uint32_t, uint32_t>{e.process, e.tid} != last) {
      last = {e.process, e.tid};
      threads[e.process].insert(e.tid);
    }
  std::tuple<uint32_t, uint32_t, uint32_t> last_stream{UINT32_MAX, UINT32_MAX, UINT32_MAX};
  for (const GpuActivity& g : items_.run.gpu_activities) {
    const GpuPlace& place = items_.run.place(g);
    if (std::tuple{g.process, place.device_id, place.stream_id} != last_stream) {
      last_stream = {g.process, place.device_id, place.stream_id};
      streams[{g.process, place.device_id}].insert(place.stream_id);
    }
  }
  for (const Synchronization& s : items_.run.synchronizations)
    streams[{s.process, s.device_id}].insert(s.stream_id == kNoStream ? -1 : kSyncRowOffset + s.stream_id);
  for (const MemoryEvent& m : items_.run.memory_events)
    if (m.on_device) streams[{m.process, m.device_id}];
  for (const TensorMemoryEvent& m : items_.run.tensor_memory_events)
    if (m.device >= 0) streams[{m.process, static_cast<uint32_t>(m.device)}];

  for (size_t p = 0; p < items_.run.processes.size(); ++p) {
    const ProcessInfo& info = items_.run.processes[p];
    const uint64_t pid = items_.cpu_pid[p];
    std::string name = info.process && !info.process->executable.empty() ? base_name(info.process->executable)
                                                                           : base_name(info.path);
    std::string labels = "CPU";
    if (info.process) {
      if (info.process->rank >= 0) labels += ", rank " + std::to_string(info.process->rank);
      if (!info.process->hostname.empty()) labels += ", host " + info.process->hostname;
    }
    const auto sort_index = static_cast<int64_t>(p);
    text.meta_event("process_name", pid, nullptr, "name", &name, nullptr);
    text.meta_event("process_labels", pid, nullptr, "labels", &labels, nullptr);
    text.meta_event("process_sort_index", pid, nullptr, "sort_index", nullptr, &sort_index);
    for (uint32_t tid : threads[static_cast<uint32_t>(p)]) {
      const int64_t t = tid;
      std::string thread_name = "thread " + std::to_string(tid);
      if (auto it = info.threads.find(tid); it != info.threads.end() && !it->second.empty())
        thread_name += " (" + it->second + ")";
      text.meta_event("thread_name", pid, &t, "name", &thread_name, nullptr);
      text.meta_event("thread_sort_index", pid, &t, "sort_index", nullptr, &t);
    }
  }
  for (const auto& [key, rows] : streams) {
    const auto [process, device] = key;
    const uint64_t pid = items_.gpu_pid(process, device);
    std::string name = "GPU " + std::to_string(device);
    if (items_.run.processes.size() > 1) name += " (pid " + std::to_string(items_.cpu_pid[process]) + ")";
    std::string labels = "GPU " + std::to_string(device);
    for (const recorded::Device& d : items_.run.processes[process].devices)
      if (d.id == device && !d.name.empty()) labels += ", " + d.name;
    const auto sort_index = static_cast<int64_t>(0x1000000ull + pid);
    text.meta_event("process_name", pid, nullptr, "name", &name, nullptr);
    text.meta_event("process_labels", pid, nullptr, "labels", &labels, nullptr);
    text.meta_event("process_sort_index", pid, nullptr, "sort_index", nullptr, &sort_index);
    for (int64_t row : rows) {
      // Kineto's row names: "stream N", "stream N (sync)", and "Device N"
      // for device-wide synchronizations.
      std::string row_name = row < 0                 ? "Device " + std::to_string(device)
                            : row >= kSyncRowOffset ? "stream " + std::to_string(row - kSyncRowOffset) + " (sync)"
                                                    : "stream " + std::to_string(row);
      const int64_t sort = row >= kSyncRowOffset ? row - kSyncRowOffset : row;
      text.meta_event("thread_name", pid, &row, "name", &row_name, nullptr);
      text.meta_event("thread_sort_index", pid, &row, "sort_index", nullptr, &sort);
    }
  }
  return text.first();
}

void ItemText::api_call(size_t index) {
  const CpuEvent& e = items_.run.cpu_events[index];
  const uint64_t pid = items_.cpu_pid[e.process];
  // Readers (HTA, TensorBoard) join GPU work to the CPU event that carries
  // its correlation id, one per id, as in Kineto's traces. A driver call
  // made inside a runtime call shares the runtime call's id, so it goes in a
  // category of its own and names the id under another key: joined on, it
  // would count the work twice.
  const bool runtime = is_runtime_call(e);
  const bool inner = items_.nested_call(index);
  common_json("X", runtime ? "\"cuda_runtime\"" : inner ? "\"cuda_driver_nested\"" : "\"cuda_driver\"",
              json_name(e.name), pid, e.tid);
  span(e.start_ns, e.end_ns);
  out_.key("args").raw("{\"cbid\":").num(items_.run.callback_id(e.name));
  out_.key(inner ? "runtime correlation" : "correlation").num(e.correlation_id());
  external_id_arg(items_.operators.enclosing_external_id(index));
  if (items_.options.namer != nullptr && e.stack != 0 && e.stack <= items_.run.stacks.size()) {
    out_.raw(items_.stack_args[e.stack - 1]);
  }
  out_.raw("}").end_event();
  // One flow start per call that launched work, however many operations
  // it launched (a graph launch runs many).
  if (items_.launcher[index]) {
    common_json("s", "\"ac2g\"", "\"ac2g\"", pid, e.tid);
    out_.key("id")
        .num(items_.flow_id(e.process, e.correlation_id()))
        .key("ts")
        .micros(items_.ts(e.start_ns))
        .end_event();
  }
}

void ItemText::cpu_event(size_t index) {
  const CpuEvent& e = items_.run.cpu_events[index];
  if (e.kind == CpuEventKind::kApiCall) return api_call(index);
  const uint64_t pid = items_.cpu_pid[e.process];
  const std::string& full_name = json_range_name(index);
  auto args = [&] {
    out_.key("args").raw("{\"External id\":").num(external_id(index));
    out_.raw(items_.operators.operator_args(index));
    if (e.nvtx_domain()) out_.key("domain").str(items_.run.name(e.nvtx_domain()));
    if (e.unterminated) out_.raw(",\"unterminated\":true");
    out_.raw("}");
  };
  if (e.kind == CpuEventKind::kPushPopRange) {
    common_json("X", items_.operators.is_operator(index) ? "\"cpu_op\"" : "\"user_annotation\"", full_name, pid, e.tid);
    span(e.start_ns, e.end_ns);
    args();
    out_.end_event();
    fwdbwd_flow(index);
    return;
  }
  // Start/end ranges may overlap each other and end on another thread:
  // async events, which viewers lay out on their own rows.
  const uint64_t id = ++async_ids_;
  common_json("b", "\"user_annotation\"", full_name, pid, e.tid);
  out_.key("id").num(id).key("ts").micros(items_.ts(e.start_ns));
  args();
  out_.end_event();
  common_json("e", "\"user_annotation\"", full_name, pid, e.tid);
  out_.key("id").num(id).key("ts").micros(items_.ts(e.end_ns)).end_event();
}

// Kineto's arrow from a forward op to its backward node (trace_operators.h).
void ItemText::fwdbwd_flow(size_t range) {
  const TraceOperators::Flow* flow = items_.operators.flow_at(range);
  if (flow == nullptr) return;
  const CpuEvent& e = items_.run.cpu_events[range];
  common(flow->start ? "s" : "f", "fwdbwd", "fwdbwd", items_.cpu_pid[e.process], e.tid);
  out_.key("id").num(flow->id).key("ts").micros(items_.ts(e.start_ns));
  if (!flow->start) out_.raw(",\"bp\":\"e\"");
  out_.end_event();
}

// Kineto's kernel args, in its order. "queued" is CUPTI's queued
// timestamp, which neither Kineto nor the agent asks CUPTI for: 0 (CUPTI's
// "unknown"), as in Kineto's traces.
void ItemText::kernel_args(const GpuActivity& g) {
  const KernelConfig& k = items_.run.kernel_config(g);
  const GpuPlace& place = items_.run.place(g);
  out_.key("args").raw("{\"queued\":0").key("device").num(place.device_id).key("context").num(place.context_id);
  out_.key("stream").num(place.stream_id).key("correlation").num(g.correlation_id);
  out_.key("registers per thread").num(k.registers_per_thread);
  out_.key("shared memory").num(uint64_t{k.static_shared_bytes} + k.dynamic_shared_bytes);
  auto [cached, added] = cache_.occupancies.try_emplace({g.process, place.device_id, g.details});
  if (added) {
    for (const recorded::Device& d : items_.run.processes[g.process].devices)
      if (d.id == place.device_id) cached->second.device = &d;
    cached->second.occupancy = estimate_occupancy(k, cached->second.device);
  }
  const recorded::Device* device = cached->second.device;
  const Occupancy& occupancy = cached->second.occupancy;
  if (device && device->sm_count > 0) {
    out_.key("blocks per SM").real(occupancy.blocks_per_sm);
    out_.key("warps per SM").real(occupancy.warps_per_sm);
  }
  out_.key("grid").raw("[").num(k.grid[0]).raw(",").num(k.grid[1]).raw(",").num(k.grid[2]).raw("]");
  out_.key("block").raw("[").num(k.block[0]).raw(",").num(k.block[1]).raw(",").num(k.block[2]).raw("]");
  out_.key("est. achieved occupancy %").num(occupancy.achieved_percent);
  out_.key("graph id").num(place.graph_id).key("graph node id").num(k.graph_node_id);
  external_id_arg(items_.operators.external_id_of_call(g.launched_by));
  out_.raw("}");
}

void ItemText::gpu_event(size_t index) {
  const GpuActivity& g = items_.run.gpu_activities[index];
  const GpuPlace& place = items_.run.place(g);
  const uint64_t pid = items_.gpu_pid(g.process, place.device_id);
  const char* cat =
      g.kind == GpuKind::kKernel ? "\"kernel\"" : g.kind == GpuKind::kMemcpy ? "\"gpu_memcpy\"" : "\"gpu_memset\"";
  common_json("X", cat, json_name(g.name), pid, place.stream_id);
  span(g.start_ns, g.end_ns);
  if (g.kind == GpuKind::kKernel) {
    kernel_args(g);
  } else {
    const Transfer& transfer = items_.run.transfer(g);
    out_.key("args").raw("{\"device\":").num(place.device_id).key("context").num(place.context_id);
    external_id_arg(items_.operators.external_id_of_call(g.launched_by));
    out_.key("stream").num(place.stream_id).key("correlation").num(g.correlation_id);
    out_.key("bytes").num(transfer.bytes);
    // bytes per ns is GB/s.
    const double bandwidth =
        g.duration_ns() ? static_cast<double>(transfer.bytes) / static_cast<double>(g.duration_ns()) : 0;
    out_.key("memory bandwidth (GB/s)").real(bandwidth);
    if (g.kind == GpuKind::kMemcpy) out_.key("kind").str(copy_kind_name(transfer.copy_kind));
    out_.key("graph id").num(place.graph_id);
    out_.raw("}");
  }
  out_.end_event();

  // The launch arrow's end; its start is on the launching call.
  if (g.launched_by < 0 || g.correlation_id == 0) return;
  common_json("f", "\"ac2g\"", "\"ac2g\"", pid, place.stream_id);
  out_.key("id")
      .num(items_.flow_id(g.process, g.correlation_id))
      .key("ts")
      .micros(items_.ts(g.start_ns))
      .raw(",\"bp\":\"e\"")
      .end_event();
}

// Kineto gives a GPU span of a range its range's External id and nothing
// else: readers (HTA, TensorBoard) take an event with device and stream
// args for GPU work and would count the span as a kernel.
// Readers compute an event's end as ts + dur, or (speedscope) as
// (ts - the lane's first ts) + dur, in doubles; JsonOut's duration_between
// makes both exact when every difference of two ts is exact, which holds
// (Sterbenz's lemma) when no ts is more than twice another. So the trace's
// time starts at a round number of microseconds no less than its whole
// span (a power of ten: 10000.000 for a run of 6 ms) rather than at 0, as
// Kineto's own traces start at the epoch's microseconds. Readers show
// times from the first event, so nothing a user sees moves.
void TraceWriter::choose_time_offset() {
  uint64_t last = items_.origin;
  for (const CpuEvent& e : items_.run.cpu_events) last = std::max({last, e.start_ns, e.end_ns});
  for (const GpuActivity& g : items_.run.gpu_activities) last = std::max({last, g.start_ns, g.end_ns});
  for (const Synchronization& s : items_.run.synchronizations) last = std::max({last, s.start_ns, s.end_ns});
  for (const MemoryEvent& m : items_.run.memory_events) last = std::max(last, m.time_ns);
  for (const TensorMemoryEvent& m : items_.run.tensor_memory_events) last = std::max(last, m.time_ns);
  last = std::max(last, items_.annotations_end_ns);
  for (const StepMark& s : items_.steps) last = std::max(last, s.end_ns);
  uint64_t offset = 1000;  // 1 us
  while (offset < last - items_.origin && offset <= UINT64_MAX / 10) offset *= 10;
  items_.offset_ns = offset;
}

void ItemText::annotation(size_t index) {
  const GpuAnnotation& a = items_.annotations[index];
  const GpuActivity& g = items_.run.gpu_activities[a.operation];
  const GpuPlace& place = items_.run.place(g);
  common_json("X", "\"gpu_user_annotation\"", json_range_name(a.range), items_.gpu_pid(g.process, place.device_id),
              place.stream_id);
  span(a.start_ns(items_.run), a.end_ns(items_.run));
  out_.key("args").raw("{\"External id\":").num(external_id(a.range)).raw("}").end_event();
}

void ItemText::sync(size_t index) {
  const Synchronization& s = items_.run.synchronizations[index];
  const bool on_stream = s.stream_id != kNoStream;
  const char* name = sync_name(s.kind);
  common("X", "cuda_sync", name, items_.gpu_pid(s.process, s.device_id), on_stream ? kSyncRowOffset + s.stream_id : -1);
  span(s.start_ns, s.end_ns);
  out_.key("args").raw("{\"cuda_sync_kind\":").str(name);
  if (s.kind == SyncKind::kEventSynchronize || s.kind == SyncKind::kStreamWaitEvent)
    out_.key("wait_on_cuda_event_id").num(s.event);
  out_.key("stream").snum(on_stream ? int64_t{s.stream_id} : -1).key("correlation").num(s.correlation_id);
  external_id_arg(items_.operators.external_id_of_call(s.called_by));
  out_.key("device").num(s.device_id).key("context").num(s.context_id).raw("}").end_event();
}

// Memory in use as a counter (the clearer picture), and each allocation and
// release as Kineto's "[memory]" instant event, which TensorBoard's memory
// view reads.
void ItemText::memory(size_t index) {
  const MemoryEvent& m = items_.run.memory_events[index];
  const uint64_t cpu_pid = items_.cpu_pid[m.process];
  begin_event();
  if (m.on_device) {
    out_.raw("{\"ph\":\"C\",\"cat\":\"memory\",\"name\":").str("GPU " + std::to_string(m.device_id) + " memory in use");
    out_.key("pid").num(items_.gpu_pid(m.process, m.device_id));
  } else {
    out_.raw("{\"ph\":\"C\",\"cat\":\"memory\",\"name\":").str("CUDA host memory in use");
    out_.key("pid").num(cpu_pid);
  }
  out_.key("ts")
      .micros(items_.ts(m.time_ns))
      .key("args")
      .raw("{\"bytes\":")
      .snum(items_.memory_in_use[index])
      .raw("}")
      .end_event();
  if (items_.has_tensor_memory[m.process]) return;

  begin_event();
  out_.raw("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\"");
  // On the allocating thread's row; CUPTI names it only for some kinds.
  const uint32_t tid = m.tid || m.called_by < 0 ? m.tid : items_.run.cpu_events[static_cast<size_t>(m.called_by)].tid;
  out_.key("pid").num(cpu_pid).key("tid").num(tid).key("ts").micros(items_.ts(m.time_ns));
  // Kineto's device types: 0 CPU, 1 CUDA. Allocated and reserved are the
  // same here: CUDA's own allocator keeps no cache.
  // Host memory is device -1 as in Kineto: `m.on_device ? m.device_id : -1`
  // is unsigned, and TensorBoard's plugin indexes its device list with the
  // 4294967295 that made.
  const int64_t device = m.on_device ? int64_t{m.device_id} : -1;
  out_.key("args").raw("{\"Device Type\":").num(m.on_device ? 1 : 0).key("Device Id").snum(device);
  out_.key("Addr").num(m.address).key("Bytes").snum(m.signed_bytes());
  out_.key("Total Allocated").snum(items_.memory_in_use[index]).key("Total Reserved").snum(items_.memory_in_use[index]);
  out_.raw("}").end_event();
}

// A tensor's block from the caching allocator, as torch.profiler writes it
// with profile_memory: a "[memory]" instant event with the allocator's own
// totals (device -1 for CPU memory), and the allocated total as a counter.
void ItemText::tensor_memory(size_t index) {
  const TensorMemoryEvent& m = items_.run.tensor_memory_events[index];
  const uint64_t cpu_pid = items_.cpu_pid[m.process];
  const bool on_device = m.device >= 0;
  begin_event();
  if (on_device) {
    out_.raw("{\"ph\":\"C\",\"name\":").str("GPU " + std::to_string(m.device) + " tensor memory allocated");
    out_.key("pid").num(items_.gpu_pid(m.process, static_cast<uint32_t>(m.device)));
  } else {
    out_.raw("{\"ph\":\"C\",\"name\":").str("CPU tensor memory allocated");
    out_.key("pid").num(cpu_pid);
  }
  out_.key("ts")
      .micros(items_.ts(m.time_ns))
      .key("args")
      .raw("{\"bytes\":")
      .num(m.total_allocated)
      .raw("}")
      .end_event();

  begin_event();
  out_.raw("{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\"");
  out_.key("pid").num(cpu_pid).key("tid").num(m.tid).key("ts").micros(items_.ts(m.time_ns));
  out_.key("args").raw("{\"Device Type\":").num(on_device ? 1 : 0).key("Device Id").snum(m.device);
  out_.key("Addr").num(m.address).key("Bytes").snum(m.signed_bytes());
  out_.key("Total Allocated").num(m.total_allocated).key("Total Reserved").num(m.total_reserved);
  out_.raw("}").end_event();
}

uint64_t TraceItems::item_start(ItemKind kind, uint32_t index) const {
  switch (kind) {
    case ItemKind::kStep: return steps[index].start_ns;
    case ItemKind::kCpu: return run.cpu_events[index].start_ns;
    case ItemKind::kAnnotation: return annotations[index].start_ns(run);
    case ItemKind::kGpu: return run.gpu_activities[index].start_ns;
    case ItemKind::kSync: return run.synchronizations[index].start_ns;
    case ItemKind::kMemory: return run.memory_events[index].time_ns;
    case ItemKind::kTensorMemory: return run.tensor_memory_events[index].time_ns;
  }
  return 0;
}

void TraceItems::make_stack_arg(ItemKind kind, uint32_t index) {
  if (kind != ItemKind::kCpu || options.namer == nullptr) return;
  const CpuEvent& e = run.cpu_events[index];
  if (e.kind != CpuEventKind::kApiCall || e.stack == 0 || e.stack > run.stacks.size()) return;
  std::string& arg = stack_args[e.stack - 1];
  if (!arg.empty()) return;
  const std::vector<uint32_t>& frames = run.stacks[e.stack - 1];  // leaf first
  size_t leaf = 0;
  while (leaf < frames.size() && in_cuda_or_agent(run.frames[frames[leaf]])) ++leaf;
  arg = ",\"stack\":[";
  for (size_t i = frames.size(); i > leaf; --i) {
    if (i != frames.size()) arg += ',';
    append_json_string(arg, options.namer->name(run, run.frames[frames[i - 1]]));
  }
  arg += ']';
}

// Consecutive items of the file, formatted on one thread into a text of
// their own.
struct ItemBlock {
  std::vector<std::pair<ItemKind, uint32_t>> items;
  bool first = false;              // no event before the block's first
  uint64_t async_ids_before = 0;   // taken by the start/end ranges before it
  std::unique_ptr<JsonOut> text;   // made on first use, reused by the slot's later blocks
};

template <typename Next>
void TraceWriter::write_items(Next next, uint64_t count, bool first) {
  // The next item, with its stack arg made (on this, the merging, thread).
  auto next_item = [&] {
    ItemKind kind{};
    uint32_t index = 0;
    next(kind, index);
    items_.make_stack_arg(kind, index);
    return std::pair{kind, index};
  };
  const unsigned cores = cores_for(items_.options.jobs);
  if (cores <= 1) {  // straight into out_, on this thread
    ItemText text(items_, cache_, out_, first, 0);
    for (uint64_t n = 0; n < count; ++n) {
      const auto [kind, index] = next_item();
      text.item(kind, index);
    }
    return;
  }
  // The merge (next) stays on this thread: each item's place depends on all
  // before it. Formatting, nearly all of this loop's work, goes to `cores`
  // threads, a block of items each, and the blocks' texts are written here
  // in order. Two blocks per thread in flight keep every thread busy while
  // the oldest is written, and memory at a few MB.
  const size_t per_block = std::max<size_t>(1, items_.options.items_per_block);
  std::vector<TextCache> caches(cores, TextCache(items_.run));
  uint64_t made = 0;
  uint64_t async_ids = 0;
  auto fill = [&](ItemBlock& block) {
    if (made == count) return false;
    const uint64_t n = std::min<uint64_t>(count - made, per_block);
    block.items.clear();
    block.first = first && made == 0;
    block.async_ids_before = async_ids;
    for (uint64_t k = 0; k < n; ++k) {
      const auto [kind, index] = next_item();
      if (kind == ItemKind::kCpu && ItemText::takes_async_id(items_.run.cpu_events[index])) ++async_ids;
      block.items.emplace_back(kind, index);
    }
    made += n;
    return true;
  };
  auto format = [&](ItemBlock& block, unsigned worker) {
    if (!block.text) block.text = std::make_unique<JsonOut>();
    ItemText text(items_, caches[worker], *block.text, block.first, block.async_ids_before);
    for (const auto& [kind, index] : block.items) text.item(kind, index);
  };
  auto write = [&](ItemBlock& block) {
    out_.append(*block.text);
    block.text->clear();
  };
  run_ordered_blocks<ItemBlock>(cores, 2 * size_t{cores}, fill, format, write);
}

ChromeTraceStats TraceWriter::write() {
  assign_pids();
  // Each kind's items in start order, merged below as they are written:
  // the order of the whole file is (start, kind, index). The CPU events'
  // order is merged from the threads' the links gave (cpu_start_order.h)
  // once the nested calls are known, which need nothing collected here, so
  // with more than one core they are found on a thread of their own
  // meanwhile, with the small tables' orders; the GPU work's order and the
  // annotations' come of the streams' orders collect_annotations makes.
  std::array<StartOrder, kItemKinds> orders;
  const auto every = [](size_t) { return true; };
  const unsigned cores = cores_for(items_.options.jobs);
  auto sort_recorded = [&] {
    items_.nested_calls = nested_calls(items_.run);  // the CPU order's keep() reads it
    orders[slot(ItemKind::kSync)] = StartOrder(items_.run.synchronizations.size(), every,
                                               [&](size_t i) { return items_.run.synchronizations[i].start_ns; });
    orders[slot(ItemKind::kMemory)] = StartOrder(items_.run.memory_events.size(), every,
                                                 [&](size_t i) { return items_.run.memory_events[i].time_ns; });
    orders[slot(ItemKind::kTensorMemory)] = StartOrder(items_.run.tensor_memory_events.size(), every, [&](size_t i) {
      return items_.run.tensor_memory_events[i].time_ns;
    });
  };
  {
    std::jthread sorting;  // joined at the end of this scope
    if (cores > 1) sorting = std::jthread(sort_recorded);
    else sort_recorded();
    // Meanwhile: these write only the annotations, steps, launchers and
    // the GPU and annotation orders, which the other thread reads none of,
    // and read nothing it writes.
    collect_annotations(orders[slot(ItemKind::kGpu)], orders[slot(ItemKind::kAnnotation)]);
    collect_steps();
    mark_launchers();
  }
  // After the annotations, not beside them: the threads' orders and the
  // merged one (27 MB each at 10M events) beside the annotations' making
  // took trace's peak from 591 to 604 MB.
  orders[slot(ItemKind::kCpu)] = items_.cpu_start_order.take(
      items_.run.cpu_events, [&](size_t i) { return items_.options.driver_calls || !items_.folded_driver_call(i); });
  orders[slot(ItemKind::kStep)] =
      StartOrder(items_.steps.size(), every, [&](size_t i) { return items_.steps[i].start_ns; });
  items_.has_tensor_memory.assign(items_.run.processes.size(), false);
  for (const TensorMemoryEvent& t : items_.run.tensor_memory_events) items_.has_tensor_memory[t.process] = true;

  // The first item of each kind, and how many of each are written so far.
  std::array<uint64_t, kItemKinds> head_start{};
  std::array<size_t, kItemKinds> taken{};
  uint64_t item_count = 0;
  bool any = false;
  items_.origin = 0;
  for (size_t k = 0; k < kItemKinds; ++k) {
    item_count += orders[k].size();
    if (orders[k].size() == 0) continue;
    head_start[k] = items_.item_start(static_cast<ItemKind>(k), orders[k][0]);
    items_.origin = any ? std::min(items_.origin, head_start[k]) : head_start[k];
    any = true;
  }
  // A flow's start may precede (clock skew): it is on the call that
  // launched the work, which starts no earlier than the CPU order's head
  // unless it was left out of that order (a nested driver call). Those are
  // found by their nested bit first, where a look at every launching call's
  // start, a random read of the CPU table per GPU record, took a tenth of a
  // second at 10M events.
  for (const GpuActivity& g : items_.run.gpu_activities)
    if (g.launched_by >= 0) {
      const auto call = static_cast<size_t>(g.launched_by);
      if (!items_.options.driver_calls && items_.nested_call(call) && items_.folded_driver_call(call))
        items_.origin = std::min(items_.origin, items_.run.cpu_events[call].start_ns);
    }
  choose_time_offset();

  // Memory in use, per (process, device or host), in time order.
  items_.memory_in_use.assign(items_.run.memory_events.size(), 0);
  std::map<std::tuple<uint32_t, bool, uint32_t>, int64_t> in_use;
  const StartOrder& memory_order = orders[slot(ItemKind::kMemory)];
  for (size_t k = 0; k < memory_order.size(); ++k) {
    const MemoryEvent& m = items_.run.memory_events[memory_order[k]];
    int64_t& total = in_use[{m.process, m.on_device, m.on_device ? m.device_id : 0}];
    total += m.signed_bytes();
    items_.memory_in_use[memory_order[k]] = total;
  }

  header();
  const bool first = metadata();
  ChromeTraceStats stats;
  const uint64_t limit = items_.options.max_events;
  stats.events = limit != 0 ? std::min(item_count, limit) : item_count;
  stats.events_left_out = item_count - stats.events;
  // The earliest head; at equal starts the earlier kind.
  auto next = [&](ItemKind& kind, uint32_t& index) {
    size_t earliest = kItemKinds;
    for (size_t k = 0; k < kItemKinds; ++k)
      if (taken[k] < orders[k].size() && (earliest == kItemKinds || head_start[k] < head_start[earliest])) earliest = k;
    kind = static_cast<ItemKind>(earliest);
    index = orders[earliest][taken[earliest]];
    if (++taken[earliest] < orders[earliest].size())
      head_start[earliest] = items_.item_start(kind, orders[earliest][taken[earliest]]);
  };
  write_items(next, stats.events, first);
  out_.raw("\n]");
  out_.key("profanalyze").raw("{\"events\":").num(stats.events).key("events_left_out").num(stats.events_left_out);
  out_.raw("}}\n");
  out_.flush();
  stats.bytes = out_.bytes();
  stats.events_in_file = out_.events();
  return stats;
}

}  // namespace

ChromeTraceStats write_chrome_trace(const Run& run, const ChromeTraceOptions& options, TraceSink& sink) {
  JsonOut out(sink);
  return TraceWriter(run, options, out).write();
}

}  // namespace prof::analyzer
