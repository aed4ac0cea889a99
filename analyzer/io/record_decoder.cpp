#include "io/record_decoder.h"

#include <google/protobuf/stubs/logging.h>

#include "io/capture_reader.h"
#include "io/delta_decoder.h"
#include "proto/prof.pb.h"

namespace prof::analyzer {
namespace {

namespace pb = prof::proto;

// Enums are converted by value: they must stay the schema's numbers.
static_assert(static_cast<int>(ApiDomain::kRuntime) == pb::RUNTIME && static_cast<int>(ApiDomain::kDriver) == pb::DRIVER);
static_assert(static_cast<int>(CopyKind::kHostToDevice) == pb::HOST_TO_DEVICE &&
              static_cast<int>(CopyKind::kDeviceToHost) == pb::DEVICE_TO_HOST &&
              static_cast<int>(CopyKind::kHostToHost) == pb::HOST_TO_HOST &&
              static_cast<int>(CopyKind::kDeviceToDevice) == pb::DEVICE_TO_DEVICE &&
              static_cast<int>(CopyKind::kPeerToPeer) == pb::PEER_TO_PEER &&
              static_cast<int>(CopyKind::kDefault) == pb::DEFAULT);
static_assert(static_cast<int>(MemoryKind::kPageable) == pb::PAGEABLE &&
              static_cast<int>(MemoryKind::kPinned) == pb::PINNED &&
              static_cast<int>(MemoryKind::kDevice) == pb::DEVICE && static_cast<int>(MemoryKind::kArray) == pb::ARRAY &&
              static_cast<int>(MemoryKind::kManaged) == pb::MANAGED &&
              static_cast<int>(MemoryKind::kDeviceStatic) == pb::DEVICE_STATIC &&
              static_cast<int>(MemoryKind::kManagedStatic) == pb::MANAGED_STATIC);
static_assert(static_cast<int>(FrameKind::kNative) == pb::Frame::NATIVE &&
              static_cast<int>(FrameKind::kPython) == pb::Frame::PYTHON);
static_assert(static_cast<int>(NvtxStyle::kPushPop) == pb::NvtxRange::PUSH_POP &&
              static_cast<int>(NvtxStyle::kStartEnd) == pb::NvtxRange::START_END);
static_assert(static_cast<int>(MemoryOperation::kAllocation) == pb::MemoryEvent::ALLOCATION &&
              static_cast<int>(MemoryOperation::kRelease) == pb::MemoryEvent::RELEASE);
static_assert(static_cast<int>(SyncType::kEventSynchronize) == pb::Synchronization::EVENT_SYNCHRONIZE &&
              static_cast<int>(SyncType::kStreamWaitEvent) == pb::Synchronization::STREAM_WAIT_EVENT &&
              static_cast<int>(SyncType::kStreamSynchronize) == pb::Synchronization::STREAM_SYNCHRONIZE &&
              static_cast<int>(SyncType::kContextSynchronize) == pb::Synchronization::CONTEXT_SYNCHRONIZE);
static_assert(static_cast<int>(CaptureBackend::kCupti) == pb::CUPTI && static_cast<int>(CaptureBackend::kHooks) == pb::HOOKS);
static_assert(static_cast<int>(ProcessEndReason::kExit) == pb::ProcessEnd::EXIT &&
              static_cast<int>(ProcessEndReason::kSignal) == pb::ProcessEnd::SIGNAL);

template <typename Enum, typename ProtoEnum>
Enum as(ProtoEnum value) {
  return static_cast<Enum>(static_cast<int32_t>(value));
}

ApiDomain domain_of(pb::ApiDomain domain) {
  return domain == pb::DRIVER ? ApiDomain::kDriver : domain == pb::RUNTIME ? ApiDomain::kRuntime : ApiDomain::kUnspecified;
}

// Launch dimensions are stored minus one (FORMAT.md, "Compact fields");
// LaunchArgs and Kernel name them alike. Unsigned, so 0 stays lossless.
template <typename Message>
Dim3 grid_of(const Message& m) {
  return {m.grid_x_minus_one() + 1u, m.grid_y_minus_one() + 1u, m.grid_z_minus_one() + 1u};
}
template <typename Message>
Dim3 block_of(const Message& m) {
  return {m.block_x_minus_one() + 1u, m.block_y_minus_one() + 1u, m.block_z_minus_one() + 1u};
}

// The output list as long as the input, its elements (and their capacity)
// reused from the previous chunk; every decode below sets every field.
template <typename Out, typename In>
void size_like(std::vector<Out>& out, const In& in) {
  out.resize(static_cast<size_t>(in.size()));
}

void decode_api_calls(const pb::Chunk& chunk, std::vector<recorded::ApiCall>& out) {
  size_like(out, chunk.api_calls());
  DeltaDecoder starts(chunk.time_base_ns());
  // An ApiCall's tid is 0 for "the previous call's", and its correlation id
  // is a delta to the previous call's, both within the chunk.
  uint32_t tid = 0;
  uint32_t correlation_id = 0;
  size_t i = 0;
  for (const pb::ApiCall& a : chunk.api_calls()) {
    recorded::ApiCall& c = out[i++];
    if (a.tid() != 0) tid = a.tid();
    // Unsigned wrap-around: a corrupt delta must not be signed-overflow UB.
    correlation_id += static_cast<uint32_t>(static_cast<uint64_t>(a.correlation_id_delta()));
    c.tid = tid;
    c.domain = domain_of(a.domain());
    c.callback_id = a.callback_id();
    c.name_id = a.name_id();
    c.start_ns = starts.next(a.start_delta_ns());
    c.duration_ns = a.duration_ns();
    c.correlation_id = correlation_id;
    c.return_code = a.return_code();
    c.stack_id = a.stack_id();
    if (a.has_launch()) {
      const pb::LaunchArgs& l = a.launch();
      c.launch = recorded::LaunchArgs{l.kernel_name_id(), grid_of(l), block_of(l), l.dynamic_shared_bytes(), l.stream()};
    } else {
      c.launch.reset();
    }
    if (a.has_transfer()) {
      const pb::TransferArgs& t = a.transfer();
      c.transfer = recorded::TransferArgs{t.bytes(), as<CopyKind>(t.kind()), t.stream(), t.is_memset()};
    } else {
      c.transfer.reset();
    }
    c.backend = as<CaptureBackend>(a.backend());
  }
}

void decode_kernels(const pb::Chunk& chunk, std::vector<recorded::Kernel>& out) {
  size_like(out, chunk.kernels());
  DeltaDecoder starts(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::Kernel& k : chunk.kernels()) {
    recorded::Kernel& r = out[i++];
    r.device_id = k.device_id();
    r.context_id = k.context_id();
    r.stream_id = k.stream_id();
    r.correlation_id = k.correlation_id();
    r.name_id = k.name_id();
    r.start_ns = starts.next(k.start_delta_ns());
    r.duration_ns = k.duration_ns();
    r.grid = grid_of(k);
    r.block = block_of(k);
    r.registers_per_thread = k.registers_per_thread();
    r.static_shared_bytes = k.static_shared_bytes();
    r.dynamic_shared_bytes = k.dynamic_shared_bytes();
    r.local_memory_per_thread = k.local_memory_per_thread();
    r.graph_id = k.graph_id();
    r.graph_node_id = k.graph_node_id();
    r.event_timed = k.event_timed();
  }
}

void decode_memcpys(const pb::Chunk& chunk, std::vector<recorded::Memcpy>& out) {
  size_like(out, chunk.memcpys());
  DeltaDecoder starts(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::Memcpy& c : chunk.memcpys()) {
    recorded::Memcpy& r = out[i++];
    r.device_id = c.device_id();
    r.context_id = c.context_id();
    r.stream_id = c.stream_id();
    r.correlation_id = c.correlation_id();
    r.start_ns = starts.next(c.start_delta_ns());
    r.duration_ns = c.duration_ns();
    r.bytes = c.bytes();
    r.kind = as<CopyKind>(c.kind());
    r.src_kind = as<MemoryKind>(c.src_kind());
    r.dst_kind = as<MemoryKind>(c.dst_kind());
    r.src_device_id = c.src_device_id();
    r.dst_device_id = c.dst_device_id();
    r.is_async = c.is_async();
    r.graph_id = c.graph_id();
    r.event_timed = c.event_timed();
  }
}

void decode_memsets(const pb::Chunk& chunk, std::vector<recorded::Memset>& out) {
  size_like(out, chunk.memsets());
  DeltaDecoder starts(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::Memset& s : chunk.memsets()) {
    recorded::Memset& r = out[i++];
    r.device_id = s.device_id();
    r.context_id = s.context_id();
    r.stream_id = s.stream_id();
    r.correlation_id = s.correlation_id();
    r.start_ns = starts.next(s.start_delta_ns());
    r.duration_ns = s.duration_ns();
    r.bytes = s.bytes();
    r.value = s.value();
    r.memory_kind = as<MemoryKind>(s.memory_kind());
    r.graph_id = s.graph_id();
    r.event_timed = s.event_timed();
  }
}

void decode_nvtx_ranges(const pb::Chunk& chunk, std::vector<recorded::NvtxRange>& out) {
  size_like(out, chunk.nvtx_ranges());
  DeltaDecoder starts(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::NvtxRange& n : chunk.nvtx_ranges()) {
    recorded::NvtxRange& r = out[i++];
    r.tid = n.tid();
    r.end_tid = n.end_tid();
    r.domain_id = n.domain_id();
    r.name_id = n.name_id();
    r.start_ns = starts.next(n.start_delta_ns());
    r.duration_ns = n.duration_ns();
    r.style = as<NvtxStyle>(n.style());
    r.color_argb = n.color_argb();
    r.category = n.category();
    r.unterminated = n.unterminated();
    r.depth = n.depth();
  }
}

void decode_memory_events(const pb::Chunk& chunk, std::vector<recorded::MemoryEvent>& out) {
  size_like(out, chunk.memory_events());
  DeltaDecoder times(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::MemoryEvent& m : chunk.memory_events()) {
    recorded::MemoryEvent& r = out[i++];
    r.operation = as<MemoryOperation>(m.operation());
    r.device_id = m.device_id();
    r.context_id = m.context_id();
    r.stream_id = m.stream_id();
    r.correlation_id = m.correlation_id();
    r.time_ns = times.next(m.time_delta_ns());
    r.address = m.address();
    r.bytes = m.bytes();
    r.memory_kind = as<MemoryKind>(m.memory_kind());
    r.tid = m.tid();
  }
}

void decode_synchronizations(const pb::Chunk& chunk, std::vector<recorded::Synchronization>& out) {
  size_like(out, chunk.synchronizations());
  DeltaDecoder starts(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::Synchronization& s : chunk.synchronizations()) {
    recorded::Synchronization& r = out[i++];
    r.type = as<SyncType>(s.type());
    r.context_id = s.context_id();
    r.stream_id = s.stream_id();
    r.event = s.event();
    r.correlation_id = s.correlation_id();
    r.start_ns = starts.next(s.start_delta_ns());
    r.duration_ns = s.duration_ns();
    r.device_id = s.device_id();
  }
}

void decode_nvtx_marks(const pb::Chunk& chunk, std::vector<recorded::NvtxMark>& out) {
  size_like(out, chunk.nvtx_marks());
  DeltaDecoder times(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::NvtxMark& m : chunk.nvtx_marks()) {
    recorded::NvtxMark& r = out[i++];
    r.tid = m.tid();
    r.domain_id = m.domain_id();
    r.name_id = m.name_id();
    r.time_ns = times.next(m.time_delta_ns());
    r.color_argb = m.color_argb();
    r.category = m.category();
  }
}

void decode_overheads(const pb::Chunk& chunk, std::vector<recorded::Overhead>& out) {
  size_like(out, chunk.overheads());
  DeltaDecoder starts(chunk.time_base_ns());
  size_t i = 0;
  for (const pb::Overhead& o : chunk.overheads()) {
    recorded::Overhead& r = out[i++];
    r.kind_id = o.kind_id();
    r.tid = o.tid();
    r.device_id = o.device_id();
    r.start_ns = starts.next(o.start_delta_ns());
    r.duration_ns = o.duration_ns();
  }
}

void decode_definitions(const pb::Chunk& chunk, recorded::Chunk& out) {
  size_like(out.strings, chunk.strings());
  for (int i = 0; i < chunk.strings_size(); ++i) {
    out.strings[i].id = chunk.strings(i).id();
    out.strings[i].value = chunk.strings(i).value();
  }
  size_like(out.frames, chunk.frames());
  for (int i = 0; i < chunk.frames_size(); ++i) {
    const pb::Frame& f = chunk.frames(i);
    out.frames[i] = recorded::Frame{f.id(),          as<FrameKind>(f.kind()), f.address(), f.module_id(),
                                    f.function_name_id(), f.file_name_id(),   f.line()};
  }
  size_like(out.stacks, chunk.stacks());
  for (int i = 0; i < chunk.stacks_size(); ++i) {
    out.stacks[i].id = chunk.stacks(i).id();
    out.stacks[i].frame_ids.assign(chunk.stacks(i).frame_ids().begin(), chunk.stacks(i).frame_ids().end());
  }
  size_like(out.modules, chunk.modules());
  for (int i = 0; i < chunk.modules_size(); ++i) {
    const pb::Module& m = chunk.modules(i);
    recorded::Module& r = out.modules[i];
    r.id = m.id();
    r.path = m.path();
    r.load_address = m.load_address();
    r.size = m.size();
    r.build_id = m.build_id();
    r.bias = m.bias();
  }
  if (chunk.has_process()) {
    const pb::Process& p = chunk.process();
    recorded::Process& r = out.process.emplace();
    r.pid = p.pid();
    r.parent_pid = p.parent_pid();
    r.hostname = p.hostname();
    r.executable = p.executable();
    r.command_line.assign(p.command_line().begin(), p.command_line().end());
    r.rank = p.rank();
    r.world_size = p.world_size();
    if (p.has_clock_anchor())
      r.clock_anchor = recorded::ClockAnchor{p.clock_anchor().realtime_ns(), p.clock_anchor().monotonic_ns()};
    r.start_ns = p.start_ns();
    r.options.clear();
    for (const auto& [key, value] : p.options()) r.options.emplace(key, value);
  } else {
    out.process.reset();
  }
  size_like(out.threads, chunk.threads());
  for (int i = 0; i < chunk.threads_size(); ++i) {
    out.threads[i].tid = chunk.threads(i).tid();
    out.threads[i].name = chunk.threads(i).name();
  }
  size_like(out.devices, chunk.devices());
  for (int i = 0; i < chunk.devices_size(); ++i) {
    const pb::Device& d = chunk.devices(i);
    recorded::Device& r = out.devices[i];
    r.id = d.id();
    r.name = d.name();
    r.global_memory_bytes = d.global_memory_bytes();
    r.compute_major = d.compute_major();
    r.compute_minor = d.compute_minor();
    r.sm_count = d.sm_count();
    r.warp_size = d.warp_size();
    r.max_threads_per_block = d.max_threads_per_block();
    r.max_shared_memory_per_block = d.max_shared_memory_per_block();
    r.max_registers_per_block = d.max_registers_per_block();
    r.core_clock_khz = d.core_clock_khz();
    r.uuid = d.uuid();
    r.max_warps_per_multiprocessor = d.max_warps_per_multiprocessor();
    r.max_blocks_per_multiprocessor = d.max_blocks_per_multiprocessor();
    r.max_shared_memory_per_multiprocessor = d.max_shared_memory_per_multiprocessor();
    r.max_registers_per_multiprocessor = d.max_registers_per_multiprocessor();
    r.max_shared_memory_per_block_optin = d.max_shared_memory_per_block_optin();
  }
  size_like(out.contexts, chunk.contexts());
  for (int i = 0; i < chunk.contexts_size(); ++i) {
    const pb::Context& c = chunk.contexts(i);
    out.contexts[i] = recorded::Context{c.id(), c.device_id(), c.null_stream_id()};
  }
  if (chunk.has_window()) {
    const pb::Window& w = chunk.window();
    out.window = recorded::Window{w.index(), w.first_step(), w.last_step(), w.start_ns(), w.end_ns(),
                                  w.step_rule(), w.trigger(), w.partial(), w.gpu_records_missing()};
  } else {
    out.window.reset();
  }
  if (chunk.has_drops())
    out.drops = recorded::DropCounts{chunk.drops().ring_full(), chunk.drops().cupti_records(),
                                     chunk.drops().truncated_payloads()};
  else
    out.drops.reset();
  if (chunk.has_process_end())
    out.process_end = recorded::ProcessEnd{chunk.process_end().end_ns(),
                                           as<ProcessEndReason>(chunk.process_end().reason()),
                                           chunk.process_end().signal()};
  else
    out.process_end.reset();
}

}  // namespace

const std::string& schema_name(CopyKind kind) { return pb::CopyKind_Name(static_cast<pb::CopyKind>(kind)); }
const std::string& schema_name(MemoryKind kind) { return pb::MemoryKind_Name(static_cast<pb::MemoryKind>(kind)); }
const std::string& schema_name(SyncType type) {
  return pb::Synchronization::Type_Name(static_cast<pb::Synchronization::Type>(type));
}

void silence_protobuf_logging() { google::protobuf::SetLogHandler(nullptr); }

struct RecordDecoder::Wire {
  CaptureReader reader;
  pb::Chunk chunk;
};

RecordDecoder::RecordDecoder() : wire_(std::make_unique<Wire>()) {}
RecordDecoder::~RecordDecoder() = default;

bool RecordDecoder::open(const std::string& path) {
  if (!wire_->reader.open(path)) return false;
  const pb::Header& h = wire_->reader.header();
  header_ = recorded::FileHeader{h.format_major(), h.format_minor(), h.producer()};
  return true;
}

RecordDecoder::Next RecordDecoder::next(recorded::Chunk& chunk) {
  const pb::Chunk& in = wire_->chunk;
  switch (wire_->reader.next(wire_->chunk)) {
    case CaptureReader::Next::kError: return Next::kError;
    case CaptureReader::Next::kEnd: return Next::kEnd;
    case CaptureReader::Next::kChunk: break;
  }
  chunk.time_base_ns = in.time_base_ns();
  decode_api_calls(in, chunk.api_calls);
  decode_kernels(in, chunk.kernels);
  decode_memcpys(in, chunk.memcpys);
  decode_memsets(in, chunk.memsets);
  decode_nvtx_ranges(in, chunk.nvtx_ranges);
  decode_memory_events(in, chunk.memory_events);
  decode_synchronizations(in, chunk.synchronizations);
  decode_nvtx_marks(in, chunk.nvtx_marks);
  decode_overheads(in, chunk.overheads);
  decode_definitions(in, chunk);
  return Next::kChunk;
}

const std::string& RecordDecoder::path() const { return wire_->reader.path(); }
const ReadError& RecordDecoder::error() const { return wire_->reader.error(); }
uint64_t RecordDecoder::chunk_offset() const { return wire_->reader.chunk_offset(); }
uint64_t RecordDecoder::chunk_count() const { return wire_->reader.chunk_count(); }
const std::optional<ReadError>& RecordDecoder::truncated_tail() const { return wire_->reader.truncated_tail(); }

}  // namespace prof::analyzer
