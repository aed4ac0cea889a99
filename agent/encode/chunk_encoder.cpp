#include "encode/chunk_encoder.h"

#include "encode/proto_wire.h"

namespace prof {
namespace {

// Field numbers of message Chunk (proto/prof.proto).
enum ChunkField : uint32_t {
  kTimeBase = 1,
  kApiCalls = 2,
  kKernels = 3,
  kMemcpys = 4,
  kMemsets = 5,
  kNvtxRanges = 6,
  kMemoryEvents = 7,
  kSynchronizations = 8,
  kNvtxMarks = 9,
  kOverheads = 10,
  kStrings = 16,
  kFrames = 17,
  kStacks = 18,
  kModules = 19,
  kProcess = 20,
  kThreads = 21,
  kDevices = 22,
  kContexts = 23,
  kDrops = 24,
  kProcessEnd = 25,
};

uint64_t duration(uint64_t start_ns, uint64_t end_ns) {
  return end_ns > start_ns ? end_ns - start_ns : 0;
}

// Launch dimensions are stored minus one (proto/prof.proto, LaunchArgs).
// Both helpers are inlined, so that the writer's cursor stays in registers.
[[gnu::always_inline]] inline void add_dims(ProtoWriter<ByteBuffer>& w, uint32_t first_field,
                                            const uint32_t (&grid)[3], const uint32_t (&block)[3]) {
  for (uint32_t i = 0; i < 3; ++i) w.add_uint(first_field + i, grid[i] - 1u);
  for (uint32_t i = 0; i < 3; ++i) w.add_uint(first_field + 3 + i, block[i] - 1u);
}

[[gnu::always_inline]] inline void add_place(ProtoWriter<ByteBuffer>& w, const GpuPlace& place, uint32_t device,
                                             uint32_t context, uint32_t stream, uint32_t correlation) {
  w.add_uint(device, place.device_id);
  w.add_uint(context, place.context_id);
  w.add_uint(stream, place.stream_id);
  w.add_uint(correlation, place.correlation_id);
}

}  // namespace

std::string encode_file_preamble(std::string_view producer) {
  std::string out(kFileMagic, sizeof(kFileMagic));
  ProtoWriter w(out);
  std::string header;
  ProtoWriter h(header);
  h.add_uint(1, kFormatMajor);
  h.add_uint(2, kFormatMinor);
  h.add_bytes(3, producer);
  w.varint(header.size());
  out += header;
  return out;
}

void ChunkEncoder::begin(uint64_t time_base_ns) {
  time_base_ns_ = time_base_ns;
  for (List& list : lists_) {
    list.bytes.clear();
    list.previous_time_ns = time_base_ns;
  }
  previous_call_tid_ = 0;
  previous_call_correlation_ = 0;
}

int64_t ChunkEncoder::delta(uint32_t field, uint64_t time_ns) {
  List& list = lists_[field];
  const int64_t d = static_cast<int64_t>(time_ns - list.previous_time_ns);
  list.previous_time_ns = time_ns;
  return d;
}

void ChunkEncoder::add(const ApiCall& call) {
  const int64_t start_delta = delta(kApiCalls, call.start_ns);
  const uint32_t tid = call.tid == previous_call_tid_ ? 0 : call.tid;
  const int64_t correlation_delta =
      static_cast<int64_t>(call.correlation_id) - static_cast<int64_t>(previous_call_correlation_);
  previous_call_tid_ = call.tid;
  previous_call_correlation_ = call.correlation_id;
  ProtoWriter(list_bytes(kApiCalls)).add_message(kApiCalls, [&](auto& w) {
    w.add_uint(1, tid);
    w.add_uint(2, static_cast<uint32_t>(call.domain));
    w.add_uint(3, call.callback_id);
    w.add_uint(4, call.name_id);
    w.add_sint(5, start_delta);
    w.add_uint(6, duration(call.start_ns, call.end_ns));
    w.add_sint(7, correlation_delta);
    w.add_int(8, call.return_code);
    w.add_uint(9, call.stack_id);
    if (call.has_launch) {
      const LaunchArgs& l = call.launch;
      w.add_message(10, [&](auto& m) {
        m.add_uint(1, l.kernel_name_id);
        add_dims(m, 2, l.grid, l.block);
        m.add_uint(8, l.dynamic_shared_bytes);
        m.add_uint(9, l.stream);
      });
    }
    if (call.has_transfer) {
      const TransferArgs& t = call.transfer;
      w.add_message(11, [&](auto& m) {
        m.add_uint(1, t.bytes);
        m.add_uint(2, static_cast<uint32_t>(t.kind));
        m.add_uint(3, t.stream);
        m.add_bool(4, t.is_memset);
      });
    }
    w.add_uint(12, call.external_correlation_id);
  });
}

void ChunkEncoder::add(const Kernel& k) {
  const int64_t start_delta = delta(kKernels, k.start_ns);
  ProtoWriter(list_bytes(kKernels)).add_message(kKernels, [&](auto& w) {
    add_place(w, k.place, 1, 2, 3, 4);
    w.add_uint(5, k.name_id);
    w.add_sint(6, start_delta);
    w.add_uint(7, duration(k.start_ns, k.end_ns));
    add_dims(w, 8, k.grid, k.block);
    w.add_uint(14, k.registers_per_thread);
    w.add_uint(15, k.static_shared_bytes);
    w.add_uint(16, k.dynamic_shared_bytes);
    w.add_uint(17, k.local_memory_per_thread);
    w.add_uint(18, k.graph_id);
    w.add_uint(19, k.graph_node_id);
  });
}

void ChunkEncoder::add(const Memcpy& c) {
  const int64_t start_delta = delta(kMemcpys, c.start_ns);
  ProtoWriter(list_bytes(kMemcpys)).add_message(kMemcpys, [&](auto& w) {
    add_place(w, c.place, 1, 2, 3, 4);
    w.add_sint(5, start_delta);
    w.add_uint(6, duration(c.start_ns, c.end_ns));
    w.add_uint(7, c.bytes);
    w.add_uint(8, static_cast<uint32_t>(c.kind));
    w.add_uint(9, static_cast<uint32_t>(c.src_kind));
    w.add_uint(10, static_cast<uint32_t>(c.dst_kind));
    w.add_uint(11, c.src_device_id);
    w.add_uint(12, c.dst_device_id);
    w.add_bool(13, c.is_async);
    w.add_uint(14, c.graph_id);
  });
}

void ChunkEncoder::add(const Memset& s) {
  const int64_t start_delta = delta(kMemsets, s.start_ns);
  ProtoWriter(list_bytes(kMemsets)).add_message(kMemsets, [&](auto& w) {
    add_place(w, s.place, 1, 2, 3, 4);
    w.add_sint(5, start_delta);
    w.add_uint(6, duration(s.start_ns, s.end_ns));
    w.add_uint(7, s.bytes);
    w.add_uint(8, s.value);
    w.add_uint(9, static_cast<uint32_t>(s.memory_kind));
    w.add_uint(10, s.graph_id);
  });
}

void ChunkEncoder::add(const NvtxRange& r) {
  const int64_t start_delta = delta(kNvtxRanges, r.start_ns);
  ProtoWriter(list_bytes(kNvtxRanges)).add_message(kNvtxRanges, [&](auto& w) {
    w.add_uint(1, r.tid);
    w.add_uint(2, r.end_tid);
    w.add_uint(3, r.domain_id);
    w.add_uint(4, r.name_id);
    w.add_sint(5, start_delta);
    w.add_uint(6, duration(r.start_ns, r.end_ns));
    w.add_uint(7, static_cast<uint32_t>(r.style));
    w.add_uint(8, r.color_argb);
    w.add_uint(9, r.category);
    w.add_bool(10, r.unterminated);
    w.add_uint(11, r.depth);
  });
}

void ChunkEncoder::add(const MemoryEvent& e) {
  const int64_t time_delta = delta(kMemoryEvents, e.time_ns);
  ProtoWriter(list_bytes(kMemoryEvents)).add_message(kMemoryEvents, [&](auto& w) {
    w.add_uint(1, static_cast<uint32_t>(e.operation));
    add_place(w, e.place, 2, 3, 4, 5);
    w.add_sint(6, time_delta);
    w.add_uint(7, e.address);
    w.add_uint(8, e.bytes);
    w.add_uint(9, static_cast<uint32_t>(e.memory_kind));
    w.add_uint(10, e.tid);
  });
}

void ChunkEncoder::add(const Synchronization& s) {
  const int64_t start_delta = delta(kSynchronizations, s.start_ns);
  ProtoWriter(list_bytes(kSynchronizations)).add_message(kSynchronizations, [&](auto& w) {
    w.add_uint(1, static_cast<uint32_t>(s.type));
    w.add_uint(2, s.place.context_id);
    w.add_uint(3, s.place.stream_id);
    w.add_uint(4, s.event);
    w.add_uint(5, s.place.correlation_id);
    w.add_sint(6, start_delta);
    w.add_uint(7, duration(s.start_ns, s.end_ns));
    w.add_uint(8, s.place.device_id);
  });
}

void ChunkEncoder::add(const NvtxMark& m) {
  const int64_t time_delta = delta(kNvtxMarks, m.time_ns);
  ProtoWriter(list_bytes(kNvtxMarks)).add_message(kNvtxMarks, [&](auto& w) {
    w.add_uint(1, m.tid);
    w.add_uint(2, m.domain_id);
    w.add_uint(3, m.name_id);
    w.add_sint(4, time_delta);
    w.add_uint(5, m.color_argb);
    w.add_uint(6, m.category);
  });
}

void ChunkEncoder::add(const Overhead& o) {
  const int64_t start_delta = delta(kOverheads, o.start_ns);
  ProtoWriter(list_bytes(kOverheads)).add_message(kOverheads, [&](auto& w) {
    w.add_uint(1, o.kind_id);
    w.add_uint(2, o.tid);
    w.add_uint(3, o.device_id);
    w.add_sint(4, start_delta);
    w.add_uint(5, duration(o.start_ns, o.end_ns));
  });
}

void ChunkEncoder::add_string(uint64_t id, std::string_view value) {
  ProtoWriter(list_bytes(kStrings)).add_message(kStrings, [&](auto& w) {
    w.add_uint(1, id);
    w.add_bytes(2, value);
  });
}

void ChunkEncoder::add(const FrameInfo& f) {
  ProtoWriter(list_bytes(kFrames)).add_message(kFrames, [&](auto& w) {
    w.add_uint(1, f.id);
    w.add_uint(2, static_cast<uint32_t>(f.kind));
    w.add_uint(3, f.address);
    w.add_uint(4, f.module_id);
    w.add_uint(5, f.function_name_id);
    w.add_uint(6, f.file_name_id);
    w.add_uint(7, f.line);
  });
}

void ChunkEncoder::add(const StackInfo& s) {
  ProtoWriter(list_bytes(kStacks)).add_message(kStacks, [&](auto& w) {
    w.add_uint(1, s.id);
    w.add_packed_uints(2, s.frame_ids);
  });
}

void ChunkEncoder::add(const ModuleInfo& m) {
  ProtoWriter(list_bytes(kModules)).add_message(kModules, [&](auto& w) {
    w.add_uint(1, m.id);
    w.add_bytes(2, m.path);
    w.add_uint(3, m.load_address);
    w.add_uint(4, m.size);
    w.add_bytes(5, m.build_id);
    w.add_uint(6, m.bias);
  });
}

void ChunkEncoder::set(const ProcessInfo& p) {
  ByteBuffer& out = list_bytes(kProcess);
  out.clear();
  ProtoWriter(out).add_message(kProcess, [&](auto& w) {
    w.add_uint(1, p.pid);
    w.add_uint(2, p.parent_pid);
    w.add_bytes(3, p.hostname);
    w.add_bytes(4, p.executable);
    // Repeated strings keep empty elements: an empty argument is an argument.
    for (const std::string& arg : p.command_line) w.add_repeated_bytes(5, arg);
    w.add_sint(6, p.rank);
    w.add_sint(7, p.world_size);
    w.add_message(8, [&](auto& a) {
      a.add_uint(1, p.clock_anchor.realtime_ns);
      a.add_uint(2, p.clock_anchor.monotonic_ns);
    });
    w.add_uint(9, p.start_ns);
    for (const auto& option : p.options) {
      w.add_message(10, [&](auto& entry) {
        entry.add_bytes(1, option.first);
        entry.add_bytes(2, option.second);
      });
    }
  });
}

void ChunkEncoder::add(const ThreadInfo& t) {
  ProtoWriter(list_bytes(kThreads)).add_message(kThreads, [&](auto& w) {
    w.add_uint(1, t.tid);
    w.add_bytes(2, t.name);
  });
}

void ChunkEncoder::add(const DeviceInfo& d) {
  ProtoWriter(list_bytes(kDevices)).add_message(kDevices, [&](auto& w) {
    w.add_uint(1, d.id);
    w.add_bytes(2, d.name);
    w.add_uint(3, d.global_memory_bytes);
    w.add_uint(4, d.compute_major);
    w.add_uint(5, d.compute_minor);
    w.add_uint(6, d.sm_count);
    w.add_uint(7, d.warp_size);
    w.add_uint(8, d.max_threads_per_block);
    w.add_uint(9, d.max_shared_memory_per_block);
    w.add_uint(10, d.max_registers_per_block);
    w.add_uint(11, d.core_clock_khz);
    w.add_bytes(12, d.uuid);
  });
}

void ChunkEncoder::add(const ContextInfo& c) {
  ProtoWriter(list_bytes(kContexts)).add_message(kContexts, [&](auto& w) {
    w.add_uint(1, c.id);
    w.add_uint(2, c.device_id);
    w.add_uint(3, c.null_stream_id);
  });
}

void ChunkEncoder::set(const DropCounts& d) {
  ByteBuffer& out = list_bytes(kDrops);
  out.clear();
  ProtoWriter(out).add_message(kDrops, [&](auto& w) {
    w.add_uint(1, d.ring_full);
    w.add_uint(2, d.cupti_records);
    w.add_uint(3, d.truncated_payloads);
  });
}

void ChunkEncoder::set(const ProcessEnd& e) {
  ByteBuffer& out = list_bytes(kProcessEnd);
  out.clear();
  ProtoWriter(out).add_message(kProcessEnd, [&](auto& w) {
    w.add_uint(1, e.end_ns);
    w.add_uint(2, static_cast<uint32_t>(e.reason));
    w.add_int(3, e.signal);
  });
}

bool ChunkEncoder::empty() const {
  for (const List& list : lists_) {
    if (!list.bytes.empty()) return false;
  }
  return true;
}

size_t ChunkEncoder::pending_bytes() const {
  size_t total = 0;
  for (const List& list : lists_) total += list.bytes.size();
  return total;
}

const std::string& ChunkEncoder::finish() {
  // The time base, then the lists, behind the length of both: one copy of
  // the lists into a buffer kept from chunk to chunk. A fresh 4 MiB string
  // per chunk (or two, body then framing) costs the writer a page fault per
  // 4 KiB page, more than the copy itself.
  std::string time_base;
  ProtoWriter(time_base).add_uint(kTimeBase, time_base_ns_);
  const size_t body_bytes = time_base.size() + pending_bytes();
  framed_.clear();
  framed_.reserve(body_bytes + 10);
  ProtoWriter(framed_).varint(body_bytes);
  framed_ += time_base;
  for (const List& list : lists_) framed_ += list.bytes.view();
  begin(time_base_ns_);
  return framed_;
}

}  // namespace prof
