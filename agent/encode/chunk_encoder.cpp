#include "encode/chunk_encoder.h"

#include "encode/proto_wire.h"

namespace prof {

std::string encode_file_preamble(std::string_view producer) {
  std::string out(kFileMagic, sizeof(kFileMagic));
  file::Header header;
  header.format_major = kFormatMajor;
  header.format_minor = kFormatMinor;
  header.producer = std::string(producer);
  std::string body;
  ProtoWriter h(body);
  file::write_fields(h, header);
  ProtoWriter(out).varint(body.size());
  out += body;
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

// Inlined into each add(), so that the writer's cursor stays in registers.
template <typename Message>
[[gnu::always_inline]] inline void ChunkEncoder::append(uint32_t field, const Message& message) {
  ProtoWriter(list_bytes(field)).add_message(field, [&](auto& w) { file::write_fields(w, message); });
}

template <typename Message>
void ChunkEncoder::replace(uint32_t field, const Message& message) {
  ByteBuffer& out = list_bytes(field);
  out.clear();
  append(field, message);
}

void ChunkEncoder::add(file::ApiCall& call, Span span, uint32_t correlation_id) {
  const CallDeltas deltas = next_call(call.tid, span, correlation_id);
  call.tid = deltas.tid;
  call.start_delta_ns = deltas.start_delta_ns;
  call.duration_ns = deltas.duration_ns;
  call.correlation_id_delta = deltas.correlation_id_delta;
  append(ChunkField::api_calls, call);
}

void ChunkEncoder::make_room(ByteBuffer& bytes, size_t n) { bytes.reserve(bytes.size() + n); }

void ChunkEncoder::add(file::Memcpy& copy, Span span) {
  copy.start_delta_ns = delta(ChunkField::memcpys, span.start_ns);
  copy.duration_ns = span.duration_ns();
  append(ChunkField::memcpys, copy);
}

void ChunkEncoder::add(file::Memset& set, Span span) {
  set.start_delta_ns = delta(ChunkField::memsets, span.start_ns);
  set.duration_ns = span.duration_ns();
  append(ChunkField::memsets, set);
}

void ChunkEncoder::add(file::NvtxRange& range, Span span) {
  range.start_delta_ns = delta(ChunkField::nvtx_ranges, span.start_ns);
  range.duration_ns = span.duration_ns();
  append(ChunkField::nvtx_ranges, range);
}

void ChunkEncoder::add(file::MemoryEvent& event, uint64_t time_ns) {
  event.time_delta_ns = delta(ChunkField::memory_events, time_ns);
  append(ChunkField::memory_events, event);
}

void ChunkEncoder::add(file::TensorMemoryEvent& event, uint64_t time_ns) {
  event.time_delta_ns = delta(ChunkField::tensor_memory_events, time_ns);
  append(ChunkField::tensor_memory_events, event);
}

void ChunkEncoder::add(file::Synchronization& sync, Span span) {
  sync.start_delta_ns = delta(ChunkField::synchronizations, span.start_ns);
  sync.duration_ns = span.duration_ns();
  append(ChunkField::synchronizations, sync);
}

void ChunkEncoder::add(file::NvtxMark& mark, uint64_t time_ns) {
  mark.time_delta_ns = delta(ChunkField::nvtx_marks, time_ns);
  append(ChunkField::nvtx_marks, mark);
}

void ChunkEncoder::add(file::Overhead& overhead, Span span) {
  overhead.start_delta_ns = delta(ChunkField::overheads, span.start_ns);
  overhead.duration_ns = span.duration_ns();
  append(ChunkField::overheads, overhead);
}

void ChunkEncoder::add_string(uint64_t id, std::string_view value) {
  // Not through file::InternedString: the value would be copied into it.
  ProtoWriter(list_bytes(ChunkField::strings)).add_message(ChunkField::strings, [&](auto& w) {
    w.add_uint(file::InternedString::Fields::id, id);
    w.add_bytes(file::InternedString::Fields::value, value);
  });
}

void ChunkEncoder::add(const file::Frame& frame) { append(ChunkField::frames, frame); }
void ChunkEncoder::add(const file::Stack& stack) { append(ChunkField::stacks, stack); }
void ChunkEncoder::add(const file::Module& module) { append(ChunkField::modules, module); }
void ChunkEncoder::set(const file::Process& process) { replace(ChunkField::process, process); }
void ChunkEncoder::add(const file::Thread& thread) { append(ChunkField::threads, thread); }
void ChunkEncoder::add(const file::Device& device) { append(ChunkField::devices, device); }
void ChunkEncoder::add(const file::Context& context) { append(ChunkField::contexts, context); }
void ChunkEncoder::set(const file::DropCounts& drops) { replace(ChunkField::drops, drops); }
void ChunkEncoder::set(const file::ProcessEnd& end) { replace(ChunkField::process_end, end); }
void ChunkEncoder::set(const file::Window& window) { replace(ChunkField::window, window); }

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

const ChunkEncoder::Pieces& ChunkEncoder::finish_in_pieces() {
  static_assert(Pieces::kMax == kFields + 1, "the framing, then every list");
  // The time base, then the lists, behind the length of both.
  std::string time_base;
  ProtoWriter(time_base).add_uint(ChunkField::time_base_ns, time_base_ns_);
  const size_t body_bytes = time_base.size() + pending_bytes();
  framing_.clear();
  ProtoWriter(framing_).varint(body_bytes);
  framing_ += time_base;
  pieces_.count = 0;
  pieces_.parts[pieces_.count++] = framing_;
  for (const List& list : lists_) {
    if (!list.bytes.empty()) pieces_.parts[pieces_.count++] = list.bytes.view();
  }
  pieces_.bytes = framing_.size() + pending_bytes();
  return pieces_;
}

const std::string& ChunkEncoder::finish() {
  // One copy of the pieces into a buffer kept from chunk to chunk. A fresh
  // 4 MiB string per chunk (or two, body then framing) costs a page fault
  // per 4 KiB page, more than the copy itself.
  const Pieces& pieces = finish_in_pieces();
  framed_.clear();
  framed_.reserve(pieces.bytes);
  for (size_t i = 0; i < pieces.count; ++i) framed_ += pieces.parts[i];
  begin(time_base_ns_);
  return framed_;
}

}  // namespace prof
