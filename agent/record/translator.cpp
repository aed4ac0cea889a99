#include "record/translator.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "common/unaligned.h"
#include "stacks/native_stack.h"
#include "stacks/python_frames.h"
#include "record/python_stack.h"
#include "record/thread_buffer.h"

namespace prof {

Translator::Translator(ThreadNameSource thread_name) : thread_name_(thread_name) {
  stacks_.use_strings(&strings_);
}

void Translator::note_thread(const ThreadBuffer& buffer, ChunkEncoder& chunk) {
  if (!known_threads_.insert(buffer.tid()).second) return;
  std::string name = thread_name_(buffer.tid());
  if (name.empty()) name = buffer.name_at_start();
  chunk.add(file::Thread{buffer.tid(), std::move(name)});
}

void Translator::translate(const ThreadBuffer& buffer, const RecordHeader& header, ChunkEncoder& chunk) {
  const uint32_t tid = buffer.tid();
  if (tid != last_noted_tid_) [[unlikely]] {  // records come in runs per thread buffer
    translate_first_of_run(buffer, header, chunk);
    return;
  }
  // Most records are API calls: they go straight on, without the frame the
  // other kinds' code needs (callgrind: 26 of translate's 32 instructions
  // per API call were that frame's stores and loads).
  if (header.type == static_cast<uint16_t>(RecordType::api_call)) [[likely]] {
    api_call(tid, reinterpret_cast<const ApiCallRecord&>(header), chunk);
    return;
  }
  translate_other(tid, header, chunk);
}

void Translator::translate_first_of_run(const ThreadBuffer& buffer, const RecordHeader& header, ChunkEncoder& chunk) {
  note_thread(buffer, chunk);
  last_noted_tid_ = buffer.tid();
  translate(buffer, header, chunk);
}

void Translator::translate_other(uint32_t tid, const RecordHeader& header, ChunkEncoder& chunk) {
  switch (static_cast<RecordType>(header.type)) {
    case RecordType::nvtx_push:
    case RecordType::nvtx_range_start:
    case RecordType::nvtx_mark: {
      const auto& event = reinterpret_cast<const NvtxEventRecord&>(header);
      NvtxRangeAssembler::Begin begin;
      // Domain handles live for the process with one name (nvtx_capture.cpp).
      begin.domain_id = event.domain ? strings_.intern_static(event.domain->name, chunk) : 0;
      begin.name_id = strings_.intern({payload_of(event), header.payload_bytes}, chunk);
      begin.time_ns = ns(event.time_ticks);
      begin.color_argb = event.color_argb;
      begin.category = event.category;
      if (header.payload_bytes == kMaxPayloadString) ++truncated_payloads_;
      if (header.type == static_cast<uint16_t>(RecordType::nvtx_push)) {
        ranges_.push(tid, begin);
      } else if (header.type == static_cast<uint16_t>(RecordType::nvtx_range_start)) {
        ranges_.start(event.range_id, tid, begin);
      } else {
        file::NvtxMark mark;
        mark.tid = tid;
        mark.domain_id = begin.domain_id;
        mark.name_id = begin.name_id;
        mark.color_argb = begin.color_argb;
        mark.category = begin.category;
        chunk.add(mark, begin.time_ns);
      }
      break;
    }
    case RecordType::nvtx_pop: {
      const auto& event = reinterpret_cast<const NvtxEventRecord&>(header);
      const uint64_t domain_id = event.domain ? strings_.intern_static(event.domain->name, chunk) : 0;
      ClosedRange closed;
      if (ranges_.pop(tid, domain_id, ns(event.time_ticks), closed)) {
        chunk.add(closed.range, closed.span);
      } else {
        ++unmatched_range_ends_;
      }
      break;
    }
    case RecordType::nvtx_range_end: {
      const auto& event = reinterpret_cast<const NvtxEventRecord&>(header);
      ClosedRange closed;
      if (ranges_.end(event.range_id, tid, ns(event.time_ticks), closed)) {
        chunk.add(closed.range, closed.span);
      } else {
        ++unmatched_range_ends_;
      }
      break;
    }
    case RecordType::thread_name: {
      const auto& named = reinterpret_cast<const ThreadNameRecord&>(header);
      known_threads_.insert(named.tid);
      chunk.add(file::Thread{named.tid, std::string(payload_of(named), header.payload_bytes)});
      break;
    }
    case RecordType::api_call:  // translate() takes these
      api_call(tid, reinterpret_cast<const ApiCallRecord&>(header), chunk);
      break;
    case RecordType::ring_wait: {
      const auto& wait = reinterpret_cast<const RingWaitRecord&>(header);
      file::Overhead overhead;
      overhead.kind_id = strings_.intern_static(kRingWaitName, chunk);
      overhead.tid = tid;
      chunk.add(overhead, {wait.start_ns, wait.end_ns});
      break;
    }
    case RecordType::tensor_memory: {
      const auto& block = reinterpret_cast<const TensorMemoryRecord&>(header);
      file::TensorMemoryEvent event;
      event.action = static_cast<file::TensorMemoryEvent::Action>(block.action);
      event.device = block.device;
      event.stream = block.stream;
      event.address = block.address;
      event.bytes = block.bytes;
      event.tid = tid;
      event.total_allocated = block.total_allocated;
      event.total_reserved = block.total_reserved;
      if (block.python_depth > 0) {
        uint64_t keys[kMaxPythonStackDepth];
        const uint32_t depth = merge_python_stack(nullptr, 0, reinterpret_cast<const PythonFrame*>(payload_of(block)),
                                                  std::min<uint32_t>(block.python_depth, kMaxPythonStackDepth), 0, 0,
                                                  keys);
        event.stack_id = stacks_.intern(keys, depth, chunk);
      }
      chunk.add(event, block.time_ns);
      break;
    }
    case RecordType::memory_event: {
      const auto& memory = reinterpret_cast<const MemoryEventRecord&>(header);
      file::MemoryEvent event;
      event.operation = static_cast<file::MemoryEvent::Operation>(memory.operation);
      event.device_id = memory.device_id;
      event.correlation_id = memory.correlation_id;
      event.address = memory.address;
      event.bytes = memory.bytes;
      event.memory_kind = static_cast<file::MemoryKind>(memory.memory_kind);
      event.tid = tid;
      chunk.add(event, ns(memory.time_ticks));
      break;
    }
    case RecordType::padding:
      break;
  }
}

// Inline: once per recorded call.
[[gnu::always_inline]] inline uint64_t Translator::api_name_id(const ApiCallRecord& record, ChunkEncoder& chunk) {
  // CUPTI names each (domain, callback id) with one static string: an array
  // lookup instead of a hash per record. The address check keeps it exact
  // should a producer ever name one id differently.
  const std::vector<ApiName>& names = api_names_[record.domain < api_names_.size() ? record.domain : 0];
  if (record.callback_id < names.size()) {
    const ApiName& known = names[record.callback_id];
    if (known.function_name == record.function_name && known.id != 0) [[likely]] {
      return known.id;
    }
  }
  return new_api_name_id(record, chunk);
}

namespace {

// Whether two API call records are the same bytes but for their times and
// correlation id: the same function, domain, backend, return code,
// arguments, stack depths and kernel name's place and size. Arguments a
// kind does not have hold whatever the ring held there before, which can
// only make two calls differ. Word loads at fixed places, inline.
bool same_but_times_and_correlation(const ApiCallRecord& a, const ApiCallRecord& b) {
  constexpr size_t kFirst = offsetof(ApiCallRecord, function_name);
  constexpr size_t kAfterCorrelation = offsetof(ApiCallRecord, return_code);
  static_assert(offsetof(ApiCallRecord, correlation_id) == kFirst + 8 && kAfterCorrelation == kFirst + 12);
  static_assert((sizeof(ApiCallRecord) - kAfterCorrelation) % 8 == 4);
  const auto* pa = reinterpret_cast<const char*>(&a);
  const auto* pb = reinterpret_cast<const char*>(&b);
  uint64_t differ = (load_u64(pa + kFirst) ^ load_u64(pb + kFirst)) |
                    (load_u32(pa + kAfterCorrelation) ^ load_u32(pb + kAfterCorrelation));
#pragma GCC unroll 8
  for (size_t at = kAfterCorrelation + 4; at < sizeof(ApiCallRecord); at += 8) {
    differ |= load_u64(pa + at) ^ load_u64(pb + at);
  }
  return differ == 0;
}

}  // namespace

[[gnu::always_inline]] inline bool Translator::repeats_kept_call(const ApiCallRecord& record,
                                                                 const ChunkEncoder& chunk) const {
  if (kept_call_.chunk != &chunk || !same_but_times_and_correlation(record, kept_call_.record)) return false;
  // The same depths (compared above); the same frames, as the stack lookups
  // in api_call() would find them.
  const auto* frames = reinterpret_cast<const uint64_t*>(payload_of(record));
  const auto* python = reinterpret_cast<const PythonFrame*>(frames + record.stack_depth);
  if (record.python_depth != 0) {
    const uint32_t native_depth = std::min<uint32_t>(record.stack_depth, kMaxNativeStackDepth);
    const uint32_t python_depth = std::min<uint32_t>(record.python_depth, kMaxPythonStackDepth);
    if (last_python_stack_.id_of(frames, native_depth, python, python_depth) != kept_call_.stack_id) return false;
  } else if (record.stack_depth != 0) {
    if (last_native_stack_.id_of(frames, record.stack_depth, nullptr, 0) != kept_call_.stack_id) return false;
  }
  // The same kernel name's text (its address was compared above; a module
  // unloaded and another loaded may put another name there).
  if (record.args == ApiCallArgs::launch && record.kernel_name_bytes != 0) {
    const char* name = reinterpret_cast<const char*>(python + record.python_depth);
    return StringTable::same_text(name, kept_call_.kernel_name.data(), record.kernel_name_bytes);
  }
  return true;
}

void Translator::api_call(uint32_t tid, const ApiCallRecord& record, ChunkEncoder& chunk) {
  const bool same_as_previous =
      record.function_name == previous_function_ && record.bytes == previous_kernel_or_bytes_;
  previous_function_ = record.function_name;
  previous_kernel_or_bytes_ = record.bytes;
  if (!same_as_previous) {
    api_call_encoded<false>(tid, record, chunk);
  } else if (repeats_kept_call(record, chunk)) {
    chunk.add_call_repeat(tid, ns(record.start_ticks, record.end_ticks), record.correlation_id);
  } else {
    api_call_encoded<true>(tid, record, chunk);
  }
}

template <bool Kept>
void Translator::api_call_encoded(uint32_t tid, const ApiCallRecord& record, ChunkEncoder& chunk) {
  // Straight to the wire (ChunkEncoder::add(const ApiCallFields&)). Cleared:
  // the arguments of the kind the call does not have are never read, which
  // GCC cannot tell (-Wmaybe-uninitialized); a few vector stores.
  ApiCallFields call{};
  call.tid = tid;
  call.correlation_id = record.correlation_id;
  call.domain = static_cast<file::ApiDomain>(record.domain);
  call.backend = static_cast<file::CaptureBackend>(record.backend);
  call.callback_id = record.callback_id;
  call.name_id = api_name_id(record, chunk);
  call.return_code = record.return_code;
  const auto* frames = reinterpret_cast<const uint64_t*>(payload_of(record));
  const auto* python = reinterpret_cast<const PythonFrame*>(frames + record.stack_depth);
  if (record.python_depth == 0) {
    call.stack_id = record.stack_depth == 0 ? 0 : native_stack_id(frames, record.stack_depth, chunk);
  } else {
    // The capture path bounds both depths; the bound here keeps a bad record
    // from writing past `merged`.
    const uint32_t native_depth = std::min<uint32_t>(record.stack_depth, kMaxNativeStackDepth);
    const uint32_t python_depth = std::min<uint32_t>(record.python_depth, kMaxPythonStackDepth);
    call.stack_id = last_python_stack_.id_of(frames, native_depth, python, python_depth);
    if (call.stack_id == 0) {
      uint64_t eval_begin = 0;
      uint64_t eval_end = 0;
      python_eval_range(eval_begin, eval_end);
      uint64_t merged[kMaxNativeStackDepth + kMaxPythonStackDepth];
      const uint32_t depth =
          merge_python_stack(frames, native_depth, python, python_depth, eval_begin, eval_end, merged);
      call.stack_id = stacks_.intern(merged, depth, chunk);
      last_python_stack_.remember(frames, native_depth, python, python_depth, call.stack_id);
    }
  }
  switch (record.args) {
    case ApiCallArgs::launch: {
      call.args = ApiCallFields::Args::launch;
      const char* name = reinterpret_cast<const char*>(python + record.python_depth);
      call.kernel_name_id =
          record.kernel_name_bytes == 0
              ? 0
              : strings_.intern_by_address(record.kernel_name_address, {name, record.kernel_name_bytes}, chunk);
      call.grid = record.grid;
      call.block = record.block;
      call.dynamic_shared_bytes = record.shared_bytes;
      call.stream = record.stream;
      break;
    }
    case ApiCallArgs::copy:
    case ApiCallArgs::memset:
      call.args = ApiCallFields::Args::transfer;
      call.bytes = record.bytes;
      call.copy_kind = static_cast<file::CopyKind>(record.copy_kind);
      call.stream = record.stream;
      call.is_memset = record.args == ApiCallArgs::memset;
      break;
    case ApiCallArgs::none:
    case ApiCallArgs::capture_begin:
    case ApiCallArgs::capture_end:
    default:  // a bad record's: no arguments, as before
      call.args = ApiCallFields::Args::none;
      break;
  }
  call.span = ns(record.start_ticks, record.end_ticks);
  if constexpr (!Kept) {
    chunk.add(call);
  } else {
    chunk.add_kept(call);
    const bool named_launch = call.args == ApiCallFields::Args::launch && call.kernel_name_id != 0;
    kept_call_.chunk = &chunk;
    kept_call_.record = record;
    kept_call_.kernel_name = named_launch ? strings_.text_of(call.kernel_name_id) : std::string_view{};
    kept_call_.stack_id = call.stack_id;
  }
}

uint64_t Translator::native_stack_id(const uint64_t* frames, uint32_t depth, ChunkEncoder& chunk) {
  // The capture path bounds the depth; a bad record's is not kept.
  if (depth > kMaxNativeStackDepth) return stacks_.intern(frames, depth, chunk);
  uint64_t id = last_native_stack_.id_of(frames, depth, nullptr, 0);
  if (id == 0) {
    id = stacks_.intern(frames, depth, chunk);
    last_native_stack_.remember(frames, depth, nullptr, 0, id);
  }
  return id;
}

uint64_t Translator::LastStack::id_of(const uint64_t* native, uint32_t native_depth, const PythonFrame* python,
                                      uint32_t python_depth) const {
  const size_t native_bytes = native_depth * sizeof(uint64_t);
  const bool same = stack_id_ != 0 && native_depth_ == native_depth && python_depth_ == python_depth &&
                    (native_bytes == 0 || std::memcmp(frames_.data(), native, native_bytes) == 0) &&
                    (python_depth == 0 ||
                     std::memcmp(frames_.data() + native_bytes, python, python_depth * sizeof(PythonFrame)) == 0);
  return same ? stack_id_ : 0;
}

void Translator::LastStack::remember(const uint64_t* native, uint32_t native_depth, const PythonFrame* python,
                                     uint32_t python_depth, uint64_t stack_id) {
  const size_t native_bytes = native_depth * sizeof(uint64_t);
  frames_.resize(native_bytes + python_depth * sizeof(PythonFrame));
  if (native_bytes != 0) std::memcpy(frames_.data(), native, native_bytes);
  if (python_depth != 0) std::memcpy(frames_.data() + native_bytes, python, python_depth * sizeof(PythonFrame));
  native_depth_ = native_depth;
  python_depth_ = python_depth;
  stack_id_ = stack_id;
}

uint64_t Translator::new_api_name_id(const ApiCallRecord& record, ChunkEncoder& chunk) {
  std::vector<ApiName>& names = api_names_[record.domain < api_names_.size() ? record.domain : 0];
  if (record.callback_id >= names.size()) names.resize(record.callback_id + 1u);
  const uint64_t id = strings_.intern_static(record.function_name, chunk);
  names[record.callback_id] = {record.function_name, id};
  return id;
}

void Translator::close_open_ranges(uint64_t end_ns, ChunkEncoder& chunk) {
  for (ClosedRange& closed : ranges_.close_all(end_ns)) chunk.add(closed.range, closed.span);
}

}  // namespace prof
