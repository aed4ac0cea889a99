#include "model/run_builder.h"

#include <algorithm>
#include <unordered_map>

#include "io/capture_reader.h"
#include "io/end_of.h"
#include "io/intern_tables.h"
#include "io/parallel_record_decoder.h"
#include "model/gpu_names.h"
#include "model/launching_calls.h"
#include "step_rule.h"

namespace prof::analyzer {
namespace {

// The values a derived name (a formatted shape, a copy's display name) is
// made from; the last word says which wording, so equal numbers of different
// records stay apart.
struct DerivedNameKey {
  enum Wording : uint32_t {
    kLaunchShape, kKernelShape, kTransferShape, kMemcpyName, kMemcpyShape, kMemsetName, kMemsetShape, kWordings
  };
  uint32_t values[8];
  bool operator==(const DerivedNameKey& other) const { return std::equal(values, values + 8, other.values); }
};
struct DerivedNameKeyHash {
  size_t operator()(const DerivedNameKey& key) const { return hash_words(key.values); }
};
uint32_t low(uint64_t value) { return static_cast<uint32_t>(value); }
uint32_t high(uint64_t value) { return static_cast<uint32_t>(value >> 32); }

SyncKind sync_kind(SynchronizationType type) {
  switch (type) {
    case SynchronizationType::kEventSynchronize: return SyncKind::kEventSynchronize;
    case SynchronizationType::kStreamWaitEvent: return SyncKind::kStreamWaitEvent;
    case SynchronizationType::kStreamSynchronize: return SyncKind::kStreamSynchronize;
    case SynchronizationType::kContextSynchronize: return SyncKind::kContextSynchronize;
    default: return SyncKind::kUnknown;
  }
}

struct KernelConfigHash {
  size_t operator()(const KernelConfig& k) const {
    const uint32_t words[11] = {k.grid[0],          k.grid[1],          k.grid[2],
                                k.block[0],         k.block[1],         k.block[2],
                                k.registers_per_thread, k.static_shared_bytes, k.dynamic_shared_bytes,
                                low(k.graph_node_id), high(k.graph_node_id)};
    return hash_words(words);
  }
};


// A file's ids -> the Run's indices. Lives as long as the file is being
// read: ids are per file.
struct FileIds {
  std::unordered_map<uint64_t, uint32_t> stacks;  // -> index + 1 into Run::stacks
  std::unordered_map<uint64_t, uint32_t> frames;
  std::unordered_map<uint64_t, int64_t> modules;
  // Names resolved once per file string id, not once per event: hashing the
  // string into the Run's pool for each of millions of records was most of
  // the load time.
  std::unordered_map<uint64_t, NameId> names;
  // Names made once per distinct value, not once per event: demangling a
  // kernel name and formatting a shape cost microseconds, and a capture
  // repeats a handful of kernels and configurations millions of times.
  std::unordered_map<uint64_t, NameId> kernel_names;  // file string id -> demangled
  std::unordered_map<DerivedNameKey, NameId, DerivedNameKeyHash> derived_names;
  // The last name made of each wording: consecutive launches and copies
  // mostly repeat their shape, and hashing the 8-word key for each of
  // millions of records was 7% of report's instructions.
  struct LastDerivedName {
    DerivedNameKey key{};
    NameId name = Run::kNoName;
    bool valid = false;
  };
  LastDerivedName last_derived_names[DerivedNameKey::kWordings];
  std::unordered_map<KernelConfig, uint32_t, KernelConfigHash> kernel_configs;  // -> index into Run::kernel_configs
  // LoadDepth::kGpuSums: (name << 32 | shape) -> index into Run::gpu_work_sums,
  // and the file's GPU records so far (GpuWorkSum::first_index).
  std::unordered_map<uint64_t, size_t> gpu_work_sums;
  uint64_t gpu_records = 0;
};

// Appended piece by piece: GCC 12's -Wrestrict misfires on "[" + to_string(x).
std::string dims(Dim3 d) {
  std::string out = "[";
  out += std::to_string(d.x);
  out += ", ";
  out += std::to_string(d.y);
  out += ", ";
  out += std::to_string(d.z);
  out += "]";
  return out;
}

bool on_device(MemoryKind kind) { return kind != MemoryKind::kPageable && kind != MemoryKind::kPinned; }

// Turns one decoded chunk into Run records. A reference to an id that no
// chunk so far defined is a broken promise of the writer (FORMAT.md:
// definitions come no later than first use), so it is reported as a corrupt
// file rather than papered over with a placeholder name.
class ChunkLoader {
 public:
  ChunkLoader(Run& run, uint32_t process, const InternTables& tables, FileIds& ids, const recorded::Chunk& chunk,
              LoadDepth depth, std::vector<bool>& api_call_names)
      : run_(run),
        process_(process),
        tables_(tables),
        ids_(ids),
        chunk_(chunk),
        keep_events_(depth != LoadDepth::kSummary),
        sum_gpu_work_(depth == LoadDepth::kGpuSums),
        api_call_names_(api_call_names) {}

  // Empty on success, else what is corrupt.
  std::string load();

 private:
  void load_nvtx_ranges();
  void load_api_calls();
  void load_kernels();
  void load_memcpys();
  void load_memsets();
  void load_memory_events();
  void load_tensor_memory_events();
  // Records the report does not show: decoded for the duration and checked
  // for undefined ids, then counted.
  void check_other_records();

  // Resolves a string id; records the first failure in error_.
  NameId resolve(uint64_t id, const char* what, const char* fallback);
  // The Run's name for `key`, made by `make_name` the first time.
  template <typename MakeName>
  NameId derived_name(const DerivedNameKey& key, MakeName&& make_name);
  NameId launch_shape(const recorded::LaunchArgs& l);
  NameId transfer_shape(const recorded::TransferArgs& t);
  uint32_t kernel_config(const recorded::Kernel& k);
  void check_stack(uint64_t id, const char* what);
  // The Run's stack index + 1 for a file's stack id (0 for none).
  uint32_t stack(uint64_t id);
  uint32_t frame(uint64_t id);
  int64_t module(uint64_t id);
  void seen(uint64_t start_ns, uint64_t end_ns);
  // The fields every GPU record has (place, correlation, time), from a
  // Kernel, Memcpy or Memset record.
  template <typename Record>
  GpuActivity gpu_activity(GpuKind kind, const Record& r);
  // Appends it to Run::gpu_activities, or adds it to Run::gpu_work_sums.
  void keep_gpu_activity(const GpuActivity& g);
  void keep_gpu_time_to_link(uint32_t correlation_id, uint64_t duration_ns);
  bool keeps_gpu_records() const { return keep_events_ && !sum_gpu_work_; }
  // Index into Run::transfers, for a record kept one by one (else 0).
  uint32_t transfer(uint64_t bytes, CopyKind kind);

  Run& run_;
  uint32_t process_;
  const InternTables& tables_;
  FileIds& ids_;
  const recorded::Chunk& chunk_;
  // False for `info`: everything is decoded and checked, but only the
  // counts and times are kept.
  bool keep_events_;
  // kGpuSums: GPU records summed, not kept (keep_gpu_activity).
  bool sum_gpu_work_;
  std::vector<bool>& api_call_names_;  // LoadedFile::api_call_names
  std::string error_;
};

template <typename Record>
GpuActivity ChunkLoader::gpu_activity(GpuKind kind, const Record& r) {
  GpuActivity g;
  g.kind = kind;
  g.process = process_;
  // Only records kept one by one read it back (a sum has no place).
  if (keeps_gpu_records()) g.place = run_.gpu_places.intern({r.device_id, r.stream_id, r.context_id, r.graph_id});
  g.correlation_id = r.correlation_id;
  g.start_ns = r.start_ns;
  g.end_ns = end_of(g.start_ns, r.duration_ns);
  seen(g.start_ns, g.end_ns);
  return g;
}

uint32_t ChunkLoader::transfer(uint64_t bytes, CopyKind kind) {
  return keeps_gpu_records() ? run_.transfers.intern({bytes, kind}) : 0;
}

void ChunkLoader::keep_gpu_activity(const GpuActivity& g) {
  if (!keep_events_) return;
  if (!sum_gpu_work_) {
    run_.gpu_activities.push_back(g);
    return;
  }
  const uint64_t key = uint64_t{g.name} << 32 | g.input_shape;
  auto [it, added] = ids_.gpu_work_sums.try_emplace(key, run_.gpu_work_sums.size());
  if (added) {
    run_.gpu_work_sums.push_back(GpuWorkSum{process_, g.name, g.input_shape});
    run_.gpu_work_sums.back().kind = g.kind;
  }
  GpuWorkSum& sum = run_.gpu_work_sums[it->second];
  const uint64_t index = ids_.gpu_records++;
  if (g.start_ns < sum.first_start_ns) {  // on a tie the earlier record stays first
    sum.first_start_ns = g.start_ns;
    sum.first_index = index;
    sum.first_correlation_id = g.correlation_id;
  }
  ++sum.count;
  sum.total_ns += g.duration_ns();
  if (g.correlation_id != 0) keep_gpu_time_to_link(g.correlation_id, g.duration_ns());
}

void ChunkLoader::keep_gpu_time_to_link(uint32_t correlation_id, uint64_t duration_ns) {
  // A duration past 32 bits (over 4.3 s) in several entries: the linking
  // sums them. One push_back in the loop, so that it is inlined.
  do {
    const auto part = static_cast<uint32_t>(std::min<uint64_t>(duration_ns, UINT32_MAX));
    run_.gpu_times_to_link.push_back(GpuTimeToLink{correlation_id, part});
    duration_ns -= part;
  } while (duration_ns != 0);
}

NameId ChunkLoader::resolve(uint64_t id, const char* what, const char* fallback) {
  if (id == 0) return *fallback ? run_.intern(fallback) : Run::kNoName;
  if (auto it = ids_.names.find(id); it != ids_.names.end()) return it->second;
  const std::string* s = tables_.find_string(id);
  if (!s) {
    if (error_.empty()) error_ = std::string(what) + " references undefined string id " + std::to_string(id);
    return Run::kNoName;
  }
  // Safe to keep: a string is never redefined with another value
  // (InternTables::define refuses the file).
  const NameId name = run_.intern(*s);
  ids_.names.emplace(id, name);
  return name;
}

template <typename MakeName>
NameId ChunkLoader::derived_name(const DerivedNameKey& key, MakeName&& make_name) {
  FileIds::LastDerivedName& last = ids_.last_derived_names[key.values[7]];
  if (last.valid && last.key == key) return last.name;
  auto [it, added] = ids_.derived_names.try_emplace(key, 0);
  if (added) it->second = run_.intern(make_name());
  last = {key, it->second, true};
  return it->second;
}

NameId ChunkLoader::launch_shape(const recorded::LaunchArgs& l) {
  const Dim3 grid = l.grid, block = l.block;
  const DerivedNameKey key{{grid.x, grid.y, grid.z, block.x, block.y, block.z, l.dynamic_shared_bytes,
                            DerivedNameKey::kLaunchShape}};
  return derived_name(key, [&] {
    return "grid=" + dims(grid) + " block=" + dims(block) +
           " dynamic shared=" + std::to_string(l.dynamic_shared_bytes);
  });
}

NameId ChunkLoader::transfer_shape(const recorded::TransferArgs& t) {
  const DerivedNameKey key{{t.is_memset ? 1u : 0u, static_cast<uint32_t>(t.kind), low(t.bytes), high(t.bytes),
                            0, 0, 0, DerivedNameKey::kTransferShape}};
  return derived_name(key, [&] {
    return std::string(t.is_memset ? "memset" : copy_kind_name(t.kind)) + " " + std::to_string(t.bytes) + " B";
  });
}

uint32_t ChunkLoader::kernel_config(const recorded::Kernel& k) {
  const Dim3 grid = k.grid, block = k.block;
  const KernelConfig config{{grid.x, grid.y, grid.z},
                            {block.x, block.y, block.z},
                            k.registers_per_thread,
                            k.static_shared_bytes,
                            k.dynamic_shared_bytes,
                            k.graph_node_id};
  auto [it, added] = ids_.kernel_configs.try_emplace(config, 0);
  if (added) {
    // One table per Run, so files share entries only through this lookup:
    // equal configs of two files may get two entries, which is harmless.
    run_.kernel_configs.push_back(config);
    it->second = static_cast<uint32_t>(run_.kernel_configs.size() - 1);
  }
  return it->second;
}

void ChunkLoader::check_stack(uint64_t id, const char* what) {
  if (id != 0 && !tables_.has_stack(id) && error_.empty())
    error_ = std::string(what) + " references undefined stack id " + std::to_string(id);
}

// Definitions were checked by InternTables::define (a stack's frames and a
// frame's module and names exist), so only the stack id itself can be
// undefined here, and check_stack reports that.
uint32_t ChunkLoader::stack(uint64_t id) {
  if (id == 0) return 0;
  if (auto it = ids_.stacks.find(id); it != ids_.stacks.end()) return it->second;
  const recorded::Stack* s = tables_.find_stack(id);
  if (!s) return 0;
  std::vector<uint32_t> frames;
  for (uint64_t f : s->frame_ids) frames.push_back(frame(f));
  run_.stacks.push_back(std::move(frames));
  const auto index = static_cast<uint32_t>(run_.stacks.size());
  ids_.stacks.emplace(id, index);
  return index;
}

uint32_t ChunkLoader::frame(uint64_t id) {
  if (auto it = ids_.frames.find(id); it != ids_.frames.end()) return it->second;
  Frame out;
  if (const recorded::Frame* f = tables_.find_frame(id)) {
    out.kind = f->kind;
    out.address = f->address;
    out.module = module(f->module_id);
    out.function = resolve(f->function_name_id, "frame", "");
    out.file = resolve(f->file_name_id, "frame", "");
    out.line = f->line;
  }
  run_.frames.push_back(out);
  const auto index = static_cast<uint32_t>(run_.frames.size() - 1);
  ids_.frames.emplace(id, index);
  return index;
}

int64_t ChunkLoader::module(uint64_t id) {
  if (id == 0) return -1;
  if (auto it = ids_.modules.find(id); it != ids_.modules.end()) return it->second;
  const recorded::Module* m = tables_.find_module(id);
  if (!m) return -1;
  run_.modules.push_back(Module{m->path, m->load_address, m->size, m->bias, m->build_id});
  const auto index = static_cast<int64_t>(run_.modules.size() - 1);
  ids_.modules.emplace(id, index);
  return index;
}

void ChunkLoader::seen(uint64_t start_ns, uint64_t end_ns) {
  ProcessInfo& p = run_.processes[process_];
  p.first_event_ns = std::min(p.first_event_ns, start_ns);
  p.last_event_ns = std::max(p.last_event_ns, end_ns);
}

std::string ChunkLoader::load() {
  load_nvtx_ranges();
  load_api_calls();
  load_kernels();
  load_memcpys();
  load_memsets();
  load_memory_events();
  load_tensor_memory_events();
  check_other_records();
  return error_;
}

void ChunkLoader::load_nvtx_ranges() {
  ProcessInfo& info = run_.processes[process_];
  for (const recorded::NvtxRange& r : chunk_.nvtx_ranges) {
    CpuEvent e;
    e.kind = r.style == NvtxRangeStyle::kStartEnd ? CpuEventKind::kStartEndRange : CpuEventKind::kPushPopRange;
    e.process = static_cast<uint16_t>(process_);  // below Run::kMaxProcesses (RunBuilder)
    e.tid = r.tid;
    e.set_nvtx_domain(resolve(r.domain_id, "NVTX range domain", ""));
    e.name = resolve(r.name_id, "NVTX range", "<unnamed range>");
    e.start_ns = r.start_ns;
    e.end_ns = end_of(e.start_ns, r.duration_ns);
    e.unterminated = r.unterminated;
    if (e.unterminated) ++info.unterminated_ranges;
    seen(e.start_ns, e.end_ns);
    if (keep_events_) run_.cpu_events.push_back(e);
  }
  info.counts.nvtx_ranges += chunk_.nvtx_ranges.size();
}

void ChunkLoader::load_api_calls() {
  for (const recorded::ApiCall& a : chunk_.api_calls) {
    CpuEvent e;
    e.kind = CpuEventKind::kApiCall;
    e.set_api_domain(a.domain);
    e.process = static_cast<uint16_t>(process_);  // below Run::kMaxProcesses (RunBuilder)
    e.tid = a.tid;
    if (a.name_id == 0) {
      const char* domain = a.domain == ApiDomain::kDriver ? "driver" : "runtime";
      e.name = run_.intern("<cuda " + std::string(domain) + " cbid " + std::to_string(a.callback_id) + ">");
    } else {
      e.name = resolve(a.name_id, "API call", "");
    }
    if (a.launch) {
      resolve(a.launch->kernel_name_id, "API call's launch", "");
      e.input_shape = launch_shape(*a.launch);
    } else if (a.transfer) {
      e.input_shape = transfer_shape(*a.transfer);
    }
    check_stack(a.stack_id, "API call");
    e.stack = stack(a.stack_id);
    e.start_ns = a.start_ns;
    e.end_ns = end_of(e.start_ns, a.duration_ns);
    e.set_correlation_id(a.correlation_id);
    if (a.backend == CaptureBackend::kHooks) ++run_.processes[process_].counts.api_calls_by_hooks;
    if (run_.callback_ids.size() <= e.name) run_.callback_ids.resize(e.name + 1, 0);
    run_.callback_ids[e.name] = static_cast<uint16_t>(std::min<uint32_t>(a.callback_id, UINT16_MAX));
    if (api_call_names_.size() <= e.name) api_call_names_.resize(e.name + 1, false);
    api_call_names_[e.name] = true;
    seen(e.start_ns, e.end_ns);
    if (keep_events_) run_.cpu_events.push_back(e);
  }
  run_.processes[process_].counts.api_calls += chunk_.api_calls.size();
}

void ChunkLoader::load_kernels() {
  for (const recorded::Kernel& k : chunk_.kernels) {
    GpuActivity g = gpu_activity(GpuKind::kKernel, k);
    const std::string* mangled = k.name_id ? tables_.find_string(k.name_id) : nullptr;
    if (k.name_id != 0 && !mangled) {
      resolve(k.name_id, "kernel", "");
    } else if (mangled) {
      auto [name, added] = ids_.kernel_names.try_emplace(k.name_id, 0);
      if (added) name->second = run_.intern(demangled_kernel_name(*mangled));
      g.name = name->second;
    } else {
      g.name = run_.intern("<unnamed kernel>");
    }
    const uint32_t shared = k.static_shared_bytes + k.dynamic_shared_bytes;
    const Dim3 grid = k.grid, block = k.block;
    const DerivedNameKey key{{grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, DerivedNameKey::kKernelShape}};
    g.input_shape = derived_name(key, [&] {
      return "grid=" + dims(grid) + " block=" + dims(block) +
             " shared=" + std::to_string(shared);
    });
    // Only records kept one by one read it back (a sum has no config).
    if (keeps_gpu_records()) g.details = kernel_config(k);
    if (k.event_timed) ++run_.processes[process_].counts.event_timed;
    keep_gpu_activity(g);
  }
  run_.processes[process_].counts.kernels += chunk_.kernels.size();
}

void ChunkLoader::load_memcpys() {
  for (const recorded::Memcpy& c : chunk_.memcpys) {
    GpuActivity g = gpu_activity(GpuKind::kMemcpy, c);
    const auto kind = static_cast<uint32_t>(c.kind);
    g.name = derived_name({{kind, static_cast<uint32_t>(c.src_kind), static_cast<uint32_t>(c.dst_kind), 0, 0, 0, 0,
                           DerivedNameKey::kMemcpyName}},
                         [&] { return memcpy_name(c); });
    g.details = transfer(c.bytes, c.kind);
    g.input_shape = derived_name({{kind, low(c.bytes), high(c.bytes), 0, 0, 0, 0, DerivedNameKey::kMemcpyShape}}, [&] {
      return std::string(copy_kind_name(c.kind)) + " " + std::to_string(c.bytes) + " B";
    });
    if (c.event_timed) ++run_.processes[process_].counts.event_timed;
    keep_gpu_activity(g);
  }
  run_.processes[process_].counts.memcpys += chunk_.memcpys.size();
}

void ChunkLoader::load_memsets() {
  for (const recorded::Memset& s : chunk_.memsets) {
    GpuActivity g = gpu_activity(GpuKind::kMemset, s);
    g.name = derived_name({{static_cast<uint32_t>(s.memory_kind), 0, 0, 0, 0, 0, 0, DerivedNameKey::kMemsetName}},
                         [&] { return memset_name(s); });
    g.details = transfer(s.bytes, CopyKind::kUnknown);
    g.input_shape = derived_name({{low(s.bytes), high(s.bytes), 0, 0, 0, 0, 0, DerivedNameKey::kMemsetShape}},
                               [&] { return "memset " + std::to_string(s.bytes) + " B"; });
    if (s.event_timed) ++run_.processes[process_].counts.event_timed;
    keep_gpu_activity(g);
  }
  run_.processes[process_].counts.memsets += chunk_.memsets.size();
}

void ChunkLoader::load_memory_events() {
  for (const recorded::MemoryEvent& m : chunk_.memory_events) {
    seen(m.time_ns, m.time_ns);
    if (m.operation != MemoryEventOperation::kAllocation && m.operation != MemoryEventOperation::kRelease)
      continue;  // nothing to count
    MemoryEvent e;
    e.process = process_;
    e.allocation = m.operation == MemoryEventOperation::kAllocation;
    e.on_device = on_device(m.memory_kind);
    e.bytes = m.bytes;
    e.correlation_id = m.correlation_id;
    e.tid = m.tid;
    e.device_id = m.device_id;
    e.time_ns = m.time_ns;
    e.address = m.address;
    if (keep_events_) run_.memory_events.push_back(e);
  }
  run_.processes[process_].counts.memory_events += chunk_.memory_events.size();
}

void ChunkLoader::load_tensor_memory_events() {
  for (const recorded::TensorMemoryEvent& m : chunk_.tensor_memory_events) {
    seen(m.time_ns, m.time_ns);
    if (m.action != TensorMemoryEventAction::kAlloc && m.action != TensorMemoryEventAction::kFree) continue;
    check_stack(m.stack_id, "tensor memory event");
    TensorMemoryEvent e;
    e.process = process_;
    e.allocation = m.action == TensorMemoryEventAction::kAlloc;
    e.device = m.device;
    e.tid = m.tid;
    e.stack = stack(m.stack_id);
    e.stream = m.stream;
    e.time_ns = m.time_ns;
    e.address = m.address;
    e.bytes = m.bytes;
    e.total_allocated = m.total_allocated;
    e.total_reserved = m.total_reserved;
    if (keep_events_) run_.tensor_memory_events.push_back(e);
  }
  run_.processes[process_].counts.tensor_memory_events += chunk_.tensor_memory_events.size();
}

void ChunkLoader::check_other_records() {
  RecordCounts& counts = run_.processes[process_].counts;
  for (const recorded::Synchronization& s : chunk_.synchronizations) {
    Synchronization sync;
    sync.start_ns = s.start_ns;
    sync.end_ns = end_of(sync.start_ns, s.duration_ns);
    seen(sync.start_ns, sync.end_ns);
    sync.event = s.event;
    sync.process = process_;
    sync.device_id = s.device_id;
    sync.context_id = s.context_id;
    sync.stream_id = s.stream_id;
    sync.correlation_id = s.correlation_id;
    sync.kind = sync_kind(s.type);
    if (keep_events_) run_.synchronizations.push_back(sync);
  }
  counts.synchronizations += chunk_.synchronizations.size();
  for (const recorded::NvtxMark& m : chunk_.nvtx_marks) {
    resolve(m.domain_id, "NVTX mark domain", "");
    resolve(m.name_id, "NVTX mark", "");
    seen(m.time_ns, m.time_ns);
  }
  counts.nvtx_marks += chunk_.nvtx_marks.size();
  for (const recorded::Overhead& o : chunk_.overheads) {
    resolve(o.kind_id, "overhead", "");
    seen(o.start_ns, end_of(o.start_ns, o.duration_ns));
  }
  counts.overheads += chunk_.overheads.size();
}

// Reads one file into `run` as one more process: into the Run being built
// (RunBuilder::add_file) or into a file's own (load_file).
void read_file(const std::string& path, LoadDepth depth, unsigned decode_threads, Run& run, LoadedFile& file) {
  ParallelRecordDecoder reader(decode_threads);
  if (!reader.open(path)) {
    file.error = reader.error();
    return;
  }

  const auto process = static_cast<uint32_t>(run.processes.size());
  run.processes.emplace_back();
  {
    ProcessInfo& info = run.processes.back();
    info.path = path;
    info.format_major = reader.header().format_major;
    info.format_minor = reader.header().format_minor;
    info.producer = reader.header().producer;
    if (info.format_minor > CaptureReader::kKnownFormatMinor) {
      file.warnings += "profanalyze: warning: " + path + " is format " + std::to_string(info.format_major) + '.' +
                       std::to_string(info.format_minor) + ", newer than this profanalyze (" +
                       std::to_string(info.format_major) + '.' + std::to_string(CaptureReader::kKnownFormatMinor) +
                       "): what that version added is skipped\n";
    }
  }

  InternTables tables;
  FileIds ids;
  recorded::Chunk chunk;
  for (;;) {
    const RecordDecoder::Next next = reader.next(chunk);
    if (next == RecordDecoder::Next::kError) {
      file.error = reader.error();
      return;
    }
    if (next == RecordDecoder::Next::kEnd) break;

    const std::string where = "chunk " + std::to_string(reader.chunk_count() - 1) + ": ";
    // Definitions first: a chunk's records may use ids the same chunk defines.
    if (std::string bad = tables.define(chunk); !bad.empty()) {
      file.error = ReadError{path, reader.chunk_offset(), where + bad};
      return;
    }
    ProcessInfo& info = run.processes[process];
    if (chunk.process && !info.process) info.process = chunk.process;
    for (const auto& t : chunk.threads) info.threads[t.tid] = t.name;  // a rename: last wins
    if (chunk.drops) info.drops = chunk.drops;  // totals: the last one is final
    for (const auto& d : chunk.devices)
      if (std::none_of(info.devices.begin(), info.devices.end(), [&](const auto& known) { return known.id == d.id; }))
        info.devices.push_back(d);
    if (chunk.process_end) info.end = chunk.process_end;
    if (chunk.window) info.window = chunk.window;

    ChunkLoader loader(run, process, tables, ids, chunk, depth, file.api_call_names);
    if (std::string bad = loader.load(); !bad.empty()) {
      file.error = ReadError{path, reader.chunk_offset(), where + bad};
      return;
    }
  }

  // Every process has an end, also one without GPU times (is_fresh's Run has none).
  run.gpu_times_to_link_ends.resize(process + 1, run.gpu_times_to_link.size());
  ProcessInfo& info = run.processes[process];
  info.chunks = reader.chunk_count();
  info.counts.strings = tables.string_count();
  info.counts.frames = tables.frame_count();
  info.counts.stacks = tables.stack_count();
  info.counts.modules = tables.module_count();
  if (reader.truncated_tail()) {
    info.last_chunk_truncated = true;
    file.warnings += "profanalyze: warning: " + reader.truncated_tail()->describe() + '\n';
  }
}

}  // namespace

LoadedFile load_file(const std::string& path, LoadDepth depth, unsigned decode_threads) {
  LoadedFile file;
  read_file(path, depth, decode_threads, file.run, file);
  return file;
}

ReadError too_many_files(const std::string& path) {
  return ReadError{path, 0,
                   "too many capture files: profanalyze reads at most " + std::to_string(Run::kMaxProcesses) +
                       " into one run",
                   false};
}

// Straight into the Run: no copy of the events, as append makes.
std::optional<ReadError> RunBuilder::add_file(const std::string& path, std::ostream& warnings,
                                              unsigned decode_threads) {
  if (run_.processes.size() >= Run::kMaxProcesses) return too_many_files(path);
  LoadedFile file;  // its warnings and error; its Run stays empty
  read_file(path, depth_, decode_threads, run_, file);
  warnings << file.warnings;
  return file.error;
}

namespace {

// A Run nothing was added to yet: the first file's own Run can take its place.
bool is_fresh(const Run& run) {
  return run.processes.empty() && run.name_count() == 1 && run.modules.empty() && run.frames.empty() &&
         run.stacks.empty() && run.kernel_configs.size() == 1 && run.gpu_places.size() == 1 &&
         run.transfers.size() == 1 && run.callback_ids.empty() && run.cpu_events.empty() &&
         run.gpu_activities.empty() && run.memory_events.empty() && run.tensor_memory_events.empty() &&
         run.synchronizations.empty() && run.gpu_work_sums.empty() && run.gpu_times_to_link.empty();
}

}  // namespace

// The file's names, modules, frames, stacks, kernel configs, places and
// transfers are added in their order in the file, after the Run's: the same
// indices a load of the file straight into the Run gives, since its first
// uses come in that order too (Run::intern numbers new names in order of
// first use, and so do Run::gpu_places and Run::transfers).
std::optional<ReadError> RunBuilder::append(LoadedFile&& file, std::ostream& warnings) {
  warnings << file.warnings;
  if (file.error) return file.error;
  if (is_fresh(run_)) {
    run_ = std::move(file.run);
    return std::nullopt;
  }
  Run& from = file.run;
  if (run_.processes.size() >= Run::kMaxProcesses) return too_many_files(from.processes.front().path);
  const auto process = static_cast<uint32_t>(run_.processes.size());
  run_.processes.push_back(std::move(from.processes.front()));

  std::vector<NameId> names(from.name_count());
  for (NameId id = 0; id < from.name_count(); ++id) names[id] = run_.intern(from.name(id));
  for (NameId id = 0; id < file.api_call_names.size(); ++id) {
    if (!file.api_call_names[id]) continue;
    const NameId name = names[id];
    if (run_.callback_ids.size() <= name) run_.callback_ids.resize(name + 1, 0);
    run_.callback_ids[name] = from.callback_id(id);
  }

  const auto module_base = static_cast<int64_t>(run_.modules.size());
  const auto frame_base = static_cast<uint32_t>(run_.frames.size());
  const auto stack_base = static_cast<uint32_t>(run_.stacks.size());
  const auto config_base = static_cast<uint32_t>(run_.kernel_configs.size() - 1);  // entry 0 is shared
  for (Module& m : from.modules) run_.modules.push_back(std::move(m));
  for (Frame f : from.frames) {
    if (f.module >= 0) f.module += module_base;
    f.function = names[f.function];
    f.file = names[f.file];
    run_.frames.push_back(f);
  }
  for (std::vector<uint32_t>& frames : from.stacks) {
    for (uint32_t& f : frames) f += frame_base;
    run_.stacks.push_back(std::move(frames));
  }
  for (size_t k = 1; k < from.kernel_configs.size(); ++k) run_.kernel_configs.push_back(from.kernel_configs[k]);
  auto stack = [&](uint32_t s) { return s == 0 ? 0 : s + stack_base; };
  // Places and transfers are shared by all processes: the file's are found
  // or added in the Run's tables.
  std::vector<uint32_t> places(from.gpu_places.size());
  for (uint32_t p = 0; p < from.gpu_places.size(); ++p) places[p] = run_.gpu_places.intern(from.gpu_places[p]);
  std::vector<uint32_t> transfers(from.transfers.size());
  for (uint32_t t = 0; t < from.transfers.size(); ++t) transfers[t] = run_.transfers.intern(from.transfers[t]);

  for (CpuEvent e : from.cpu_events) {
    e.process = static_cast<uint16_t>(process);
    e.set_nvtx_domain(names[e.nvtx_domain()]);  // an API call's correlation id stays
    e.name = names[e.name];
    e.input_shape = names[e.input_shape];
    e.stack = stack(e.stack);
    run_.cpu_events.push_back(e);
  }
  for (GpuActivity g : from.gpu_activities) {
    g.process = process;
    g.name = names[g.name];
    g.input_shape = names[g.input_shape];
    g.place = places[g.place];
    if (g.kind != GpuKind::kKernel) g.details = transfers[g.details];
    else if (g.details != 0) g.details += config_base;
    run_.gpu_activities.push_back(g);
  }
  for (GpuWorkSum sum : from.gpu_work_sums) {
    sum.process = process;
    sum.name = names[sum.name];
    sum.input_shape = names[sum.input_shape];
    run_.gpu_work_sums.push_back(sum);
  }
  for (const GpuTimeToLink& t : from.gpu_times_to_link) run_.gpu_times_to_link.push_back(t);
  run_.gpu_times_to_link_ends.resize(process + 1, run_.gpu_times_to_link.size());
  for (MemoryEvent m : from.memory_events) {
    m.process = process;
    run_.memory_events.push_back(m);
  }
  for (TensorMemoryEvent m : from.tensor_memory_events) {
    m.process = process;
    m.stack = stack(m.stack);
    run_.tensor_memory_events.push_back(m);
  }
  for (Synchronization s : from.synchronizations) {
    s.process = process;
    run_.synchronizations.push_back(s);
  }
  return std::nullopt;
}

void RunBuilder::finish() {
  std::optional<uint64_t> clock;
  finish(clock);
}

void RunBuilder::finish(std::optional<uint64_t>& clock) {
  align_clocks(clock);
  link_to_launching_calls();
}

void RunBuilder::link_to_launching_calls() {
  const LaunchingCalls launcher(run_);
  for (GpuActivity& g : run_.gpu_activities)
    if (g.correlation_id != 0) g.launched_by = static_cast<int32_t>(launcher.find(g.process, g.correlation_id));
  for (MemoryEvent& m : run_.memory_events)
    if (m.correlation_id != 0) m.called_by = launcher.find(m.process, m.correlation_id);
  for (Synchronization& s : run_.synchronizations)
    if (s.correlation_id != 0) s.called_by = launcher.find(s.process, s.correlation_id);
  for (GpuWorkSum& sum : run_.gpu_work_sums)
    sum.first_top_level = sum.first_correlation_id == 0 || launcher.find(sum.process, sum.first_correlation_id) < 0;
  if (!run_.gpu_times_to_link.empty()) {
    run_.launched_gpu_ns.assign(run_.cpu_events.size(), 0);
    size_t begin = 0;
    for (uint32_t process = 0; process < run_.gpu_times_to_link_ends.size(); ++process) {
      const size_t end = run_.gpu_times_to_link_ends[process];
      for (size_t i = begin; i < end; ++i) {
        const GpuTimeToLink& t = run_.gpu_times_to_link[i];
        const int64_t call = launcher.find(process, t.correlation_id);
        if (call >= 0) run_.launched_gpu_ns[static_cast<size_t>(call)] += t.duration_ns;
      }
      begin = end;
    }
    run_.gpu_times_to_link = {};  // frees its blocks (clear() keeps them)
  }
  run_.gpu_times_to_link_ends = {};
}

void RunBuilder::align_clocks(std::optional<uint64_t>& clock) {
  // realtime = monotonic - anchor.monotonic_ns + anchor.realtime_ns, so a
  // file's times move onto the first file's clock by the difference of the
  // two files' (realtime - monotonic) offsets. Unsigned arithmetic wraps
  // the same way signed would, without overflow UB.
  auto offset = [](const ProcessInfo& p) {
    const recorded::ClockAnchor& a = *p.process->clock_anchor;
    return a.realtime_ns - a.monotonic_ns;
  };
  if (!clock) {
    for (const ProcessInfo& p : run_.processes)
      if (p.process && p.process->clock_anchor) {
        clock = offset(p);
        break;
      }
  }
  if (!clock) return;
  const uint64_t base = *clock;
  bool shifted = false;
  for (ProcessInfo& p : run_.processes) {
    if (!p.process || !p.process->clock_anchor) continue;
    p.timeline_shift_ns = static_cast<int64_t>(offset(p) - base);
    shifted = shifted || p.timeline_shift_ns != 0;
  }
  if (!shifted) return;
  auto shift = [&](uint32_t process, uint64_t& t) { t += static_cast<uint64_t>(run_.processes[process].timeline_shift_ns); };
  for (CpuEvent& e : run_.cpu_events) {
    shift(e.process, e.start_ns);
    shift(e.process, e.end_ns);
  }
  for (GpuActivity& g : run_.gpu_activities) {
    shift(g.process, g.start_ns);
    shift(g.process, g.end_ns);
  }
  for (GpuWorkSum& sum : run_.gpu_work_sums) shift(sum.process, sum.first_start_ns);
  for (MemoryEvent& m : run_.memory_events) shift(m.process, m.time_ns);
  for (TensorMemoryEvent& m : run_.tensor_memory_events) shift(m.process, m.time_ns);
  for (Synchronization& s : run_.synchronizations) {
    shift(s.process, s.start_ns);
    shift(s.process, s.end_ns);
  }
}

}  // namespace prof::analyzer
