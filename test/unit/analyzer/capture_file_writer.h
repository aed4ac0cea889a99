#pragma once
// Test-only writer of libprof capture files (proto/FORMAT.md framing), built
// on the generated classes. The agent has its own wire encoder; this one
// exists so analyzer and integration tests can make any file they need,
// including broken ones. Header-only; link target prof_capture_test_writer.
//
//   prof::testing::ChunkBuilder c(/*time_base_ns=*/1000);
//   c.string(1, "forward").thread(7, "main");
//   c.range(7, /*name_id=*/1, /*start_ns=*/1000, /*end_ns=*/5000);
//   prof::testing::CaptureFileWriter file;
//   file.chunk(c.finish()).write_to(path);
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "proto/prof.pb.h"

namespace prof::testing {

inline constexpr std::string_view kCaptureMagic{"\x89PROF\r\n\x1a", 8};

// Protobuf base-128 varint.
inline std::string varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

// varint length + serialized message.
inline std::string framed(const google::protobuf::MessageLite& message) {
  std::string body = message.SerializeAsString();
  return varint(body.size()) + body;
}

inline prof::proto::Header make_header(uint32_t major = 2, uint32_t minor = 0,
                                      std::string producer = "libprof test-writer") {
  prof::proto::Header header;
  header.set_format_major(major);
  header.set_format_minor(minor);
  header.set_producer(std::move(producer));
  return header;
}

class CaptureFileWriter {
 public:
  // Magic and header; pass write_header=false to start from nothing (for
  // files that are broken before the header).
  explicit CaptureFileWriter(const prof::proto::Header& header = make_header(), bool write_header = true) {
    if (write_header) bytes_ = std::string(kCaptureMagic) + framed(header);
  }

  CaptureFileWriter& chunk(const prof::proto::Chunk& chunk) {
    bytes_ += framed(chunk);
    return *this;
  }
  // Appends bytes verbatim: corrupt lengths, cut chunks, garbage.
  CaptureFileWriter& raw(std::string_view bytes) {
    bytes_ += bytes;
    return *this;
  }

  const std::string& bytes() const { return bytes_; }
  size_t size() const { return bytes_.size(); }

  void write_to(const std::string& path) const { write_file(path, bytes_); }

  static void write_file(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
  }

 private:
  std::string bytes_;
};

// Builds a Chunk from absolute times. finish() delta-encodes every record
// list the way FORMAT.md says (first record relative to time_base_ns, each
// later one to the previous record of its list), so tests state times
// plainly and still exercise the decoder.
class ChunkBuilder {
 public:
  explicit ChunkBuilder(uint64_t time_base_ns = 0) { chunk_.set_time_base_ns(time_base_ns); }

  // --- definitions
  ChunkBuilder& string(uint64_t id, std::string value) {
    auto* s = chunk_.add_strings();
    s->set_id(id);
    s->set_value(std::move(value));
    return *this;
  }
  ChunkBuilder& thread(uint32_t tid, std::string name) {
    auto* t = chunk_.add_threads();
    t->set_tid(tid);
    t->set_name(std::move(name));
    return *this;
  }
  prof::proto::Process& process(uint32_t pid, uint64_t start_ns) {
    auto* p = chunk_.mutable_process();
    p->set_pid(pid);
    p->set_start_ns(start_ns);
    p->set_rank(-1);
    return *p;
  }
  ChunkBuilder& process_end(uint64_t end_ns, prof::proto::ProcessEnd::Reason reason = prof::proto::ProcessEnd::EXIT) {
    chunk_.mutable_process_end()->set_end_ns(end_ns);
    chunk_.mutable_process_end()->set_reason(reason);
    return *this;
  }
  ChunkBuilder& drops(uint64_t ring_full, uint64_t cupti_records, uint64_t truncated_payloads) {
    auto* d = chunk_.mutable_drops();
    d->set_ring_full(ring_full);
    d->set_cupti_records(cupti_records);
    d->set_truncated_payloads(truncated_payloads);
    return *this;
  }

  // --- records (times absolute, in ns)
  prof::proto::NvtxRange& range(uint32_t tid, uint64_t name_id, uint64_t start_ns, uint64_t end_ns,
                                prof::proto::NvtxRange::Style style = prof::proto::NvtxRange::PUSH_POP,
                                uint64_t domain_id = 0) {
    auto* r = chunk_.add_nvtx_ranges();
    r->set_tid(tid);
    r->set_end_tid(tid);
    r->set_name_id(name_id);
    r->set_domain_id(domain_id);
    r->set_style(style);
    r->set_duration_ns(end_ns - start_ns);
    range_starts_.push_back(start_ns);
    return *r;
  }
  prof::proto::ApiCall& api_call(uint32_t tid, uint64_t name_id, uint64_t start_ns, uint64_t end_ns,
                                uint32_t correlation_id = 0) {
    auto* a = chunk_.add_api_calls();
    a->set_tid(tid);
    a->set_domain(prof::proto::RUNTIME);
    a->set_name_id(name_id);
    a->set_duration_ns(end_ns - start_ns);
    api_starts_.push_back(start_ns);
    api_correlations_.push_back(correlation_id);
    return *a;
  }
  prof::proto::Kernel& kernel(uint64_t name_id, uint64_t start_ns, uint64_t end_ns, uint32_t correlation_id = 0) {
    auto* k = chunk_.add_kernels();
    k->set_name_id(name_id);
    k->set_duration_ns(end_ns - start_ns);
    k->set_correlation_id(correlation_id);
    k->set_stream_id(7);
    kernel_starts_.push_back(start_ns);
    return *k;
  }
  prof::proto::Memcpy& memcpy(uint64_t start_ns, uint64_t end_ns, uint64_t bytes, uint32_t correlation_id = 0) {
    auto* c = chunk_.add_memcpys();
    c->set_duration_ns(end_ns - start_ns);
    c->set_bytes(bytes);
    c->set_kind(prof::proto::HOST_TO_DEVICE);
    c->set_src_kind(prof::proto::PAGEABLE);
    c->set_dst_kind(prof::proto::DEVICE);
    c->set_correlation_id(correlation_id);
    memcpy_starts_.push_back(start_ns);
    return *c;
  }
  prof::proto::Memset& memset(uint64_t start_ns, uint64_t end_ns, uint64_t bytes, uint32_t correlation_id = 0) {
    auto* s = chunk_.add_memsets();
    s->set_duration_ns(end_ns - start_ns);
    s->set_bytes(bytes);
    s->set_memory_kind(prof::proto::DEVICE);
    s->set_correlation_id(correlation_id);
    memset_starts_.push_back(start_ns);
    return *s;
  }
  prof::proto::MemoryEvent& memory_event(uint64_t time_ns, uint64_t bytes) {
    auto* m = chunk_.add_memory_events();
    m->set_operation(prof::proto::MemoryEvent::ALLOCATION);
    m->set_bytes(bytes);
    memory_times_.push_back(time_ns);
    return *m;
  }
  // A caching allocator block handed out (bytes > 0) or taken back (bytes < 0).
  prof::proto::TensorMemoryEvent& tensor_memory(uint64_t time_ns, int64_t bytes, int32_t device = 0) {
    auto* m = chunk_.add_tensor_memory_events();
    m->set_action(bytes >= 0 ? prof::proto::TensorMemoryEvent::ALLOC : prof::proto::TensorMemoryEvent::FREE);
    m->set_bytes(static_cast<uint64_t>(bytes >= 0 ? bytes : -bytes));
    m->set_device(device);
    tensor_memory_times_.push_back(time_ns);
    return *m;
  }
  prof::proto::Synchronization& synchronization(uint64_t start_ns, uint64_t end_ns) {
    auto* s = chunk_.add_synchronizations();
    s->set_type(prof::proto::Synchronization::STREAM_SYNCHRONIZE);
    s->set_duration_ns(end_ns - start_ns);
    sync_starts_.push_back(start_ns);
    return *s;
  }
  prof::proto::NvtxMark& mark(uint32_t tid, uint64_t name_id, uint64_t time_ns) {
    auto* m = chunk_.add_nvtx_marks();
    m->set_tid(tid);
    m->set_name_id(name_id);
    mark_times_.push_back(time_ns);
    return *m;
  }
  prof::proto::Overhead& overhead(uint64_t kind_id, uint64_t start_ns, uint64_t end_ns) {
    auto* o = chunk_.add_overheads();
    o->set_kind_id(kind_id);
    o->set_duration_ns(end_ns - start_ns);
    overhead_starts_.push_back(start_ns);
    return *o;
  }

  // Anything else (frames, stacks, modules, devices): edit directly.
  prof::proto::Chunk& raw() { return chunk_; }

  // A copy with every start/time field delta-encoded, and ApiCall's
  // correlation ids too (FORMAT.md, "Compact fields"; tids stay explicit).
  prof::proto::Chunk finish() const {
    prof::proto::Chunk out = chunk_;
    const uint64_t base = out.time_base_ns();
    encode(out.mutable_nvtx_ranges(), range_starts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_api_calls(), api_starts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_api_calls(), api_correlations_, 0, [](auto& r, int64_t d) { r.set_correlation_id_delta(d); });
    encode(out.mutable_kernels(), kernel_starts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_memcpys(), memcpy_starts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_memsets(), memset_starts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_memory_events(), memory_times_, base, [](auto& r, int64_t d) { r.set_time_delta_ns(d); });
    encode(out.mutable_tensor_memory_events(), tensor_memory_times_, base, [](auto& r, int64_t d) { r.set_time_delta_ns(d); });
    encode(out.mutable_synchronizations(), sync_starts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_nvtx_marks(), mark_times_, base, [](auto& r, int64_t d) { r.set_time_delta_ns(d); });
    encode(out.mutable_overheads(), overhead_starts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    return out;
  }

 private:
  template <class List, class Set>
  static void encode(List* list, const std::vector<uint64_t>& starts, uint64_t base, Set set) {
    uint64_t previous = base;
    for (int i = 0; i < list->size(); ++i) {
      const uint64_t start = starts[static_cast<size_t>(i)];
      set(*list->Mutable(i), static_cast<int64_t>(start - previous));
      previous = start;
    }
  }

  prof::proto::Chunk chunk_;
  std::vector<uint64_t> range_starts_, api_starts_, api_correlations_, kernel_starts_, memcpy_starts_, memset_starts_, memory_times_,
      sync_starts_, mark_times_, overhead_starts_, tensor_memory_times_;
};

}  // namespace prof::testing
