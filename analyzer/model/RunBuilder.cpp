#include "model/RunBuilder.h"

#include <algorithm>
#include <unordered_map>

#include "io/CaptureReader.h"
#include "io/CompactFields.h"
#include "io/DeltaDecoder.h"
#include "io/InternTables.h"
#include "model/GpuNames.h"
#include "model/LaunchingCalls.h"

namespace prof::analyzer {
namespace {

// FNV-1a over 32-bit words: the keys below are a few small integers.
template <size_t N>
size_t hashWords(const uint32_t (&words)[N]) {
  uint64_t hash = 1469598103934665603ull;
  for (uint32_t word : words) hash = (hash ^ word) * 1099511628211ull;
  return hash;
}

// The values a derived name (a formatted shape, a copy's display name) is
// made from; the last word says which wording, so equal numbers of different
// records stay apart.
struct DerivedNameKey {
  enum Wording : uint32_t { kLaunchShape, kKernelShape, kTransferShape, kMemcpyName, kMemcpyShape, kMemsetName, kMemsetShape };
  uint32_t values[8];
  bool operator==(const DerivedNameKey& other) const { return std::equal(values, values + 8, other.values); }
};
struct DerivedNameKeyHash {
  size_t operator()(const DerivedNameKey& key) const { return hashWords(key.values); }
};
struct KernelConfigHash {
  size_t operator()(const KernelConfig& k) const {
    const uint32_t words[9] = {k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2],
                               k.registersPerThread, k.staticSharedBytes, k.dynamicSharedBytes};
    return hashWords(words);
  }
};

uint32_t low(uint64_t value) { return static_cast<uint32_t>(value); }
uint32_t high(uint64_t value) { return static_cast<uint32_t>(value >> 32); }

// A file's ids -> the Run's indices. Lives as long as the file is being
// read: ids are per file.
struct FileIds {
  std::unordered_map<uint64_t, uint32_t> stacks;  // -> index + 1 into Run::stacks
  std::unordered_map<uint64_t, uint32_t> frames;
  std::unordered_map<uint64_t, int64_t> modules;
  // Names resolved once per file string id, not once per event: hashing the
  // string into the Run's pool for each of millions of records was most of
  // the load time.
  std::unordered_map<uint64_t, NameId> names;
  // Names made once per distinct value, not once per event: demangling a
  // kernel name and formatting a shape cost microseconds, and a capture
  // repeats a handful of kernels and configurations millions of times.
  std::unordered_map<uint64_t, NameId> kernelNames;  // file string id -> demangled
  std::unordered_map<DerivedNameKey, NameId, DerivedNameKeyHash> derivedNames;
  std::unordered_map<KernelConfig, uint32_t, KernelConfigHash> kernelConfigs;  // -> index into Run::kernelConfigs
};

// Appended piece by piece: GCC 12's -Wrestrict misfires on "[" + to_string(x).
std::string dims(Dim3 d) {
  std::string out = "[";
  out += std::to_string(d.x);
  out += ", ";
  out += std::to_string(d.y);
  out += ", ";
  out += std::to_string(d.z);
  out += "]";
  return out;
}

bool onDevice(prof::proto::MemoryKind kind) {
  return kind != prof::proto::PAGEABLE && kind != prof::proto::PINNED;
}

// Turns one decoded chunk into Run records. A reference to an id that no
// chunk so far defined is a broken promise of the writer (FORMAT.md:
// definitions come no later than first use), so it is reported as a corrupt
// file rather than papered over with a placeholder name.
class ChunkLoader {
 public:
  ChunkLoader(Run& run, uint32_t process, const InternTables& tables, FileIds& ids, const prof::proto::Chunk& chunk,
              bool keepEvents)
      : run_(run), process_(process), tables_(tables), ids_(ids), chunk_(chunk), keepEvents_(keepEvents) {}

  // Empty on success, else what is corrupt.
  std::string load();

 private:
  void loadNvtxRanges();
  void loadApiCalls();
  void loadKernels();
  void loadMemcpys();
  void loadMemsets();
  void loadMemoryEvents();
  // Records the report does not show: decoded for the duration and checked
  // for undefined ids, then counted.
  void checkOtherRecords();

  // Resolves a string id; records the first failure in error_.
  NameId resolve(uint64_t id, const char* what, const char* fallback);
  // The Run's name for `key`, made by `makeName` the first time.
  template <typename MakeName>
  NameId derivedName(const DerivedNameKey& key, MakeName&& makeName);
  NameId launchShape(const prof::proto::LaunchArgs& l);
  NameId transferShape(const prof::proto::TransferArgs& t);
  uint32_t kernelConfig(const prof::proto::Kernel& k);
  void checkStack(uint64_t id, const char* what);
  // The Run's stack index + 1 for a file's stack id (0 for none).
  uint32_t stack(uint64_t id);
  uint32_t frame(uint64_t id);
  int64_t module(uint64_t id);
  void seen(uint64_t startNs, uint64_t endNs);
  // The fields every GPU record has (place, correlation, time), from a
  // Kernel, Memcpy or Memset message.
  template <typename Record>
  GpuActivity gpuActivity(GpuKind kind, const Record& r, DeltaDecoder& starts);

  Run& run_;
  uint32_t process_;
  const InternTables& tables_;
  FileIds& ids_;
  const prof::proto::Chunk& chunk_;
  // False for `info`: everything is decoded and checked, but only the
  // counts and times are kept.
  bool keepEvents_;
  std::string error_;
};

template <typename Record>
GpuActivity ChunkLoader::gpuActivity(GpuKind kind, const Record& r, DeltaDecoder& starts) {
  GpuActivity g;
  g.kind = kind;
  g.process = process_;
  g.deviceId = r.device_id();
  g.streamId = r.stream_id();
  g.correlationId = r.correlation_id();
  g.startNs = starts.next(r.start_delta_ns());
  g.endNs = endOf(g.startNs, r.duration_ns());
  seen(g.startNs, g.endNs);
  return g;
}

NameId ChunkLoader::resolve(uint64_t id, const char* what, const char* fallback) {
  if (id == 0) return *fallback ? run_.intern(fallback) : Run::kNoName;
  if (auto it = ids_.names.find(id); it != ids_.names.end()) return it->second;
  const std::string* s = tables_.findString(id);
  if (!s) {
    if (error_.empty()) error_ = std::string(what) + " references undefined string id " + std::to_string(id);
    return Run::kNoName;
  }
  // Safe to keep: a string is never redefined with another value
  // (InternTables::define refuses the file).
  const NameId name = run_.intern(*s);
  ids_.names.emplace(id, name);
  return name;
}

template <typename MakeName>
NameId ChunkLoader::derivedName(const DerivedNameKey& key, MakeName&& makeName) {
  auto [it, added] = ids_.derivedNames.try_emplace(key, 0);
  if (added) it->second = run_.intern(makeName());
  return it->second;
}

NameId ChunkLoader::launchShape(const prof::proto::LaunchArgs& l) {
  const Dim3 grid = gridOf(l), block = blockOf(l);
  const DerivedNameKey key{{grid.x, grid.y, grid.z, block.x, block.y, block.z, l.dynamic_shared_bytes(),
                            DerivedNameKey::kLaunchShape}};
  return derivedName(key, [&] {
    return "grid=" + dims(grid) + " block=" + dims(block) +
           " dynamic shared=" + std::to_string(l.dynamic_shared_bytes());
  });
}

NameId ChunkLoader::transferShape(const prof::proto::TransferArgs& t) {
  const DerivedNameKey key{{t.is_memset() ? 1u : 0u, static_cast<uint32_t>(t.kind()), low(t.bytes()), high(t.bytes()),
                            0, 0, 0, DerivedNameKey::kTransferShape}};
  return derivedName(key, [&] {
    return std::string(t.is_memset() ? "memset" : copyKindName(t.kind())) + " " + std::to_string(t.bytes()) + " B";
  });
}

uint32_t ChunkLoader::kernelConfig(const prof::proto::Kernel& k) {
  const Dim3 grid = gridOf(k), block = blockOf(k);
  const KernelConfig config{{grid.x, grid.y, grid.z},
                            {block.x, block.y, block.z},
                            k.registers_per_thread(),
                            k.static_shared_bytes(),
                            k.dynamic_shared_bytes()};
  auto [it, added] = ids_.kernelConfigs.try_emplace(config, 0);
  if (added) {
    // One table per Run, so files share entries only through this lookup:
    // equal configs of two files may get two entries, which is harmless.
    run_.kernelConfigs.push_back(config);
    it->second = static_cast<uint32_t>(run_.kernelConfigs.size() - 1);
  }
  return it->second;
}

void ChunkLoader::checkStack(uint64_t id, const char* what) {
  if (id != 0 && !tables_.hasStack(id) && error_.empty())
    error_ = std::string(what) + " references undefined stack id " + std::to_string(id);
}

// Definitions were checked by InternTables::define (a stack's frames and a
// frame's module and names exist), so only the stack id itself can be
// undefined here, and checkStack reports that.
uint32_t ChunkLoader::stack(uint64_t id) {
  if (id == 0) return 0;
  if (auto it = ids_.stacks.find(id); it != ids_.stacks.end()) return it->second;
  const prof::proto::Stack* s = tables_.findStack(id);
  if (!s) return 0;
  std::vector<uint32_t> frames;
  for (uint64_t f : s->frame_ids()) frames.push_back(frame(f));
  run_.stacks.push_back(std::move(frames));
  const auto index = static_cast<uint32_t>(run_.stacks.size());
  ids_.stacks.emplace(id, index);
  return index;
}

uint32_t ChunkLoader::frame(uint64_t id) {
  if (auto it = ids_.frames.find(id); it != ids_.frames.end()) return it->second;
  Frame out;
  if (const prof::proto::Frame* f = tables_.findFrame(id)) {
    out.kind = f->kind();
    out.address = f->address();
    out.module = module(f->module_id());
    out.function = resolve(f->function_name_id(), "frame", "");
    out.file = resolve(f->file_name_id(), "frame", "");
    out.line = f->line();
  }
  run_.frames.push_back(out);
  const auto index = static_cast<uint32_t>(run_.frames.size() - 1);
  ids_.frames.emplace(id, index);
  return index;
}

int64_t ChunkLoader::module(uint64_t id) {
  if (id == 0) return -1;
  if (auto it = ids_.modules.find(id); it != ids_.modules.end()) return it->second;
  const prof::proto::Module* m = tables_.findModule(id);
  if (!m) return -1;
  run_.modules.push_back(Module{m->path(), m->load_address(), m->size(), m->bias(), m->build_id()});
  const auto index = static_cast<int64_t>(run_.modules.size() - 1);
  ids_.modules.emplace(id, index);
  return index;
}

void ChunkLoader::seen(uint64_t startNs, uint64_t endNs) {
  ProcessInfo& p = run_.processes[process_];
  p.firstEventNs = std::min(p.firstEventNs, startNs);
  p.lastEventNs = std::max(p.lastEventNs, endNs);
}

std::string ChunkLoader::load() {
  loadNvtxRanges();
  loadApiCalls();
  loadKernels();
  loadMemcpys();
  loadMemsets();
  loadMemoryEvents();
  checkOtherRecords();
  return error_;
}

void ChunkLoader::loadNvtxRanges() {
  ProcessInfo& info = run_.processes[process_];
  DeltaDecoder starts(chunk_.time_base_ns());
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
    if (e.unterminated) ++info.unterminatedRanges;
    seen(e.startNs, e.endNs);
    if (keepEvents_) run_.cpuEvents.push_back(e);
  }
  info.counts.nvtxRanges += chunk_.nvtx_ranges_size();
}

// All of ApiCall's decoding is here, so a change to its encoding is a
// change to this function only.
void ChunkLoader::loadApiCalls() {
  DeltaDecoder starts(chunk_.time_base_ns());
  ApiCallDecoder calls;
  for (const auto& a : chunk_.api_calls()) {
    const ApiCallDecoder::Ids ids = calls.next(a);
    CpuEvent e;
    e.kind = CpuEventKind::kApiCall;
    e.process = process_;
    e.tid = ids.tid;
    if (a.name_id() == 0) {
      const char* domain = a.domain() == prof::proto::DRIVER ? "driver" : "runtime";
      e.name = run_.intern("<cuda " + std::string(domain) + " cbid " + std::to_string(a.callback_id()) + ">");
    } else {
      e.name = resolve(a.name_id(), "API call", "");
    }
    if (a.has_launch()) {
      resolve(a.launch().kernel_name_id(), "API call's launch", "");
      e.inputShape = launchShape(a.launch());
    } else if (a.has_transfer()) {
      e.inputShape = transferShape(a.transfer());
    }
    checkStack(a.stack_id(), "API call");
    e.stack = stack(a.stack_id());
    e.startNs = starts.next(a.start_delta_ns());
    e.endNs = endOf(e.startNs, a.duration_ns());
    e.correlationId = ids.correlationId;
    seen(e.startNs, e.endNs);
    if (keepEvents_) run_.cpuEvents.push_back(e);
  }
  run_.processes[process_].counts.apiCalls += chunk_.api_calls_size();
}

void ChunkLoader::loadKernels() {
  DeltaDecoder starts(chunk_.time_base_ns());
  for (const auto& k : chunk_.kernels()) {
    GpuActivity g = gpuActivity(GpuKind::kKernel, k, starts);
    const std::string* mangled = k.name_id() ? tables_.findString(k.name_id()) : nullptr;
    if (k.name_id() != 0 && !mangled) {
      resolve(k.name_id(), "kernel", "");
    } else if (mangled) {
      auto [name, added] = ids_.kernelNames.try_emplace(k.name_id(), 0);
      if (added) name->second = run_.intern(demangle(*mangled));
      g.name = name->second;
    } else {
      g.name = run_.intern("<unnamed kernel>");
    }
    const uint32_t shared = k.static_shared_bytes() + k.dynamic_shared_bytes();
    const Dim3 grid = gridOf(k), block = blockOf(k);
    const DerivedNameKey key{{grid.x, grid.y, grid.z, block.x, block.y, block.z, shared, DerivedNameKey::kKernelShape}};
    g.inputShape = derivedName(key, [&] {
      return "grid=" + dims(grid) + " block=" + dims(block) +
             " shared=" + std::to_string(shared);
    });
    g.kernelConfig = kernelConfig(k);
    if (keepEvents_) run_.gpuActivities.push_back(g);
  }
  run_.processes[process_].counts.kernels += chunk_.kernels_size();
}

void ChunkLoader::loadMemcpys() {
  DeltaDecoder starts(chunk_.time_base_ns());
  for (const auto& c : chunk_.memcpys()) {
    GpuActivity g = gpuActivity(GpuKind::kMemcpy, c, starts);
    const auto kind = static_cast<uint32_t>(c.kind());
    g.name = derivedName({{kind, static_cast<uint32_t>(c.src_kind()), static_cast<uint32_t>(c.dst_kind()), 0, 0, 0, 0,
                           DerivedNameKey::kMemcpyName}},
                         [&] { return memcpyName(c); });
    g.bytes = c.bytes();
    g.copyKind = c.kind();
    g.inputShape = derivedName({{kind, low(c.bytes()), high(c.bytes()), 0, 0, 0, 0, DerivedNameKey::kMemcpyShape}}, [&] {
      return std::string(copyKindName(c.kind())) + " " + std::to_string(c.bytes()) + " B";
    });
    if (keepEvents_) run_.gpuActivities.push_back(g);
  }
  run_.processes[process_].counts.memcpys += chunk_.memcpys_size();
}

void ChunkLoader::loadMemsets() {
  DeltaDecoder starts(chunk_.time_base_ns());
  for (const auto& s : chunk_.memsets()) {
    GpuActivity g = gpuActivity(GpuKind::kMemset, s, starts);
    g.name = derivedName({{static_cast<uint32_t>(s.memory_kind()), 0, 0, 0, 0, 0, 0, DerivedNameKey::kMemsetName}},
                         [&] { return memsetName(s); });
    g.bytes = s.bytes();
    g.inputShape = derivedName({{low(s.bytes()), high(s.bytes()), 0, 0, 0, 0, 0, DerivedNameKey::kMemsetShape}},
                               [&] { return "memset " + std::to_string(s.bytes()) + " B"; });
    if (keepEvents_) run_.gpuActivities.push_back(g);
  }
  run_.processes[process_].counts.memsets += chunk_.memsets_size();
}

void ChunkLoader::loadMemoryEvents() {
  DeltaDecoder times(chunk_.time_base_ns());
  for (const auto& m : chunk_.memory_events()) {
    const uint64_t t = times.next(m.time_delta_ns());
    seen(t, t);
    if (m.operation() != prof::proto::MemoryEvent::ALLOCATION && m.operation() != prof::proto::MemoryEvent::RELEASE)
      continue;  // nothing to count
    MemoryEvent e;
    e.process = process_;
    e.allocation = m.operation() == prof::proto::MemoryEvent::ALLOCATION;
    e.onDevice = onDevice(m.memory_kind());
    e.bytes = m.bytes();
    e.correlationId = m.correlation_id();
    e.tid = m.tid();
    e.deviceId = m.device_id();
    e.timeNs = t;
    if (keepEvents_) run_.memoryEvents.push_back(e);
  }
  run_.processes[process_].counts.memoryEvents += chunk_.memory_events_size();
}

void ChunkLoader::checkOtherRecords() {
  const uint64_t base = chunk_.time_base_ns();
  RecordCounts& counts = run_.processes[process_].counts;
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
  FileIds ids;
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
    for (const auto& d : chunk.devices())
      if (std::none_of(info.devices.begin(), info.devices.end(), [&](const auto& known) { return known.id() == d.id(); }))
        info.devices.push_back(d);
    if (chunk.has_process_end()) info.end = chunk.process_end();

    if (std::string bad = ChunkLoader(run_, process, tables, ids, chunk, depth_ == LoadDepth::kEvents).load(); !bad.empty())
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
  alignClocks();
  linkToLaunchingCalls();
}

void RunBuilder::linkToLaunchingCalls() {
  const LaunchingCalls launcher(run_);
  for (GpuActivity& g : run_.gpuActivities)
    if (g.correlationId != 0) g.launchedBy = launcher.find(g.process, g.correlationId);
  for (MemoryEvent& m : run_.memoryEvents)
    if (m.correlationId != 0) m.calledBy = launcher.find(m.process, m.correlationId);
}

void RunBuilder::alignClocks() {
  // realtime = monotonic - anchor.monotonic_ns + anchor.realtime_ns, so a
  // file's times move onto the first file's clock by the difference of the
  // two files' (realtime - monotonic) offsets. Unsigned arithmetic wraps
  // the same way signed would, without overflow UB.
  const ProcessInfo* reference = nullptr;
  for (const ProcessInfo& p : run_.processes)
    if (p.process && p.process->has_clock_anchor()) {
      reference = &p;
      break;
    }
  if (!reference) return;
  auto offset = [](const ProcessInfo& p) {
    const auto& a = p.process->clock_anchor();
    return a.realtime_ns() - a.monotonic_ns();
  };
  const uint64_t base = offset(*reference);
  bool shifted = false;
  for (ProcessInfo& p : run_.processes) {
    if (!p.process || !p.process->has_clock_anchor()) continue;
    p.timelineShiftNs = static_cast<int64_t>(offset(p) - base);
    shifted = shifted || p.timelineShiftNs != 0;
  }
  if (!shifted) return;
  auto shift = [&](uint32_t process, uint64_t& t) { t += static_cast<uint64_t>(run_.processes[process].timelineShiftNs); };
  for (CpuEvent& e : run_.cpuEvents) {
    shift(e.process, e.startNs);
    shift(e.process, e.endNs);
  }
  for (GpuActivity& g : run_.gpuActivities) {
    shift(g.process, g.startNs);
    shift(g.process, g.endNs);
  }
  for (MemoryEvent& m : run_.memoryEvents) shift(m.process, m.timeNs);
}

std::optional<ReadError> loadRun(const std::vector<std::string>& paths, Run& run, std::ostream& warnings,
                                 LoadDepth depth) {
  RunBuilder builder(run, depth);
  for (const std::string& path : paths)
    if (auto error = builder.addFile(path, warnings)) return error;
  builder.finish();
  return std::nullopt;
}

}  // namespace prof::analyzer
