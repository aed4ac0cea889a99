#pragma once
// Everything loaded from one or more capture files, with absolute times and
// names resolved: the model every view reads. Files of several processes
// load into one Run; each record says which process it came from.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/records.h"
#include "model/event_table.h"
#include "model/interned_values.h"

namespace prof::analyzer {

// Index into Run's name pool. Names are pooled per Run, not per file,
// because interned ids are only unique within one file.
using NameId = uint32_t;

struct RecordCounts {
  uint64_t api_calls = 0;
  uint64_t api_calls_by_hooks = 0;  // of api_calls, captured by the agent's hooks (the rest by CUPTI)
  uint64_t event_timed = 0;         // GPU records timed by CUDA events (the rest by CUPTI)
  uint64_t kernels = 0;
  uint64_t memcpys = 0;
  uint64_t memsets = 0;
  uint64_t memory_events = 0;
  uint64_t tensor_memory_events = 0;
  uint64_t synchronizations = 0;
  uint64_t nvtx_ranges = 0;
  uint64_t nvtx_marks = 0;
  uint64_t overheads = 0;
  // Definitions.
  uint64_t stacks = 0;
  uint64_t frames = 0;
  uint64_t modules = 0;
  uint64_t strings = 0;
};

struct ProcessInfo {
  std::string path;  // the file it was read from
  uint32_t format_major = 0;
  uint32_t format_minor = 0;
  std::string producer;
  std::optional<recorded::Process> process;     // absent if the file never had one
  std::optional<recorded::ProcessEnd> end;      // absent: the run was cut short
  std::map<uint32_t, std::string> threads;       // tid -> last name given
  std::vector<recorded::Device> devices;        // as recorded, first definition of each id
  RecordCounts counts;
  std::optional<recorded::DropCounts> drops;    // the last chunk's totals
  // The capture window the file holds (PROF_SCHEDULE, PROF_DURATION, on
  // demand), from its last chunk; absent in a file of a whole run.
  std::optional<recorded::Window> window;
  // Added to this file's times to place it on the Run's timeline (the first
  // file's clock), from the clock anchors; 0 for the first file or a file
  // without an anchor.
  int64_t timeline_shift_ns = 0;
  uint64_t unterminated_ranges = 0;
  uint64_t chunks = 0;
  bool last_chunk_truncated = false;
  // Earliest start and latest end over all records.
  uint64_t first_event_ns = std::numeric_limits<uint64_t>::max();
  uint64_t last_event_ns = 0;

  bool cut_short() const { return !end.has_value(); }
  // Process.start_ns when known, else the first event.
  uint64_t start_ns() const;
  // ProcessEnd.end_ns when known, else the last event.
  uint64_t end_ns() const;
};

enum class CpuEventKind : uint8_t {
  kPushPopRange,   // nvtxRangePush/Pop: nests on its thread
  kStartEndRange,  // nvtxRangeStart/End: may cross threads, never nests
  kApiCall,        // CUDA runtime or driver call: nests like push/pop
};

// A CPU-side interval: an NVTX range or a CUDA API call. A run holds
// millions, so the record is packed: fields widest first, no padding, and
// what only one kind has shares a slot with what only the other has.
struct CpuEvent {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t tid = 0;
  NameId name = 0;
  // API calls only: what --group-by-input-shape groups by, from the call's
  // LaunchArgs ("grid=[..] block=[..] dynamic shared=N") or TransferArgs
  // ("HtoD 4096 B", "memset 1024 B"); kNoName when the call had neither.
  NameId input_shape = 0;
  uint32_t stack = 0;  // API calls only: index + 1 into Run::stacks; 0: none
  // Index into Run::processes. 16 bits: the loader refuses a run of more
  // files than that (Run::kMaxProcesses).
  uint16_t process = 0;
  CpuEventKind kind = CpuEventKind::kPushPopRange;
  bool unterminated : 1 = false;  // NVTX range still open when recording ended

  uint64_t duration_ns() const { return end_ns - start_ns; }
  // API calls only: the call's ApiDomain; a domain this reader does not
  // know reads as unspecified.
  ApiDomain api_domain() const { return static_cast<ApiDomain>(api_domain_); }
  void set_api_domain(ApiDomain domain) {
    const bool known = domain == ApiDomain::kRuntime || domain == ApiDomain::kDriver;
    api_domain_ = known ? static_cast<uint8_t>(domain) : 0;
  }
  // Ranges: the NVTX domain, Run::kNoName (0) for the default domain; API
  // calls: CUPTI's correlation id, 0 for none. One slot, as no event has
  // both: each reads as 0 on an event of the other kind, and its setter does
  // nothing there (so set the kind first).
  NameId nvtx_domain() const { return kind == CpuEventKind::kApiCall ? 0 : domain_or_correlation_; }
  uint32_t correlation_id() const { return kind == CpuEventKind::kApiCall ? domain_or_correlation_ : 0; }
  void set_nvtx_domain(NameId domain) {
    if (kind != CpuEventKind::kApiCall) domain_or_correlation_ = domain;
  }
  void set_correlation_id(uint32_t id) {
    if (kind == CpuEventKind::kApiCall) domain_or_correlation_ = id;
  }

 private:
  // The schema's ApiDomain (an int32) in two bits: unspecified, runtime, driver.
  uint8_t api_domain_ : 2 = 0;
  uint32_t domain_or_correlation_ = 0;
};
static_assert(sizeof(CpuEvent) == 40, "CpuEvent is one of millions: keep it packed");

enum class GpuKind : uint8_t { kKernel, kMemcpy, kMemset };

// A kernel's launch configuration and resources, for the trace's args. Held
// once per distinct value in Run::kernel_configs: a run repeats a handful of
// them millions of times.
struct KernelConfig {
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  // The node of the graph that launched it; 0 when not from a graph. Held
  // here because a replayed graph repeats the same few nodes.
  uint64_t graph_node_id = 0;

  bool operator==(const KernelConfig&) const = default;
};

// Where a GPU record ran. A run has a handful of each, so records hold an
// index into Run::gpu_places rather than the 16 bytes.
struct GpuPlace {
  uint32_t device_id = 0;
  uint32_t stream_id = 0;
  uint32_t context_id = 0;  // CUPTI's context id
  uint32_t graph_id = 0;    // the graph it was replayed from; 0: none

  bool operator==(const GpuPlace&) const = default;
};
struct GpuPlaceHash {
  size_t operator()(const GpuPlace& place) const;
};

// What a copy or memset moved, held once per distinct value in
// Run::transfers: a run repeats a few sizes millions of times.
struct Transfer {
  uint64_t bytes = 0;
  CopyKind copy_kind = CopyKind::kUnknown;  // memcpys only

  bool operator==(const Transfer&) const = default;
};
struct TransferHash {
  size_t operator()(const Transfer& transfer) const;
};

// Fields widest first, as CpuEvent's. Where it ran and what it moved or
// launched with are indices into the Run's tables (Run::place, Run::transfer,
// Run::kernel_config read them): a run holds millions of these.
struct GpuActivity {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t process = 0;
  // Index into Run::cpu_events of the API call that launched it (same process,
  // same correlation id); -1 when none was recorded. 32 bits, as the other
  // indices: 2^31 CPU events would take 100 GB of them.
  int32_t launched_by = -1;
  NameId name = 0;  // kernels demangled; "Memcpy HtoD (Pageable -> Device)" style for copies
  uint32_t correlation_id = 0;
  // Launch configuration ("grid=[..] block=[..] shared=N") or size
  // ("HtoD 4096 B"), for --group-by-input-shape.
  NameId input_shape = 0;
  uint32_t place = 0;  // index into Run::gpu_places
  // Kernels: index into Run::kernel_configs; memcpys and memsets: into
  // Run::transfers. One slot, as no record has both.
  uint32_t details = 0;
  GpuKind kind = GpuKind::kKernel;

  uint64_t duration_ns() const { return end_ns - start_ns; }
};
static_assert(sizeof(GpuActivity) == 48, "GpuActivity is one of millions: keep it packed");

// GPU work of one name (and launch or transfer shape) in one process, summed
// as a LoadDepth::kGpuSums load reads it: what report's table needs of the
// GPU records (its rows are sums), without a GpuActivity per record. Per
// process, because a file's times move onto the Run's timeline only once
// every file is read (RunBuilder::finish shifts first_start_ns with them).
struct GpuWorkSum {
  uint32_t process = 0;
  NameId name = 0;
  NameId input_shape = 0;
  uint32_t first_correlation_id = 0;  // of the first record
  uint64_t count = 0;
  uint64_t total_ns = 0;
  // The first record: earliest start, then first read; first_index counts
  // the process's GPU records in the order a kEvents load appends them.
  uint64_t first_start_ns = std::numeric_limits<uint64_t>::max();
  uint64_t first_index = 0;
  // The first record had no recorded launching call (set by finish).
  bool first_top_level = true;
  GpuKind kind = GpuKind::kKernel;
};

// One GPU record's time, for the API call that launched it, until
// RunBuilder::finish links it (LoadDepth::kGpuSums). 8 bytes, not 16: at
// 10M events the 3.2M of them were 52 MB of the load's peak, beside the CPU
// events. The process is not kept per record but per stretch of the table
// (Run::gpu_times_to_link_ends: a file's records are added together), and a
// duration past 32 bits is split over several entries of the same call,
// which the linking adds up again.
struct GpuTimeToLink {
  uint32_t correlation_id = 0;
  uint32_t duration_ns = 0;
};
static_assert(sizeof(GpuTimeToLink) == 8);

// A block of a framework's caching allocator handed to a tensor or taken
// back (PyTorch's, recorded by the Python bootstrap): what torch.profiler
// calls memory. The MemoryEvents below are the segments it reserved.
struct TensorMemoryEvent {
  uint32_t process = 0;
  bool allocation = true;  // false: freed
  int32_t device = -1;     // CUDA device; -1: host memory
  uint32_t tid = 0;
  uint32_t stack = 0;  // index + 1 into Run::stacks; 0: none
  uint64_t stream = 0;
  uint64_t time_ns = 0;
  uint64_t address = 0;
  uint64_t bytes = 0;
  // The allocator's totals on the device right after the event.
  uint64_t total_allocated = 0;
  uint64_t total_reserved = 0;

  int64_t signed_bytes() const {
    return allocation ? static_cast<int64_t>(bytes) : -static_cast<int64_t>(bytes);
  }
};

// A CUPTI memory record (cudaMalloc, cudaFree, cudaMallocHost, ...).
struct MemoryEvent {
  uint32_t process = 0;
  bool allocation = true;  // false: a release
  // Device memory (device, managed, array, static) is "CUDA Mem"; host
  // memory allocated through CUDA (pageable, pinned) is "CPU Mem".
  bool on_device = true;
  uint64_t bytes = 0;
  uint32_t correlation_id = 0;
  uint32_t tid = 0;
  uint32_t device_id = 0;
  uint64_t time_ns = 0;
  uint64_t address = 0;
  // Index into Run::cpu_events of the API call it happened in (same process,
  // same correlation id); -1 when none was recorded.
  int64_t called_by = -1;

  // Allocations count positive, releases negative, as torch's columns do.
  int64_t signed_bytes() const {
    return allocation ? static_cast<int64_t>(bytes) : -static_cast<int64_t>(bytes);
  }
};

// A CUPTI synchronization record: the time a host thread waited in a
// synchronising call (context, stream or event synchronize), or the moment
// a stream was told to wait for an event.
enum class SyncKind : uint8_t { kUnknown, kEventSynchronize, kStreamWaitEvent, kStreamSynchronize, kContextSynchronize };

struct Synchronization {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t event = 0;  // CUPTI's event id for event syncs
  // Index into Run::cpu_events of the call that synchronised (same process,
  // same correlation id); -1 when none was recorded.
  int64_t called_by = -1;
  uint32_t process = 0;
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;  // CUPTI's all-ones value when no stream applies
  uint32_t correlation_id = 0;
  SyncKind kind = SyncKind::kUnknown;

  uint64_t duration_ns() const { return end_ns - start_ns; }
};

struct Module {
  std::string path;
  uint64_t load_address = 0;
  uint64_t size = 0;
  uint64_t bias = 0;  // address = file virtual address + bias
  std::string build_id;  // raw NT_GNU_BUILD_ID bytes; empty: none recorded
};

struct Frame {
  FrameKind kind = FrameKind::kNative;
  uint64_t address = 0;
  int64_t module = -1;  // index into Run::modules; -1: in no known module
  NameId function = 0;  // Python frames
  NameId file = 0;
  uint32_t line = 0;
};

class Run {
 public:
  // Name 0 is always the empty string, so "no domain" needs no optional.
  static constexpr NameId kNoName = 0;
  // What CpuEvent::process can index: the loader refuses more files.
  static constexpr size_t kMaxProcesses = std::numeric_limits<decltype(CpuEvent::process)>::max();
  Run() : kernel_configs(1) {
    intern("");
    gpu_places.intern({});  // index 0: what a default GpuActivity reads
    transfers.intern({});
  }

  // The same names, processes, stacks, kernel configs, places and transfers
  // with no events: where a window's selection starts, without copying every
  // event of the run only to drop most of them.
  Run without_events() const;

  NameId intern(std::string_view name);
  const std::string& name(NameId id) const { return names_[id]; }
  // Names pooled so far: every NameId is below it.
  NameId name_count() const { return static_cast<NameId>(names_.size()); }

  std::vector<ProcessInfo> processes;
  EventTable<CpuEvent> cpu_events;
  EventTable<GpuActivity> gpu_activities;
  EventTable<MemoryEvent> memory_events;
  EventTable<TensorMemoryEvent> tensor_memory_events;  // by process, then time
  EventTable<Synchronization> synchronizations;
  // LoadDepth::kGpuSums only, in place of gpu_activities: the GPU work
  // summed per process, name and shape, and per CPU event (by index into
  // cpu_events; empty when no call launched any) the GPU time it launched.
  std::vector<GpuWorkSum> gpu_work_sums;
  HugeVector<uint64_t> launched_gpu_ns;
  // Until RunBuilder::finish: each GPU record's time, by correlation id,
  // process by process; entry p of the ends is where process p's stop.
  EventTable<GpuTimeToLink> gpu_times_to_link;
  std::vector<size_t> gpu_times_to_link_ends;
  // Call stacks, resolved from each file's interned ids into Run-wide
  // indices (ids are per file).
  std::vector<Module> modules;
  std::vector<Frame> frames;
  std::vector<std::vector<uint32_t>> stacks;  // frame indices, innermost first
  std::vector<KernelConfig> kernel_configs;    // entry 0 is all zeros (non-kernels)
  InternedValues<GpuPlace, GpuPlaceHash> gpu_places;  // entry 0 is all zeros
  InternedValues<Transfer, TransferHash> transfers;   // entry 0 is all zeros (kernels)
  const GpuPlace& place(const GpuActivity& g) const { return gpu_places[g.place]; }
  // All zeros for a record of the other kind.
  const KernelConfig& kernel_config(const GpuActivity& g) const {
    return kernel_configs[g.kind == GpuKind::kKernel ? g.details : 0];
  }
  const Transfer& transfer(const GpuActivity& g) const { return transfers[g.kind == GpuKind::kKernel ? 0 : g.details]; }
  // CUPTI's callback id (Kineto's "cbid") of the API call of each name: one
  // function, one id, so it is kept per name rather than per call.
  std::vector<uint16_t> callback_ids;  // by NameId; 0: not an API call's name
  uint16_t callback_id(NameId name) const { return name < callback_ids.size() ? callback_ids[name] : 0; }

 private:
  // Looks names up by string_view without building a std::string per call.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, NameId, NameHash, std::equal_to<>> name_ids_;
};

}  // namespace prof::analyzer
