#pragma once
// Test-only writer of libprof capture files (proto/FORMAT.md framing), built
// on the generated classes. The agent has its own wire encoder; this one
// exists so analyzer and integration tests can make any file they need,
// including broken ones. Header-only; link target prof_capture_test_writer.
//
//   prof::testing::ChunkBuilder c(/*timeBaseNs=*/1000);
//   c.string(1, "forward").thread(7, "main");
//   c.range(7, /*nameId=*/1, /*startNs=*/1000, /*endNs=*/5000);
//   prof::testing::CaptureFileWriter file;
//   file.chunk(c.finish()).writeTo(path);
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

inline prof::proto::Header makeHeader(uint32_t major = 2, uint32_t minor = 0,
                                      std::string producer = "libprof test-writer") {
  prof::proto::Header header;
  header.set_format_major(major);
  header.set_format_minor(minor);
  header.set_producer(std::move(producer));
  return header;
}

class CaptureFileWriter {
 public:
  // Magic and header; pass writeHeader=false to start from nothing (for
  // files that are broken before the header).
  explicit CaptureFileWriter(const prof::proto::Header& header = makeHeader(), bool writeHeader = true) {
    if (writeHeader) bytes_ = std::string(kCaptureMagic) + framed(header);
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

  void writeTo(const std::string& path) const { writeFile(path, bytes_); }

  static void writeFile(const std::string& path, const std::string& bytes) {
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
  explicit ChunkBuilder(uint64_t timeBaseNs = 0) { chunk_.set_time_base_ns(timeBaseNs); }

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
  prof::proto::Process& process(uint32_t pid, uint64_t startNs) {
    auto* p = chunk_.mutable_process();
    p->set_pid(pid);
    p->set_start_ns(startNs);
    p->set_rank(-1);
    return *p;
  }
  ChunkBuilder& processEnd(uint64_t endNs, prof::proto::ProcessEnd::Reason reason = prof::proto::ProcessEnd::EXIT) {
    chunk_.mutable_process_end()->set_end_ns(endNs);
    chunk_.mutable_process_end()->set_reason(reason);
    return *this;
  }
  ChunkBuilder& drops(uint64_t ringFull, uint64_t cuptiRecords, uint64_t truncatedPayloads) {
    auto* d = chunk_.mutable_drops();
    d->set_ring_full(ringFull);
    d->set_cupti_records(cuptiRecords);
    d->set_truncated_payloads(truncatedPayloads);
    return *this;
  }

  // --- records (times absolute, in ns)
  prof::proto::NvtxRange& range(uint32_t tid, uint64_t nameId, uint64_t startNs, uint64_t endNs,
                                prof::proto::NvtxRange::Style style = prof::proto::NvtxRange::PUSH_POP,
                                uint64_t domainId = 0) {
    auto* r = chunk_.add_nvtx_ranges();
    r->set_tid(tid);
    r->set_end_tid(tid);
    r->set_name_id(nameId);
    r->set_domain_id(domainId);
    r->set_style(style);
    r->set_duration_ns(endNs - startNs);
    rangeStarts_.push_back(startNs);
    return *r;
  }
  prof::proto::ApiCall& apiCall(uint32_t tid, uint64_t nameId, uint64_t startNs, uint64_t endNs,
                                uint32_t correlationId = 0) {
    auto* a = chunk_.add_api_calls();
    a->set_tid(tid);
    a->set_domain(prof::proto::RUNTIME);
    a->set_name_id(nameId);
    a->set_duration_ns(endNs - startNs);
    apiStarts_.push_back(startNs);
    apiCorrelations_.push_back(correlationId);
    return *a;
  }
  prof::proto::Kernel& kernel(uint64_t nameId, uint64_t startNs, uint64_t endNs, uint32_t correlationId = 0) {
    auto* k = chunk_.add_kernels();
    k->set_name_id(nameId);
    k->set_duration_ns(endNs - startNs);
    k->set_correlation_id(correlationId);
    k->set_stream_id(7);
    kernelStarts_.push_back(startNs);
    return *k;
  }
  prof::proto::Memcpy& memcpy(uint64_t startNs, uint64_t endNs, uint64_t bytes, uint32_t correlationId = 0) {
    auto* c = chunk_.add_memcpys();
    c->set_duration_ns(endNs - startNs);
    c->set_bytes(bytes);
    c->set_kind(prof::proto::HOST_TO_DEVICE);
    c->set_src_kind(prof::proto::PAGEABLE);
    c->set_dst_kind(prof::proto::DEVICE);
    c->set_correlation_id(correlationId);
    memcpyStarts_.push_back(startNs);
    return *c;
  }
  prof::proto::Memset& memset(uint64_t startNs, uint64_t endNs, uint64_t bytes, uint32_t correlationId = 0) {
    auto* s = chunk_.add_memsets();
    s->set_duration_ns(endNs - startNs);
    s->set_bytes(bytes);
    s->set_memory_kind(prof::proto::DEVICE);
    s->set_correlation_id(correlationId);
    memsetStarts_.push_back(startNs);
    return *s;
  }
  prof::proto::MemoryEvent& memoryEvent(uint64_t timeNs, uint64_t bytes) {
    auto* m = chunk_.add_memory_events();
    m->set_operation(prof::proto::MemoryEvent::ALLOCATION);
    m->set_bytes(bytes);
    memoryTimes_.push_back(timeNs);
    return *m;
  }
  prof::proto::Synchronization& synchronization(uint64_t startNs, uint64_t endNs) {
    auto* s = chunk_.add_synchronizations();
    s->set_type(prof::proto::Synchronization::STREAM_SYNCHRONIZE);
    s->set_duration_ns(endNs - startNs);
    syncStarts_.push_back(startNs);
    return *s;
  }
  prof::proto::NvtxMark& mark(uint32_t tid, uint64_t nameId, uint64_t timeNs) {
    auto* m = chunk_.add_nvtx_marks();
    m->set_tid(tid);
    m->set_name_id(nameId);
    markTimes_.push_back(timeNs);
    return *m;
  }
  prof::proto::Overhead& overhead(uint64_t kindId, uint64_t startNs, uint64_t endNs) {
    auto* o = chunk_.add_overheads();
    o->set_kind_id(kindId);
    o->set_duration_ns(endNs - startNs);
    overheadStarts_.push_back(startNs);
    return *o;
  }

  // Anything else (frames, stacks, modules, devices): edit directly.
  prof::proto::Chunk& raw() { return chunk_; }

  // A copy with every start/time field delta-encoded, and ApiCall's
  // correlation ids too (FORMAT.md, "Compact fields"; tids stay explicit).
  prof::proto::Chunk finish() const {
    prof::proto::Chunk out = chunk_;
    const uint64_t base = out.time_base_ns();
    encode(out.mutable_nvtx_ranges(), rangeStarts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_api_calls(), apiStarts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_api_calls(), apiCorrelations_, 0, [](auto& r, int64_t d) { r.set_correlation_id_delta(d); });
    encode(out.mutable_kernels(), kernelStarts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_memcpys(), memcpyStarts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_memsets(), memsetStarts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_memory_events(), memoryTimes_, base, [](auto& r, int64_t d) { r.set_time_delta_ns(d); });
    encode(out.mutable_synchronizations(), syncStarts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
    encode(out.mutable_nvtx_marks(), markTimes_, base, [](auto& r, int64_t d) { r.set_time_delta_ns(d); });
    encode(out.mutable_overheads(), overheadStarts_, base, [](auto& r, int64_t d) { r.set_start_delta_ns(d); });
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
  std::vector<uint64_t> rangeStarts_, apiStarts_, apiCorrelations_, kernelStarts_, memcpyStarts_, memsetStarts_, memoryTimes_,
      syncStarts_, markTimes_, overheadStarts_;
};

}  // namespace prof::testing
