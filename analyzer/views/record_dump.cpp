#include "views/record_dump.h"

#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "io/end_of.h"
#include "io/intern_tables.h"
#include "io/record_decoder.h"
#include "views/text_escape.h"

namespace prof::analyzer {
namespace {

void write_json_string(std::ostream& out, std::string_view text) { out << json_string(text); }

// One JSON object, fields appended in order.
class JsonLine {
 public:
  JsonLine(std::ostream& out, std::string_view type) : out_(out) {
    out_ << "{\"type\":";
    write_json_string(out_, type);
  }
  ~JsonLine() { out_ << "}\n"; }
  JsonLine& number(std::string_view key, uint64_t value) {
    this->key(key);
    out_ << value;
    return *this;
  }
  JsonLine& signed_number(std::string_view key, int64_t value) {
    this->key(key);
    out_ << value;
    return *this;
  }
  JsonLine& text(std::string_view key, std::string_view value) {
    this->key(key);
    write_json_string(out_, value);
    return *this;
  }
  JsonLine& texts(std::string_view key, const std::vector<std::string>& values) {
    this->key(key);
    out_ << '[';
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out_ << ',';
      write_json_string(out_, values[i]);
    }
    out_ << ']';
    return *this;
  }
  JsonLine& text_map(std::string_view key, const std::map<std::string, std::string>& values) {
    this->key(key);
    out_ << '{';
    bool first = true;
    for (const auto& [name, value] : values) {
      if (!first) out_ << ',';
      first = false;
      write_json_string(out_, name);
      out_ << ':';
      write_json_string(out_, value);
    }
    out_ << '}';
    return *this;
  }
  JsonLine& triple(std::string_view key, Dim3 d) {
    this->key(key);
    out_ << '[' << d.x << ',' << d.y << ',' << d.z << ']';
    return *this;
  }

 private:
  void key(std::string_view name) {
    out_ << ',';
    write_json_string(out_, name);
    out_ << ':';
  }
  std::ostream& out_;
};

class ChunkDumper {
 public:
  ChunkDumper(const InternTables& tables, std::ostream& out) : tables_(tables), out_(out) {}

  void dump(const recorded::Chunk& chunk) {
    if (chunk.process) {
      const recorded::Process& p = *chunk.process;
      JsonLine line(out_, "process");
      line.number("pid", p.pid)
          .number("parent_pid", p.parent_pid)
          .text("hostname", p.hostname)
          .text("executable", p.executable)
          .texts("command_line", p.command_line)
          .signed_number("rank", p.rank)
          .signed_number("world_size", p.world_size)
          .number("start", p.start_ns);
      if (p.clock_anchor) {
        line.number("anchor_realtime", p.clock_anchor->realtime_ns)
            .number("anchor_monotonic", p.clock_anchor->monotonic_ns);
      }
      line.text_map("options", p.options);
    }
    for (const recorded::ApiCall& call : chunk.api_calls) {
      JsonLine line(out_, "api");
      line.number("tid", call.tid)
          .text("domain", call.domain == ApiDomain::kDriver ? "driver" : "runtime")
          .number("cbid", call.callback_id)
          .text("name", string(call.name_id))
          .number("start", call.start_ns)
          .number("end", end_of(call.start_ns, call.duration_ns))
          .number("corr", call.correlation_id)
          .signed_number("ret", call.return_code)
          .number("stack", call.stack_id)
          .text("backend", call.backend == CaptureBackend::kHooks ? "hooks" : "cupti");
      if (call.launch) {
        const recorded::LaunchArgs& l = *call.launch;
        line.text("kernel", string(l.kernel_name_id))
            .triple("grid", l.grid)
            .triple("block", l.block)
            .number("shared", l.dynamic_shared_bytes)
            .number("stream", l.stream);
      }
      if (call.transfer) {
        const recorded::TransferArgs& t = *call.transfer;
        line.number("bytes", t.bytes)
            .text("copy_kind", schema_name(t.kind))
            .number("stream", t.stream)
            .number("memset", t.is_memset ? 1 : 0);
      }
    }
    for (const recorded::Kernel& k : chunk.kernels) {
      JsonLine(out_, "kernel")
          .text("name", string(k.name_id))
          .number("device", k.device_id)
          .number("context", k.context_id)
          .number("stream", k.stream_id)
          .number("corr", k.correlation_id)
          .number("start", k.start_ns)
          .number("end", end_of(k.start_ns, k.duration_ns))
          .triple("grid", k.grid)
          .triple("block", k.block)
          .number("registers", k.registers_per_thread)
          .number("static_shared", k.static_shared_bytes)
          .number("dynamic_shared", k.dynamic_shared_bytes)
          .number("graph", k.graph_id)
          .number("event_timed", k.event_timed ? 1 : 0);
    }
    for (const recorded::Memcpy& c : chunk.memcpys) {
      JsonLine(out_, "memcpy")
          .number("device", c.device_id)
          .number("context", c.context_id)
          .number("stream", c.stream_id)
          .number("corr", c.correlation_id)
          .number("start", c.start_ns)
          .number("end", end_of(c.start_ns, c.duration_ns))
          .number("bytes", c.bytes)
          .text("copy_kind", schema_name(c.kind))
          .text("src_kind", schema_name(c.src_kind))
          .text("dst_kind", schema_name(c.dst_kind))
          .number("graph", c.graph_id)
          .number("event_timed", c.event_timed ? 1 : 0);
    }
    for (const recorded::Memset& s : chunk.memsets) {
      JsonLine(out_, "memset")
          .number("device", s.device_id)
          .number("context", s.context_id)
          .number("stream", s.stream_id)
          .number("corr", s.correlation_id)
          .number("start", s.start_ns)
          .number("end", end_of(s.start_ns, s.duration_ns))
          .number("bytes", s.bytes)
          .number("value", s.value)
          .number("graph", s.graph_id)
          .number("event_timed", s.event_timed ? 1 : 0);
    }
    for (const recorded::NvtxRange& r : chunk.nvtx_ranges) {
      JsonLine(out_, "range")
          .number("tid", r.tid)
          .number("end_tid", r.end_tid)
          .text("domain", string(r.domain_id))
          .text("name", string(r.name_id))
          .number("start", r.start_ns)
          .number("end", end_of(r.start_ns, r.duration_ns))
          .text("style", r.style == NvtxRangeStyle::kStartEnd ? "start_end" : "push_pop")
          .number("depth", r.depth)
          .number("unterminated", r.unterminated ? 1 : 0);
    }
    for (const recorded::MemoryEvent& e : chunk.memory_events) {
      JsonLine(out_, "memory")
          .text("operation", e.operation == MemoryEventOperation::kRelease ? "release" : "allocation")
          .number("device", e.device_id)
          .number("stream", e.stream_id)
          .number("corr", e.correlation_id)
          .number("time", e.time_ns)
          .number("address", e.address)
          .number("bytes", e.bytes)
          .text("memory_kind", schema_name(e.memory_kind));
    }
    for (const recorded::TensorMemoryEvent& e : chunk.tensor_memory_events) {
      JsonLine(out_, "tensor_memory")
          .text("action", e.action == TensorMemoryEventAction::kFree ? "free" : "alloc")
          .signed_number("device", e.device)
          .number("stream", e.stream)
          .number("time", e.time_ns)
          .number("address", e.address)
          .number("bytes", e.bytes)
          .number("tid", e.tid)
          .number("stack", e.stack_id)
          .number("total_allocated", e.total_allocated)
          .number("total_reserved", e.total_reserved);
    }
    for (const recorded::Synchronization& s : chunk.synchronizations) {
      JsonLine(out_, "sync")
          .text("sync_type", schema_name(s.type))
          .number("context", s.context_id)
          .number("stream", s.stream_id)
          .number("event", s.event)
          .number("corr", s.correlation_id)
          .number("start", s.start_ns)
          .number("end", end_of(s.start_ns, s.duration_ns));
    }
    for (const recorded::NvtxMark& m : chunk.nvtx_marks) {
      JsonLine(out_, "mark")
          .number("tid", m.tid)
          .text("domain", string(m.domain_id))
          .text("name", string(m.name_id))
          .number("time", m.time_ns);
    }
    for (const recorded::Overhead& o : chunk.overheads) {
      JsonLine(out_, "overhead")
          .text("kind", string(o.kind_id))
          .number("tid", o.tid)
          .number("start", o.start_ns)
          .number("end", end_of(o.start_ns, o.duration_ns));
    }
    for (const recorded::Thread& t : chunk.threads) {
      JsonLine(out_, "thread").number("tid", t.tid).text("name", t.name);
    }
    for (const recorded::Device& d : chunk.devices) {
      JsonLine(out_, "device").number("id", d.id).text("name", d.name);
    }
    if (chunk.window) {
      const recorded::Window& w = *chunk.window;
      JsonLine(out_, "window")
          .number("index", w.index)
          .signed_number("first_step", w.first_step)
          .signed_number("last_step", w.last_step)
          .number("start", w.start_ns)
          .number("end", w.end_ns)
          .text("step_rule", w.step_rule)
          .text("trigger", w.trigger)
          .number("partial", w.partial ? 1 : 0)
          .number("gpu_records_missing", w.gpu_records_missing);
    }
    if (chunk.process_end) {
      const recorded::ProcessEnd& e = *chunk.process_end;
      JsonLine(out_, "process_end")
          .number("end", e.end_ns)
          .text("reason", schema_name(e.reason))
          .signed_number("signal", e.signal)
          .number("gpu_records_missing", e.gpu_records_missing);
    }
    if (chunk.drops) {
      JsonLine(out_, "drops")
          .number("ring_full", chunk.drops->ring_full)
          .number("cupti_records", chunk.drops->cupti_records)
          .number("truncated_payloads", chunk.drops->truncated_payloads);
    }
  }

 private:
  std::string_view string(uint64_t id) const {
    if (id == 0) return {};
    const std::string* value = tables_.find_string(id);
    return value != nullptr ? std::string_view(*value) : std::string_view("<undefined string>");
  }

  const InternTables& tables_;
  std::ostream& out_;
};

}  // namespace

bool dump_records(const std::string& path, std::ostream& out, std::ostream& err) {
  RecordDecoder reader;
  if (!reader.open(path)) {
    err << "profanalyze: " << reader.error().describe() << '\n';
    return false;
  }
  InternTables tables;
  ChunkDumper dumper(tables, out);
  recorded::Chunk chunk;
  for (;;) {
    const RecordDecoder::Next next = reader.next(chunk);
    if (next == RecordDecoder::Next::kError) {
      err << "profanalyze: " << reader.error().describe() << '\n';
      return false;
    }
    if (next == RecordDecoder::Next::kEnd) break;
    if (std::string why = tables.define(chunk); !why.empty()) {
      err << "profanalyze: " << path << ": byte " << reader.chunk_offset() << ": " << why << '\n';
      return false;
    }
    dumper.dump(chunk);
  }
  if (reader.truncated_tail()) err << "profanalyze: warning: " << reader.truncated_tail()->describe() << '\n';
  return true;
}

}  // namespace prof::analyzer
