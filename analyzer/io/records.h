#pragma once
// The records of a capture file as plain structs, one per message of
// proto/prof.proto with every field kept, and the format's compact encodings
// undone (FORMAT.md): absolute times, an API call's own tid and correlation
// id, launch dimensions. RecordDecoder fills them; the model and `dump` read
// them, so nothing past io sees a protobuf type.
//
// Enum values are prof.proto's numbers (record_decoder.cpp checks that they
// match). A value this reader does not know is kept as written, except an
// ApiDomain, which the model packs into one byte and reads as unspecified.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace prof::analyzer {

// Which CUDA API an API call belongs to (ApiCall.domain).
enum class ApiDomain : uint8_t { kUnspecified, kRuntime, kDriver };
enum class CopyKind : int32_t {
  kUnknown,
  kHostToDevice,
  kDeviceToHost,
  kHostToHost,
  kDeviceToDevice,
  kPeerToPeer,
  kDefault,  // cudaMemcpyDefault: direction inferred from pointers
};
enum class MemoryKind : int32_t {
  kUnknown,
  kPageable,
  kPinned,
  kDevice,
  kArray,
  kManaged,
  kDeviceStatic,
  kManagedStatic,
};
enum class FrameKind : int32_t { kUnspecified, kNative, kPython };
enum class NvtxStyle : int32_t { kUnspecified, kPushPop, kStartEnd };
enum class MemoryOperation : int32_t { kUnspecified, kAllocation, kRelease };
enum class SyncType : int32_t {
  kUnknown,
  kEventSynchronize,
  kStreamWaitEvent,
  kStreamSynchronize,
  kContextSynchronize,
};
enum class ProcessEndReason : int32_t { kUnspecified, kExit, kSignal };
// How the agent saw an API call (ApiCall.backend).
enum class CaptureBackend : int32_t { kCupti, kHooks };

// The enum value names of the schema ("HOST_TO_DEVICE"), empty for a value
// it does not name: what `dump` prints.
const std::string& schema_name(CopyKind kind);
const std::string& schema_name(MemoryKind kind);
const std::string& schema_name(SyncType type);

struct Dim3 {
  uint32_t x = 0, y = 0, z = 0;
};

namespace recorded {

struct FileHeader {
  uint32_t format_major = 0;
  uint32_t format_minor = 0;
  std::string producer;
};
// The newest minor version of format 2 this reader knows (FORMAT.md,
// Versions): a newer one is read, with a warning that what it adds is skipped.
inline constexpr uint32_t kKnownFormatMinor = 2;

// ---------------------------------------------------------------- process --

struct ClockAnchor {
  uint64_t realtime_ns = 0;
  uint64_t monotonic_ns = 0;
};

struct Process {
  uint32_t pid = 0;
  uint32_t parent_pid = 0;
  std::string hostname;
  std::string executable;
  std::vector<std::string> command_line;
  int32_t rank = -1;  // -1: no rank variable was set
  int32_t world_size = 0;
  std::optional<ClockAnchor> clock_anchor;
  uint64_t start_ns = 0;
  std::map<std::string, std::string> options;  // PROF_* name -> value
};

struct ProcessEnd {
  uint64_t end_ns = 0;
  ProcessEndReason reason = ProcessEndReason::kUnspecified;
  int32_t signal = 0;
};

struct Thread {
  uint32_t tid = 0;
  std::string name;
};

// A capture window (PROF_STEP/PROF_SCHEDULE, PROF_DURATION, on demand): the
// last chunk of a window file.
struct Window {
  uint32_t index = 0;
  int64_t first_step = -1;  // -1: not cut by steps
  int64_t last_step = -1;   // inclusive
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  std::string step_rule;
  std::string trigger;
  bool partial = false;
  uint32_t gpu_records_missing = 0;  // launches whose GPU record never came (2.2)
};

struct DropCounts {
  uint64_t ring_full = 0;
  uint64_t cupti_records = 0;
  uint64_t truncated_payloads = 0;
};

// ------------------------------------------------------------- interning --

struct InternedString {
  uint64_t id = 0;
  std::string value;
};

struct Module {
  uint64_t id = 0;
  std::string path;
  uint64_t load_address = 0;
  uint64_t size = 0;
  std::string build_id;  // raw NT_GNU_BUILD_ID bytes; empty: none
  uint64_t bias = 0;     // address = file virtual address + bias
};

struct Frame {
  uint64_t id = 0;
  FrameKind kind = FrameKind::kUnspecified;
  uint64_t address = 0;
  uint64_t module_id = 0;
  uint64_t function_name_id = 0;
  uint64_t file_name_id = 0;
  uint32_t line = 0;
};

struct Stack {
  uint64_t id = 0;
  std::vector<uint64_t> frame_ids;  // innermost first
};

// ------------------------------------------------------------- CPU side ---

struct LaunchArgs {
  uint64_t kernel_name_id = 0;
  Dim3 grid, block;
  uint32_t dynamic_shared_bytes = 0;
  uint64_t stream = 0;
};

struct TransferArgs {
  uint64_t bytes = 0;
  CopyKind kind = CopyKind::kUnknown;
  uint64_t stream = 0;
  bool is_memset = false;
};

struct ApiCall {
  uint32_t tid = 0;
  ApiDomain domain = ApiDomain::kUnspecified;
  uint32_t callback_id = 0;
  uint64_t name_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint32_t correlation_id = 0;  // 0: none
  int32_t return_code = 0;
  uint64_t stack_id = 0;  // 0: no stack
  std::optional<LaunchArgs> launch;
  std::optional<TransferArgs> transfer;
  CaptureBackend backend = CaptureBackend::kCupti;
};

struct NvtxRange {
  uint32_t tid = 0;
  uint32_t end_tid = 0;
  uint64_t domain_id = 0;
  uint64_t name_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  NvtxStyle style = NvtxStyle::kUnspecified;
  uint32_t color_argb = 0;
  uint32_t category = 0;
  bool unterminated = false;
  uint32_t depth = 0;
};

struct NvtxMark {
  uint32_t tid = 0;
  uint64_t domain_id = 0;
  uint64_t name_id = 0;
  uint64_t time_ns = 0;
  uint32_t color_argb = 0;
  uint32_t category = 0;
};

// ------------------------------------------------------------- GPU side ---

struct Device {
  uint32_t id = 0;
  std::string name;
  uint64_t global_memory_bytes = 0;
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t sm_count = 0;
  uint32_t warp_size = 0;
  uint32_t max_threads_per_block = 0;
  uint32_t max_shared_memory_per_block = 0;
  uint32_t max_registers_per_block = 0;
  uint64_t core_clock_khz = 0;
  std::string uuid;
  // For occupancy (Kineto's deviceProperties); 0 when not reported.
  uint32_t max_warps_per_multiprocessor = 0;
  uint32_t max_blocks_per_multiprocessor = 0;
  uint32_t max_shared_memory_per_multiprocessor = 0;
  uint32_t max_registers_per_multiprocessor = 0;
  uint32_t max_shared_memory_per_block_optin = 0;
};

struct Context {
  uint32_t id = 0;
  uint32_t device_id = 0;
  uint32_t null_stream_id = 0;
};

struct Kernel {
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint64_t name_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  Dim3 grid, block;
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t local_memory_per_thread = 0;
  uint32_t graph_id = 0;  // 0: not launched from a graph
  uint64_t graph_node_id = 0;
  // Timed by CUDA events around the launch, not by CUPTI (prof.proto).
  bool event_timed = false;
};

struct Memcpy {
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint64_t bytes = 0;
  CopyKind kind = CopyKind::kUnknown;
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  uint32_t src_device_id = 0;
  uint32_t dst_device_id = 0;
  bool is_async = false;
  uint32_t graph_id = 0;
  bool event_timed = false;
};

struct Memset {
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
  MemoryKind memory_kind = MemoryKind::kUnknown;
  uint32_t graph_id = 0;
  bool event_timed = false;
};

struct MemoryEvent {
  MemoryOperation operation = MemoryOperation::kUnspecified;
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
  uint64_t time_ns = 0;
  uint64_t address = 0;
  uint64_t bytes = 0;
  MemoryKind memory_kind = MemoryKind::kUnknown;
  uint32_t tid = 0;
};

struct Synchronization {
  SyncType type = SyncType::kUnknown;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint64_t event = 0;
  uint32_t correlation_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
  uint32_t device_id = 0;
};

struct Overhead {
  uint64_t kind_id = 0;
  uint32_t tid = 0;
  uint32_t device_id = 0;
  uint64_t start_ns = 0;
  uint64_t duration_ns = 0;
};

// One chunk, decoded. RecordDecoder reuses it from chunk to chunk, so its
// lists keep their capacity and decoding allocates nothing per record.
// Lists are in the file's order; a chunk's definitions come with it and
// apply before its records (InternTables::define).
struct Chunk {
  uint64_t time_base_ns = 0;

  std::vector<ApiCall> api_calls;
  std::vector<Kernel> kernels;
  std::vector<Memcpy> memcpys;
  std::vector<Memset> memsets;
  std::vector<NvtxRange> nvtx_ranges;
  std::vector<MemoryEvent> memory_events;
  std::vector<Synchronization> synchronizations;
  std::vector<NvtxMark> nvtx_marks;
  std::vector<Overhead> overheads;

  std::vector<InternedString> strings;
  std::vector<Frame> frames;
  std::vector<Stack> stacks;
  std::vector<Module> modules;
  std::optional<Process> process;  // in the first chunk of a file
  std::vector<Thread> threads;     // a thread appears again when renamed
  std::vector<Device> devices;
  std::vector<Context> contexts;
  std::optional<Window> window;
  std::optional<DropCounts> drops;  // totals so far; the last chunk's are final
  std::optional<ProcessEnd> process_end;
};

}  // namespace recorded
}  // namespace prof::analyzer
