#include "model/RunBuilder.h"

#include <algorithm>
#include <unordered_map>

#include "io/CaptureReader.h"
#include "io/DeltaDecoder.h"
#include "io/InternTables.h"
#include "model/GpuNames.h"

namespace prof::analyzer {
namespace {

// Turns one decoded chunk into Run records. A reference to an id that no
// chunk so far defined is a broken promise of the writer (FORMAT.md:
// definitions come no later than first use), so it is reported as a corrupt
// file rather than papered over with a placeholder name.
class ChunkLoader {
 public:
  ChunkLoader(Run& run, uint32_t process, const InternTables& tables, const prof::proto::Chunk& chunk)
      : run_(run), process_(process), tables_(tables), chunk_(chunk) {}

  // Empty on success, else what is corrupt.
  std::string load();

 private:
  // Resolves a string id; records the first failure in error_.
  NameId resolve(uint64_t id, const char* what, const char* fallback);
  void checkStack(uint64_t id, const char* what);
  void seen(uint64_t startNs, uint64_t endNs);

  Run& run_;
  uint32_t process_;
  const InternTables& tables_;
  const prof::proto::Chunk& chunk_;
  std::string error_;
};

NameId ChunkLoader::resolve(uint64_t id, const char* what, const char* fallback) {
  if (id == 0) return run_.intern(fallback);
  const std::string* s = tables_.findString(id);
  if (s) return run_.intern(*s);
  if (error_.empty()) error_ = std::string(what) + " references undefined string id " + std::to_string(id);
  return Run::kNoName;
}

void ChunkLoader::checkStack(uint64_t id, const char* what) {
  if (id != 0 && !tables_.hasStack(id) && error_.empty())
    error_ = std::string(what) + " references undefined stack id " + std::to_string(id);
}

void ChunkLoader::seen(uint64_t startNs, uint64_t endNs) {
  ProcessInfo& p = run_.processes[process_];
  p.firstEventNs = std::min(p.firstEventNs, startNs);
  p.lastEventNs = std::max(p.lastEventNs, endNs);
}

std::string ChunkLoader::load() {
  const uint64_t base = chunk_.time_base_ns();
  ProcessInfo& info = run_.processes[process_];
  RecordCounts& counts = info.counts;

  {
    DeltaDecoder starts(base);
    for (const auto& r : chunk_.nvtx_ranges()) {
      CpuEvent e;
      e.kind = r.style() == prof::proto::NvtxRange::START_END ? CpuEventKind::kStartEndRange
                                                              : CpuEventKind::kPushPopRange;
      e.process = process_;
      e.tid = r.tid();
      e.domain = resolve(r.domain_id(), "NVTX range domain", "");
      e.name = resolve(r.name_id(), "NVTX range", "<unnamed range>");
      e.startNs = starts.next(r.start_delta_ns());
      e.endNs = endOf(e.startNs, r.duration_ns());
      e.unterminated = r.unterminated();
      seen(e.startNs, e.endNs);
      run_.cpuEvents.push_back(e);
    }
    counts.nvtxRanges += chunk_.nvtx_ranges_size();
  }
  {
    DeltaDecoder starts(base);
    for (const auto& a : chunk_.api_calls()) {
      CpuEvent e;
      e.kind = CpuEventKind::kApiCall;
      e.process = process_;
      e.tid = a.tid();
      if (a.name_id() == 0) {
        const char* domain = a.domain() == prof::proto::DRIVER ? "driver" : "runtime";
        e.name = run_.intern("<cuda " + std::string(domain) + " cbid " + std::to_string(a.callback_id()) + ">");
      } else {
        e.name = resolve(a.name_id(), "API call", "");
      }
      if (a.has_launch()) resolve(a.launch().kernel_name_id(), "API call's launch", "");
      checkStack(a.stack_id(), "API call");
      e.startNs = starts.next(a.start_delta_ns());
      e.endNs = endOf(e.startNs, a.duration_ns());
      e.correlationId = a.correlation_id();
      seen(e.startNs, e.endNs);
      run_.cpuEvents.push_back(e);
    }
    counts.apiCalls += chunk_.api_calls_size();
  }
  {
    DeltaDecoder starts(base);
    for (const auto& k : chunk_.kernels()) {
      GpuActivity g;
      g.kind = GpuKind::kKernel;
      g.process = process_;
      const std::string* mangled = k.name_id() ? tables_.findString(k.name_id()) : nullptr;
      if (k.name_id() != 0 && !mangled) {
        resolve(k.name_id(), "kernel", "");
      } else {
        g.name = run_.intern(mangled ? demangle(*mangled) : std::string("<unnamed kernel>"));
      }
      g.deviceId = k.device_id();
      g.streamId = k.stream_id();
      g.correlationId = k.correlation_id();
      g.startNs = starts.next(k.start_delta_ns());
      g.endNs = endOf(g.startNs, k.duration_ns());
      seen(g.startNs, g.endNs);
      run_.gpuActivities.push_back(g);
    }
    counts.kernels += chunk_.kernels_size();
  }
  {
    DeltaDecoder starts(base);
    for (const auto& c : chunk_.memcpys()) {
      GpuActivity g;
      g.kind = GpuKind::kMemcpy;
      g.process = process_;
      g.name = run_.intern(memcpyName(c));
      g.deviceId = c.device_id();
      g.streamId = c.stream_id();
      g.correlationId = c.correlation_id();
      g.startNs = starts.next(c.start_delta_ns());
      g.endNs = endOf(g.startNs, c.duration_ns());
      g.bytes = c.bytes();
      seen(g.startNs, g.endNs);
      run_.gpuActivities.push_back(g);
    }
    counts.memcpys += chunk_.memcpys_size();
  }
  {
    DeltaDecoder starts(base);
    for (const auto& s : chunk_.memsets()) {
      GpuActivity g;
      g.kind = GpuKind::kMemset;
      g.process = process_;
      g.name = run_.intern(memsetName(s));
      g.deviceId = s.device_id();
      g.streamId = s.stream_id();
      g.correlationId = s.correlation_id();
      g.startNs = starts.next(s.start_delta_ns());
      g.endNs = endOf(g.startNs, s.duration_ns());
      g.bytes = s.bytes();
      seen(g.startNs, g.endNs);
      run_.gpuActivities.push_back(g);
    }
    counts.memsets += chunk_.memsets_size();
  }
  // Records the report does not show yet: decoded for the duration and
  // checked for undefined ids, then counted.
  {
    DeltaDecoder times(base);
    for (const auto& m : chunk_.memory_events()) {
      const uint64_t t = times.next(m.time_delta_ns());
      seen(t, t);
    }
    counts.memoryEvents += chunk_.memory_events_size();
  }
  {
    DeltaDecoder starts(base);
    for (const auto& s : chunk_.synchronizations()) {
      const uint64_t t = starts.next(s.start_delta_ns());
      seen(t, endOf(t, s.duration_ns()));
    }
    counts.synchronizations += chunk_.synchronizations_size();
  }
  {
    DeltaDecoder times(base);
    for (const auto& m : chunk_.nvtx_marks()) {
      resolve(m.domain_id(), "NVTX mark domain", "");
      resolve(m.name_id(), "NVTX mark", "");
      const uint64_t t = times.next(m.time_delta_ns());
      seen(t, t);
    }
    counts.nvtxMarks += chunk_.nvtx_marks_size();
  }
  {
    DeltaDecoder starts(base);
    for (const auto& o : chunk_.overheads()) {
      resolve(o.kind_id(), "overhead", "");
      const uint64_t t = starts.next(o.start_delta_ns());
      seen(t, endOf(t, o.duration_ns()));
    }
    counts.overheads += chunk_.overheads_size();
  }
  return error_;
}

}  // namespace

std::optional<ReadError> RunBuilder::addFile(const std::string& path, std::ostream& warnings) {
  CaptureReader reader;
  if (!reader.open(path)) return reader.error();

  const auto process = static_cast<uint32_t>(run_.processes.size());
  run_.processes.emplace_back();
  {
    ProcessInfo& info = run_.processes.back();
    info.path = path;
    info.formatMajor = reader.header().format_major();
    info.formatMinor = reader.header().format_minor();
    info.producer = reader.header().producer();
  }

  InternTables tables;
  prof::proto::Chunk chunk;
  for (;;) {
    const CaptureReader::Next next = reader.next(chunk);
    if (next == CaptureReader::Next::kError) return reader.error();
    if (next == CaptureReader::Next::kEnd) break;

    const std::string where = "chunk " + std::to_string(reader.chunkCount() - 1) + ": ";
    // Definitions first: a chunk's records may use ids the same chunk defines.
    if (std::string bad = tables.define(chunk); !bad.empty())
      return ReadError{path, reader.chunkOffset(), where + bad};
    ProcessInfo& info = run_.processes[process];
    if (chunk.has_process() && !info.process) info.process = chunk.process();
    for (const auto& t : chunk.threads()) info.threads[t.tid()] = t.name();  // a rename: last wins
    if (chunk.has_drops()) info.drops = chunk.drops();  // totals: the last one is final
    if (chunk.has_process_end()) info.end = chunk.process_end();

    if (std::string bad = ChunkLoader(run_, process, tables, chunk).load(); !bad.empty())
      return ReadError{path, reader.chunkOffset(), where + bad};
  }

  ProcessInfo& info = run_.processes[process];
  info.chunks = reader.chunkCount();
  info.counts.strings = tables.stringCount();
  info.counts.frames = tables.frameCount();
  info.counts.stacks = tables.stackCount();
  info.counts.modules = tables.moduleCount();
  if (reader.truncatedTail()) {
    info.lastChunkTruncated = true;
    warnings << "profanalyze: warning: " << reader.truncatedTail()->describe() << '\n';
  }
  return std::nullopt;
}

void RunBuilder::finish() {
  // Correlation ids are unique per process only, so the key carries both.
  std::unordered_map<uint64_t, int64_t> launcher;
  for (size_t i = 0; i < run_.cpuEvents.size(); ++i) {
    const CpuEvent& e = run_.cpuEvents[i];
    if (e.kind == CpuEventKind::kApiCall && e.correlationId != 0)
      launcher[(uint64_t{e.process} << 32) | e.correlationId] = static_cast<int64_t>(i);
  }
  for (GpuActivity& g : run_.gpuActivities) {
    if (g.correlationId == 0) continue;
    auto it = launcher.find((uint64_t{g.process} << 32) | g.correlationId);
    if (it != launcher.end()) g.launchedBy = it->second;
  }
}

std::optional<ReadError> loadRun(const std::vector<std::string>& paths, Run& run, std::ostream& warnings) {
  RunBuilder builder(run);
  for (const std::string& path : paths)
    if (auto error = builder.addFile(path, warnings)) return error;
  builder.finish();
  return std::nullopt;
}

}  // namespace prof::analyzer
