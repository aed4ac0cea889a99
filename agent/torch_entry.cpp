// The C entry points the Python bootstrap (agent/python/) calls through
// ctypes once a program imports torch: its options, its ranges (nn.Module
// calls, ProfilerStep#N) and the caching allocator's tensor blocks. Each
// appends to the calling thread's ring like an NVTX hook, and never fails
// the caller: with recording off they do nothing.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "agent_state.h"
#include "capture/capture_range.h"
#include "capture/nvtx_capture.h"
#include "stacks/python_frames.h"
#include "capture/reentry_guard.h"
#include "common/clock.h"
#include "common/log.h"
#include "config.h"
#include "record/recorder.h"

namespace prof {
namespace {

// Bits 0-3: PROF_TORCH's parts (TorchPart); bit 8: PROF_TORCH_SHAPES.
constexpr uint32_t kShapesBit = 1u << 8;

}  // namespace
}  // namespace prof

extern "C" {

[[gnu::visibility("default")]] uint32_t libprof_torch_options() {
  const prof::AgentConfig* config = prof::agent_state().config;
  if (config == nullptr || prof::agent_state().phase.load() != prof::AgentPhase::recording) return 0;
  return config->torch.parts | (config->torch.shapes ? prof::kShapesBit : 0);
}

[[gnu::visibility("default")]] int libprof_torch_range_push(const char* name) {
  return prof::push_named_range(name);
}

[[gnu::visibility("default")]] int libprof_torch_range_pop() { return prof::pop_named_range(); }

[[gnu::visibility("default")]] uint64_t libprof_torch_range_start(const char* name) {
  return prof::start_named_range(name);
}

[[gnu::visibility("default")]] void libprof_torch_range_end(uint64_t id) { prof::end_named_range(id); }

// `time_ns`: CLOCK_MONOTONIC of the event; 0: now. The stack of the call
// that allocated or freed: `depth` frames, leaf first, as files, function
// names and lines (torch's history holds them as text).
[[gnu::visibility("default")]] void libprof_torch_memory(uint32_t action, int32_t device, uint64_t stream,
                                                         uint64_t address, uint64_t bytes,
                                                         uint64_t total_allocated, uint64_t total_reserved,
                                                         uint64_t time_ns, const char* const* files,
                                                         const char* const* functions, const int32_t* lines,
                                                         uint32_t depth) {
  using namespace prof;
  ReentryGuard guard;
  if (!guard) return;
  if (files == nullptr || functions == nullptr || lines == nullptr) depth = 0;
  depth = std::min(depth, kMaxPythonStackDepth);
  PythonFrame frames[kMaxPythonStackDepth];
  for (uint32_t i = 0; i < depth; ++i) {
    frames[i].code_and_entry = intern_python_code_named(files[i] ? files[i] : "?", functions[i] ? functions[i] : "?");
    frames[i].line = lines[i];
  }
  Recorder* recorder = agent_state().recorder.load(std::memory_order_acquire);
  if (recorder == nullptr || !recorder->accepting() || !capture_range_open()) return;
  ThreadBuffer* buffer = recorder->thread_buffer();
  if (buffer == nullptr) return;
  const auto payload = static_cast<uint32_t>(depth * sizeof(PythonFrame));
  auto* record = begin_record<TensorMemoryRecord>(*buffer, RecordType::tensor_memory, payload);
  if (record == nullptr) return;
  record->time_ns = time_ns != 0 ? time_ns : monotonic_ns();
  record->address = address;
  record->bytes = bytes;
  record->stream = stream;
  record->total_allocated = total_allocated;
  record->total_reserved = total_reserved;
  record->device = device;
  record->action = static_cast<uint16_t>(action);
  record->python_depth = static_cast<uint16_t>(depth);
  memcpy(record + 1, frames, payload);
  buffer->commit();
}

// One line of the bootstrap's (what it cannot do), through the agent's log
// so that PROF_LOG=quiet silences it like every other.
[[gnu::visibility("default")]] void libprof_torch_say(const char* line) {
  if (line != nullptr) prof::log_info("%s", line);
}

}  // extern "C"
