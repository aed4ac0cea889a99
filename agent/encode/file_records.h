#pragma once
// What the writer hands to the ChunkEncoder: one plain struct per message of
// proto/prof.proto, with absolute times (the encoder delta-encodes them) and
// interned ids already resolved. Field meanings are documented in the schema.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace prof {

struct ClockAnchor {
  uint64_t realtime_ns = 0;
  uint64_t monotonic_ns = 0;
};

struct ProcessInfo {
  uint32_t pid = 0;
  uint32_t parent_pid = 0;
  std::string hostname;
  std::string executable;
  std::vector<std::string> command_line;
  int32_t rank = -1;
  int32_t world_size = -1;
  ClockAnchor clock_anchor;
  uint64_t start_ns = 0;
  std::vector<std::pair<std::string, std::string>> options;
};

enum class EndReason : uint32_t { unspecified = 0, exit = 1, signal = 2 };

struct ProcessEnd {
  uint64_t end_ns = 0;
  EndReason reason = EndReason::unspecified;
  int32_t signal = 0;
};

struct ThreadInfo {
  uint32_t tid = 0;
  std::string name;
};

struct DropCounts {
  uint64_t ring_full = 0;
  uint64_t cupti_records = 0;
  uint64_t truncated_payloads = 0;
};

struct ModuleInfo {
  uint64_t id = 0;
  std::string path;
  uint64_t load_address = 0;
  uint64_t size = 0;
  std::string build_id;  // raw bytes
  uint64_t bias = 0;
};

enum class FrameKind : uint32_t { unspecified = 0, native = 1, python = 2 };

struct FrameInfo {
  uint64_t id = 0;
  FrameKind kind = FrameKind::native;
  uint64_t address = 0;
  uint64_t module_id = 0;
  uint64_t function_name_id = 0;
  uint64_t file_name_id = 0;
  uint32_t line = 0;
};

struct StackInfo {
  uint64_t id = 0;
  std::vector<uint64_t> frame_ids;  // leaf first
};

struct DeviceInfo {
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
  std::string uuid;  // raw bytes
};

struct ContextInfo {
  uint32_t id = 0;
  uint32_t device_id = 0;
  uint32_t null_stream_id = 0;
};

enum class ApiDomain : uint32_t { unspecified = 0, runtime = 1, driver = 2 };
enum class CopyKind : uint32_t {
  unknown = 0, host_to_device, device_to_host, host_to_host, device_to_device, peer_to_peer, by_pointer
};
enum class MemoryKind : uint32_t {
  unknown = 0, pageable, pinned, device, array, managed, device_static, managed_static
};

struct LaunchArgs {
  uint64_t kernel_name_id = 0;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t dynamic_shared_bytes = 0;
  uint64_t stream = 0;
};

struct TransferArgs {
  uint64_t bytes = 0;
  CopyKind kind = CopyKind::unknown;
  uint64_t stream = 0;
  bool is_memset = false;
};

struct ApiCall {
  uint32_t tid = 0;
  ApiDomain domain = ApiDomain::unspecified;
  uint32_t callback_id = 0;
  uint64_t name_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t correlation_id = 0;
  int32_t return_code = 0;
  uint64_t stack_id = 0;
  bool has_launch = false;
  LaunchArgs launch;
  bool has_transfer = false;
  TransferArgs transfer;
  uint64_t external_correlation_id = 0;
};

enum class RangeStyle : uint32_t { unspecified = 0, push_pop = 1, start_end = 2 };

struct NvtxRange {
  uint32_t tid = 0;
  uint32_t end_tid = 0;
  uint64_t domain_id = 0;
  uint64_t name_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  RangeStyle style = RangeStyle::push_pop;
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

struct GpuPlace {  // where a GPU record ran
  uint32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t correlation_id = 0;
};

struct Kernel {
  GpuPlace place;
  uint64_t name_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t registers_per_thread = 0;
  uint32_t static_shared_bytes = 0;
  uint32_t dynamic_shared_bytes = 0;
  uint32_t local_memory_per_thread = 0;
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
};

struct Memcpy {
  GpuPlace place;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  CopyKind kind = CopyKind::unknown;
  MemoryKind src_kind = MemoryKind::unknown;
  MemoryKind dst_kind = MemoryKind::unknown;
  uint32_t src_device_id = 0;
  uint32_t dst_device_id = 0;
  bool is_async = false;
  uint32_t graph_id = 0;
};

struct Memset {
  GpuPlace place;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
  MemoryKind memory_kind = MemoryKind::unknown;
  uint32_t graph_id = 0;
};

enum class MemoryOperation : uint32_t { unspecified = 0, allocation = 1, release = 2 };

struct MemoryEvent {
  MemoryOperation operation = MemoryOperation::unspecified;
  GpuPlace place;
  uint64_t time_ns = 0;
  uint64_t address = 0;
  uint64_t bytes = 0;
  MemoryKind memory_kind = MemoryKind::unknown;
  uint32_t tid = 0;
};

enum class SyncType : uint32_t {
  unknown = 0, event_synchronize, stream_wait_event, stream_synchronize, context_synchronize
};

struct Synchronization {
  SyncType type = SyncType::unknown;
  GpuPlace place;
  uint64_t event = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

struct Overhead {
  uint64_t kind_id = 0;
  uint32_t tid = 0;
  uint32_t device_id = 0;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

}  // namespace prof
